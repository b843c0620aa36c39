"""``Authorization: Token <key>``, checked against PostgreSQL on every request.

No process remembers which account a key opens, so a revoked key, a deactivated account or
a changed password is refused at once by every server process. The check is one indexed
read, written in SQL (docs/operations.md#api-keys gives the figures that decided it).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.contrib.auth.models import User
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from games.writes import accounts


def client_of(request: Request) -> accounts.Client:
    """Where ``request`` comes from: the address the throttles count (behind
    ``NUM_PROXIES`` proxies, the forwarded one) and the User-Agent."""
    address: str | None = BaseThrottle().get_ident(request)
    try:
        address = str(ipaddress.ip_address(address or ""))
    except ValueError:
        address = None
    return accounts.Client(address=address, user_agent=request.META.get("HTTP_USER_AGENT", ""))


class KeyAuthentication(TokenAuthentication):
    """DRF's header format; ``request.auth`` is the key's row (:class:`ApiKey`)."""

    def authenticate(self, request: Request) -> tuple[User, Any] | None:
        self.request = request
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[User, Any]:
        found = accounts.key_authenticate(key=key, client=client_of(self.request))
        if found is None:
            raise AuthenticationFailed()
        return found
