"""WebSocket authentication by ``?ticket=`` (from ``POST /auth/ws-ticket``) or the session
cookie; never by a key in the URL, where proxies and browsers write it down.

Without a ticket the session cookie decides (``AuthMiddlewareStack`` runs first). A ticket
is single-use and short-lived: taking it deletes it. A ticket that opens no account, or a
``?token=`` (a key in the URL, refused), marks the scope so that the consumer closes with
4401 instead of silently treating the client as anonymous. A ticket's socket depends on
the key the ticket was asked with (``scope["ws_key"]``, ``None`` for the session cookie),
the session cookie's on its session: the consumer holds those rights
(``games.live.hold_rights``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator
from django.conf import settings

from games.writes import accounts


class TicketAuthMiddleware(BaseMiddleware):  # type: ignore[misc]
    """Sets ``scope["user"]`` and ``scope["ws_key"]`` from a ``ticket`` query parameter
    when one is given, and ``scope["auth_error"]`` (a frame's code) when the credentials in
    the URL are refused."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        tickets = query.get("ticket")
        if "token" in query:
            scope = dict(scope, auth_error="token_in_url")
        elif tickets:
            taken = None
            if len(tickets) == 1:
                taken = await database_sync_to_async(accounts.ws_ticket_take)(ticket=tickets[0])
            if taken is None:
                scope = dict(scope, auth_error="bad_ticket")
            else:
                scope = dict(scope, user=taken[0], ws_key=taken[1])
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
        # The pages of the origins trusted for cross-origin API calls may open feeds too.
        allowed += list(settings.CORS_ALLOWED_ORIGINS)
        super().__init__(application, allowed)

    def valid_origin(self, parsed_origin: Any) -> bool:
        if parsed_origin is None:
            return True
        return bool(self.validate_origin(parsed_origin))
