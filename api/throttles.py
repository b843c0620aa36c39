"""Request rate limits, counted atomically in Django's cache (Redis when ``REDIS_URL`` is set).

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``THROTTLE_ANON``,
``THROTTLE_USER``, ``THROTTLE_AUTH``, ``THROTTLE_GUEST``, ``THROTTLE_MAIL``,
``THROTTLE_DATA``), read on every request so that a settings change
applies at once. A rate ``N/period`` lets at most N requests through in any window of that
period (a sliding log of the requests' times, as DRF keeps it), and the count cannot be
overrun by concurrent requests: DRF reads the log, then writes it back, so requests in
flight at once all read the same count and all pass. Here the whole check and the append
are one step (``games.rates.hit``: a Lua script in Redis, a lock in one process).

If the cache cannot be reached the request is let through and a warning logged: losing the
rate limit for a while beats refusing every request.
"""

from __future__ import annotations

import logging
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from games.rates import hit
from games.writes import accounts

logger = logging.getLogger(__name__)


class _SettingsRate(SimpleRateThrottle):
    """Reads its rate from the current settings, counts atomically (:func:`hit`), and lets
    requests through if the cache fails."""

    retry_after = 0.0

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "")
        return None if rate is None else str(rate)

    num_requests: int | None
    duration: int | None

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        try:
            allowed, self.retry_after = hit(self.key, self.num_requests, self.duration)
        except Exception as error:  # the cache is down: fail open
            logger.warning("throttle %s: cache unavailable: %r", self.scope, error)
            return True
        return allowed

    def wait(self) -> float | None:
        return self.retry_after


def _guest(request: Request) -> bool:
    """Whether the request comes from a guest (known with its key: no query)."""
    user = request.user
    return bool(user and user.is_authenticated and accounts.is_guest(user))


class AnonThrottle(_SettingsRate, AnonRateThrottle):
    """Anonymous requests, and guests', per client address (``THROTTLE_ANON``): a guest
    costs nothing to make, so counting per guest would count nothing."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if _guest(request):
            return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
        key: str | None = super().get_cache_key(request, view)
        return key


class UserThrottle(_SettingsRate, UserRateThrottle):
    """Authenticated requests, per user (``THROTTLE_USER``); guests count as anonymous."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if _guest(request):
            return None
        key: str | None = super().get_cache_key(request, view)
        return key


class _PerAddress(_SettingsRate):
    """Requests of one kind, per client address whoever asks."""

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class GuestThrottle(_PerAddress):
    """New guests (``POST /auth/guest``), per client address (``THROTTLE_GUEST``)."""

    scope = "guest"


class MailThrottle(_PerAddress):
    """Emails asked for (password resets, address verifications), per client address
    (``THROTTLE_MAIL``): nobody can flood an inbox through the server."""

    scope = "mail"


class DataThrottle(_SettingsRate, UserRateThrottle):
    """Downloads of one's own data (``GET /auth/data``), per account (``THROTTLE_DATA``):
    each writes every game of the account."""

    scope = "data"


class AuthThrottle(_PerAddress):
    """Registration and token requests, per client address whoever asks (``THROTTLE_AUTH``):
    slows down password guessing and mass registration."""

    scope = "auth"
