"""WebSocket consumers: the transport of the live service (docs/api.md#websocket).

Each consumer parses its path and query, authenticates its viewer, calls one ``watch_*``
function of ``games.live`` with its ``send``, and answers the client's frames; everything
else (feeds, gaps, presence, the contest clock, surviving a channel-layer outage) happens
in ``games.live``. A consumer holds no channel of its own: the process's feed of what it
watches sends it frames directly, so a consumer only awaits its client.

A socket opened with credentials (a ticket, or the session cookie) holds its account's
rights (``games.live.hold_rights``) and shows what they allow as they were read then; when
they end (a password change, a revoked key, a deactivation, a ban, a change of staff
status) it sends nothing more and closes with 4001 (docs/api.md#connecting).
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar, Protocol
from urllib.parse import parse_qs

from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.utils import await_many_dispatch
from django.conf import settings

from api import parsers, ws_limits
from games import live, metrics
from games.errors import DomainError
from games.reads.visibility import ANONYMOUS, Viewer

#: Close codes: 4001 the rights the socket was opened with ended (reconnect), 4400 bad
#: request (``after``), 4401 refused credentials (a bad ticket, a key in the URL), 4403 not
#: allowed, 4404 no such game, 4429 over a limit (api.ws_limits), 4503 not ready (reconnect
#: later: a day being prepared, rights that cannot be watched now). A client message over
#: ``WS_MAX_MESSAGE_BYTES`` is closed by the transport with 1009 (scorpion_server.transport);
#: 4009 only when daphne was started without that limit and the message reached us.
CLOSE_RIGHTS_CHANGED = 4001
CLOSE_BAD_REQUEST = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_TOO_BIG = 4009
CLOSE_NOT_READY = 4503

_PONG = live.Pong().text()
_BAD_MESSAGE = live.Error("bad_message").text()
_RIGHTS_CHANGED = live.Error("rights_changed").text()


def close_code_for(error: DomainError) -> int:
    """4403 for "not allowed" errors, 4404 for "no such game", 4503 for "not ready yet"
    (a daily challenge still being prepared: reconnect later)."""
    return 4000 + error.status if error.status in (403, 404, 503) else CLOSE_BAD_REQUEST


class Watching(Protocol):
    """What a ``watch_*`` function of ``games.live`` returns."""

    async def ping(self) -> None: ...

    async def leave(self) -> None: ...


class LiveSocket(AsyncWebsocketConsumer):  # type: ignore[misc]
    """A socket fed by the live service: limits (:mod:`api.ws_limits`), client frames
    (``ping`` gets ``pong``, anything else ``bad_message``) and what operators count
    (``games.metrics``: open sockets, frames sent)."""

    #: The label of this consumer's sockets in the metrics (``game``, ``challenge``, …).
    kind: ClassVar[str] = "other"
    address: str | None = None
    rate: ws_limits.MessageRate | None = None
    watching: Watching | None = None
    counted = False
    #: Who the socket shows frames to: its account as its rights were read when it opened.
    viewer: Viewer = ANONYMOUS
    #: Its hold on those rights (``None``: opened without credentials).
    grant: live.Grant | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        # Channels would give the consumer a channel of its own and await it beside the
        # client; the feeds of games.live send to the socket directly instead.
        self.scope = scope
        self.base_send = send
        self.sent = metrics.frames_sent.labels(self.kind)
        try:
            await await_many_dispatch([receive], self.dispatch)
        except StopConsumer:
            pass
        finally:  # however it ended (a crash skips disconnect)
            await self.stop_watching()
            grant, self.grant = self.grant, None
            if grant is not None:
                live.release_rights(grant)
            if self.counted:
                self.counted = False
                metrics.websockets_open.labels(self.kind).dec()

    async def send_text(self, text: str) -> None:
        """Send one text frame (what the live service calls); nothing once the rights the
        socket was opened with ended."""
        if self.grant is not None and self.grant.revoked:
            return
        await self.send(text_data=text)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        await super().send(text_data, bytes_data, close)
        self.sent.inc()

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        await super().accept(subprotocol, headers)
        if not self.counted:
            self.counted = True
            metrics.websockets_open.labels(self.kind).inc()

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        address = ws_limits.client_address(self.scope)
        if not ws_limits.take_socket(address):
            await self.accept()
            await self.close(code=ws_limits.CLOSE_TOO_MANY)
            return
        self.address = address
        self.rate = ws_limits.MessageRate(settings.WS_MESSAGE_RATE)
        refused = self.scope.get("auth_error")
        if refused:
            await self.accept()
            await self.send(text_data=live.Error(refused).text())
            await self.close(code=CLOSE_BAD_TOKEN)
            return
        if await self.hold_rights():
            await super().websocket_connect(message)

    async def hold_rights(self) -> bool:
        """Hold the rights of the account the socket was opened with, if any, and make
        :attr:`viewer` of them; ``False`` once the socket is closed instead (4001: they
        ended already; 4503: rights cannot be watched now)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return True
        if "ws_key" in self.scope:  # a ticket: of a key, or asked with the session cookie
            key_id, session = self.scope["ws_key"], None
        else:  # the session cookie itself
            key_id, session = None, getattr(self.scope.get("session"), "session_key", None)
        try:
            held = await live.hold_rights(
                user_id=user.pk, key_id=key_id, session_key=session, lost=self.rights_lost
            )
        except live.RightsUnavailable:
            await self.accept()
            await self.close(code=CLOSE_NOT_READY)
            return False
        if held is None:
            await self.accept()
            await self.send(text_data=_RIGHTS_CHANGED)
            await self.close(code=CLOSE_RIGHTS_CHANGED)
            return False
        self.grant, rights = held
        self.viewer = Viewer.of(rights)
        return True

    async def rights_lost(self) -> None:
        """The rights the socket was opened with ended: stop feeding it (it sends nothing
        more already), tell the client, close; the client reconnects with what remains."""
        await self.stop_watching()
        await self.send(text_data=_RIGHTS_CHANGED)
        await self.close(code=CLOSE_RIGHTS_CHANGED)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self.address is not None:
            ws_limits.release_socket(self.address)
            self.address = None
        await super().websocket_disconnect(message)

    async def disconnect(self, code: int) -> None:
        await self.stop_watching()

    async def stop_watching(self) -> None:
        watching, self.watching = self.watching, None
        if watching is not None:
            await watching.leave()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.rate is not None and not self.rate.allow():
            await self.send(text_data=live.Error("throttled").text())
            await self.close(code=ws_limits.CLOSE_TOO_MANY)
            return
        if text_data is None:
            await self.send(text_data=_BAD_MESSAGE)
            return
        if len(text_data.encode()) > settings.WS_MAX_MESSAGE_BYTES:
            await self.send(text_data=live.Error("too_large").text())
            await self.close(code=CLOSE_TOO_BIG)
            return
        try:
            content = parsers.loads(text_data)
        except ValueError:  # malformed, too deep, or a lone surrogate
            content = None
        if isinstance(content, dict) and content.get("type") == "ping":
            if self.watching is not None:
                await self.watching.ping()
            await self.send(text_data=_PONG)
        else:
            await self.send(text_data=_BAD_MESSAGE)

    def query(self, name: str) -> str | None:
        """The last value of query parameter ``name`` (blank ones count)."""
        values = self.queries(name)
        return values[-1] if values else None

    def queries(self, name: str) -> list[str]:
        """Every value of query parameter ``name``, blank ones included."""
        query = self.scope.get("query_string", b"").decode("latin-1")
        return parse_qs(query, keep_blank_values=True).get(name, [])


class GameConsumer(LiveSocket):
    """Spectate one game (``/ws/games/{id}/?after=N&watchers=1``)."""

    kind = "game"

    async def connect(self) -> None:
        # Accept first: a WebSocket close code can only be sent on an open connection.
        await self.accept()
        after = self._after()
        if after is False:
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        try:
            self.watching = await live.watch_game(
                self.send_text,
                game_id=self.scope["url_route"]["kwargs"]["game_id"],
                viewer=self.viewer,
                after=after,
                counting=self.query("watchers") in ("1", "true"),
            )
        except live.BadAfter:
            await self.send(text_data=live.Error("bad_after").text())
            await self.close(code=CLOSE_BAD_REQUEST)
        except DomainError as error:
            await self.close(code=close_code_for(error))

    def _after(self) -> int | None | bool:
        """The ``after`` query parameter: an int ≥ 0, ``None`` if absent, ``False`` if bad
        (blank, given twice, not a whole number, as REST refuses it)."""
        values = self.queries("after")
        if not values:
            return None
        if len(values) > 1:
            return False
        with contextlib.suppress(ValueError):
            after = int(values[0])
            return after if after >= 0 else False
        return False


class ChallengeConsumer(LiveSocket):
    """Watch a daily challenge's race (``/ws/challenges/{date}/``)."""

    kind = "challenge"

    async def connect(self) -> None:
        await self.accept()
        try:
            self.watching = await live.watch_challenge(
                self.send_text, date=self.scope["url_route"]["kwargs"]["date"]
            )
        except DomainError as error:
            await self.close(code=close_code_for(error))


class ContestConsumer(LiveSocket):
    """Watch a race (``/ws/races/{id or code}/``) or an arena (``/ws/arenas/{id}/``)."""

    contest: ClassVar[live.ContestKind]

    async def connect(self) -> None:
        await self.accept()
        try:
            self.watching = await live.watch_contest(
                self.send_text,
                kind=self.contest,
                key=self.scope["url_route"]["kwargs"][self.contest],
            )
        except DomainError as error:
            await self.close(code=close_code_for(error))


class RaceConsumer(ContestConsumer):
    kind = "race"
    contest = "race"


class ArenaConsumer(ContestConsumer):
    kind = "arena"
    contest = "arena"


#: The close code of a path that names no feed.
CLOSE_NOT_FOUND = 4404


class NoRoute(AsyncWebsocketConsumer):  # type: ignore[misc]
    """Any path the routes do not match: accepted, then closed with 4404 (a close code can
    only be sent on an open connection)."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)
