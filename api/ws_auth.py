"""WebSocket authentication by ``?token=<key>`` (the REST token), beside the session cookie.

Without a token the session cookie decides (``AuthMiddlewareStack`` runs first); a token
that matches no user marks the scope so that the consumer closes with 4401 instead of
silently treating the client as anonymous.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator
from django.conf import settings

from api.authentication import user_for_token


class TokenAuthMiddleware(BaseMiddleware):  # type: ignore[misc]
    """Sets ``scope["user"]`` from a ``token`` query parameter when one is given."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        keys = parse_qs(scope.get("query_string", b"").decode()).get("token")
        if keys:
            user = await database_sync_to_async(user_for_token)(keys[-1])
            scope = dict(scope)
            if user is None:
                scope["auth_error"] = "authentication_failed"
            else:
                scope["user"] = user
        return await super().__call__(scope, receive, send)


class BrowserOriginValidator(OriginValidator):  # type: ignore[misc]
    """Refuses browsers from other sites (cross-site WebSocket hijacking with the session
    cookie) while letting programs that send no ``Origin`` header connect.

    Channels' ``AllowedHostsOriginValidator`` refuses a missing ``Origin`` unless every host
    is allowed, which would lock out the non-browser clients the API is written for.
    """

    def __init__(self, application: Any) -> None:
        allowed = list(settings.ALLOWED_HOSTS)
        if settings.DEBUG and not allowed:
            allowed = ["localhost", "127.0.0.1", "[::1]"]
        super().__init__(application, allowed)

    def valid_origin(self, parsed_origin: Any) -> bool:
        if parsed_origin is None:
            return True
        return bool(self.validate_origin(parsed_origin))
