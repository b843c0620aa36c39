"""WebSocket consumers: live spectating of a game, and of a daily challenge's race.

``/ws/games/{id}/?after=N`` sends a snapshot, then one frame per appended event, in
``seq`` order, none missed and none twice. Channel layers deliver at most once, so the
consumer tracks the last ``seq`` it sent: it drops what it already sent and fills any gap
from the event store. It joins the game's group *before* reading the store, so an event
appended while the snapshot or backlog is read arrives afterwards and is either sent or
recognised as already sent: there is no gap at the seam.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import parse_qs

import psycopg
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError

from api import parsers, watchers, ws_limits
from api.resilience import LayerResilient
from games import metrics
from games.errors import DomainError
from games.live import feeds, publish
from games.live.relay import relay
from games.reads import selectors, visibility
from games.reads.visibility import Viewer

logger = logging.getLogger(__name__)

#: Close codes: 4400 bad request (``after``), 4401 bad token, 4403 not allowed,
#: 4404 no such game, 4429 over a limit (api.ws_limits). A client message over
#: ``WS_MAX_MESSAGE_BYTES`` is closed by the transport with 1009 (scorpion_server.transport);
#: 4009 only when daphne was started without that limit and the message reached us.
CLOSE_BAD_REQUEST = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_TOO_BIG = 4009


relay.recovery_hooks.append(watchers.reconnect)


def close_code_for(error: DomainError) -> int:
    """4403 for "not allowed" errors, 4404 for "no such game", 4503 for "not ready yet"
    (a daily challenge still being prepared: reconnect later)."""
    return 4000 + error.status if error.status in (403, 404, 503) else CLOSE_BAD_REQUEST


async def keep_membership(consumer: Any) -> None:
    """Re-join the consumer's group before the channel layer's group expiry could drop it
    (while the layer is down the relay feeds the consumer, and re-joins when it is back)."""
    interval = max(1.0, settings.WS_GROUP_EXPIRY / 2)
    while True:
        await asyncio.sleep(interval)
        if consumer.group is not None and relay.is_up():
            try:
                await consumer.channel_layer.group_add(consumer.group, consumer.channel_name)
            except Exception as error:
                relay.failed("group_add", error)


async def leave(consumer: Any) -> None:
    """Stop renewing the consumer's group membership and leave the group."""
    keeper = getattr(consumer, "keeper", None)
    if keeper is not None:
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper
    if consumer.group is not None:
        group, consumer.group = consumer.group, None
        if relay.is_up():
            try:
                await consumer.channel_layer.group_discard(group, consumer.channel_name)
            except Exception as error:  # the membership expires with the group anyway
                relay.failed("group_discard", error)


class ClientFrames(LayerResilient):
    """Answers client frames: ``ping`` gets ``pong``, anything else ``bad_message``; holds
    the client to its limits (:mod:`api.ws_limits`)."""

    address: str | None = None
    rate: ws_limits.MessageRate | None = None

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        address = ws_limits.client_address(self.scope)
        if not ws_limits.take_socket(address):
            await self.accept()
            await self.close(code=ws_limits.CLOSE_TOO_MANY)
            return
        self.address = address
        self.rate = ws_limits.MessageRate(settings.WS_MESSAGE_RATE)
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self.address is not None:
            ws_limits.release_socket(self.address)
            self.address = None
        await super().websocket_disconnect(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.rate is not None and not self.rate.allow():
            await self.send_json({"type": "error", "code": "throttled"})
            await self.close(code=ws_limits.CLOSE_TOO_MANY)
            return
        if text_data is None:
            await self.send_json({"type": "error", "code": "bad_message"})
            return
        if len(text_data.encode()) > settings.WS_MAX_MESSAGE_BYTES:
            await self.send_json({"type": "error", "code": "too_large"})
            await self.close(code=CLOSE_TOO_BIG)
            return
        try:
            content = parsers.loads(text_data)
        except ValueError:  # malformed, too deep, or a lone surrogate
            content = None
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.on_ping()
            await self.send_json({"type": "pong"})
        else:
            await self.send_json({"type": "error", "code": "bad_message"})

    async def on_ping(self) -> None:
        """Hook run before answering a ping."""


class GameConsumer(ClientFrames):
    """Spectate one game. Published frames come rendered for each audience
    (``visibility.Audience``); this consumer sends its viewer's. With ``?watchers=1`` the
    client also gets ``{"type": "watchers", "count": N}`` whenever the number of viewers
    changes."""

    game_id: uuid.UUID | None = None
    kind = "game"
    viewer: Viewer = visibility.ANONYMOUS
    audience: visibility.Audience = visibility.Audience.READERS
    group: str | None = None
    last_sent = 0
    counting = False
    watchers_revision = 0
    renewer: asyncio.Future[None] | None = None

    async def connect(self) -> None:
        # Accept first: a WebSocket close code can only be sent on an open connection.
        await self.accept()
        if self.scope.get("auth_error"):
            await self.close(code=CLOSE_BAD_TOKEN)
            return
        after = self._after()
        if after is False:
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        self.viewer = Viewer.of(self.scope.get("user"))
        try:
            game, _ = await database_sync_to_async(feeds.open_game)(
                self.scope["url_route"]["kwargs"]["game_id"], self.viewer
            )
        except DomainError as error:
            await self.close(code=close_code_for(error))
            return
        if after is not None and after > game.version:
            await self.send_json({"type": "error", "code": "bad_after"})
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        self.game_id = game.id
        self.audience = visibility.audience(self.viewer)
        self.group = publish.game_group(game.id)
        relay.add_spectator(self)
        await self.join_group(self.group)
        self.keeper = asyncio.ensure_future(keep_membership(self))
        opening = await database_sync_to_async(self._opening_frames)(after)
        for frame in opening:
            await self._send_frame(frame)
        self.counting = self._query("watchers") in ("1", "true")
        await self._arrive()

    def _opening_frames(self, after: int | None) -> list[dict[str, Any]]:
        """Read after joining the group: the snapshot (now, or at ``after``) and the stored
        events after ``after``."""
        assert self.game_id is not None
        seen = feeds.current(self.game_id, self.viewer)
        if after is None:
            self.last_sent = seen.game.version
            return [feeds.snapshot(seen)]
        frames = [feeds.snapshot(seen, version=after)]
        frames += feeds.event_frames(seen, after=after, upto=seen.game.version)
        self.last_sent = after
        return frames

    async def _send_frame(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "event":
            self.last_sent = frame["event"]["seq"]
        await self.send_json(frame)

    def _query(self, name: str) -> str | None:
        values = parse_qs(self.scope.get("query_string", b"").decode()).get(name)
        return values[-1] if values else None

    def _after(self) -> int | None | bool:
        """The ``after`` query parameter: an int ≥ 0, ``None`` if absent, ``False`` if bad."""
        values = parse_qs(self.scope.get("query_string", b"").decode()).get("after")
        if not values:
            return None
        try:
            after = int(values[-1])
        except ValueError:
            return False
        return after if after >= 0 else False

    async def disconnect(self, code: int) -> None:
        relay.remove_spectator(self)
        await self._depart()
        await leave(self)

    # --- how many watch (api.watchers): every viewer counts, those who asked hear the count

    async def _arrive(self) -> None:
        game = str(self.game_id)
        try:
            await watchers.presence(self.channel_layer).join(game, self.channel_name)
        except Exception:  # a count is a courtesy: spectating goes on without it
            logger.warning("could not count a watcher of game %s", game, exc_info=True)
            return
        watchers.announce_soon(self.channel_layer, game, publish.game_group(game))
        self.renewer = asyncio.ensure_future(self._renew())

    async def _renew(self) -> None:
        game = str(self.game_id)
        while True:
            await asyncio.sleep(watchers.RENEW_SECONDS)
            try:
                lapsed = await watchers.presence(self.channel_layer).renew(game, self.channel_name)
            except Exception:
                logger.warning("could not renew a watcher of game %s", game, exc_info=True)
                continue
            if lapsed:  # viewers of a process that died: the others must hear it
                watchers.announce_soon(self.channel_layer, game, publish.game_group(game))

    async def _depart(self) -> None:
        if self.renewer is None:
            return
        self.renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.renewer
        self.renewer = None
        game = str(self.game_id)
        try:
            await watchers.presence(self.channel_layer).leave(game, self.channel_name)
        except Exception:
            logger.warning("could not uncount a watcher of game %s", game, exc_info=True)
        if self.group is not None:
            watchers.announce_soon(self.channel_layer, game, self.group)

    async def game_watchers(self, message: dict[str, Any]) -> None:
        """A new count of the game's viewers: sent on if asked for and newer than the last."""
        if self.counting and message["revision"] > self.watchers_revision:
            self.watchers_revision = message["revision"]
            await self.send_json({"type": "watchers", "count": message["count"]})

    async def game_event(self, message: dict[str, Any]) -> None:
        """A published event: drop it if already sent, fill the gap before it if any."""
        seq = message["seq"]
        if seq <= self.last_sent:
            return
        if seq > self.last_sent + 1:
            await self._catch_up(seq - 1)
            if seq > self.last_sent + 1:  # the store is out of reach: the relay fills it later
                return
        self.last_sent = seq
        await self.send(text_data=message["texts"][self.audience])

    async def _catch_up(self, upto: int) -> None:
        """Send the stored events after the last one sent, up to ``upto``. While the
        database is out of reach nothing is sent, and the socket stays open: the process's
        relay sweeps the gap once it is back (``games.live.relay``)."""
        try:
            frames = await database_sync_to_async(self._stored_frames)(upto)
        except (DatabaseError, psycopg.Error) as error:
            logger.warning("game %s: could not read the store: %r", self.game_id, error)
            return
        for frame in frames:
            metrics.gaps_filled.inc()
            await self._send_frame(frame)

    async def game_stored(self, message: dict[str, Any]) -> None:
        """Events the process's relay read from the store (``games.live.relay``): those
        not sent yet, in order."""
        for frame in message["frames"]:
            seq = frame["event"]["seq"]
            if seq <= self.last_sent:
                continue
            if seq > self.last_sent + 1:  # cannot happen: the relay reads from last_sent
                await self._catch_up(seq - 1)
                if seq > self.last_sent + 1:
                    return
            metrics.gaps_filled.inc()
            await self._send_frame(frame)

    def _stored_frames(self, upto: int) -> list[dict[str, Any]]:
        assert self.game_id is not None
        seen = feeds.current(self.game_id, self.viewer)
        return feeds.event_frames(seen, after=self.last_sent, upto=min(upto, seen.game.version))

    async def on_ping(self) -> None:
        """A ping also closes any gap left by a dropped message (at-most-once layers)."""
        if self.game_id is None:
            return
        await self._catch_up(upto=2**31)


class StandingsFeed:
    """The standings of one race (a daily challenge's, a race's or an arena's) for every
    watcher of this process.

    A change only marks the feed dirty; one task fetches the standings (one query) and
    hands them to all local watchers, again while changes came in meanwhile. Under a
    burst of changes a process fetches once per round, however many watchers it has.
    """

    _feeds: ClassVar[dict[tuple[int, str], StandingsFeed]] = {}

    def __init__(self, key: str, fetch: Callable[[], tuple[int, str]]) -> None:
        self.key = key
        self.fetch = fetch
        self.watchers: set[Any] = set()
        self.dirty = False
        self.task: asyncio.Future[None] | None = None

    @classmethod
    def of(cls, key: str, fetch: Callable[[], tuple[int, str]]) -> Any:
        """This loop's feed of ``key`` (made with ``fetch``, a synchronous reader of
        ``(revision, frame text)``, if there is none yet)."""
        index = (id(asyncio.get_running_loop()), key)
        feed = cls._feeds.get(index)
        if feed is None:
            feed = cls._feeds[index] = cls(key, fetch)
        return feed

    def join(self, watcher: Any) -> None:
        self.watchers.add(watcher)

    def leave(self, watcher: Any) -> None:
        self.watchers.discard(watcher)
        if not self.watchers:
            self._feeds.pop((id(asyncio.get_running_loop()), self.key), None)
            self.closed()

    def closed(self) -> None:
        """Hook run when the last local watcher left."""

    def changed(self) -> None:
        self.dirty = True
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._fetch())

    async def _fetch(self) -> None:
        while self.dirty and self.watchers:
            self.dirty = False
            revision, text = await database_sync_to_async(self.fetch)()
            for watcher in list(self.watchers):
                await watcher.deliver(revision, text)


class StandingsWatcher(ClientFrames):
    """A watcher of a race's standings (a daily's, a race's or an arena's), fed by a
    process-wide feed (:class:`StandingsFeed`) and, while the channel layer is down, by the
    relay. Each delivery carries the standings' revision, so standings read earlier but
    delivered later never replace newer ones."""

    group: str | None = None
    feed: Any = None
    revision = -1

    async def deliver(self, revision: int, text: str) -> None:
        """Send standings unless newer ones were sent already."""
        if revision < self.revision:
            return
        self.revision = revision
        await self.send(text_data=text)

    async def disconnect(self, code: int) -> None:
        relay.remove_watcher(self)
        if self.feed is not None:
            self.feed.leave(self)
            self.feed = None
        await leave(self)


class ChallengeConsumer(StandingsWatcher):
    """Watch a daily challenge's race: its standings first, then after every change.

    Commands only announce a change (a tiny group message); the process's
    :class:`StandingsFeed` reads the standings and delivers them. Each delivery carries the
    standings' revision (the sum of the entries' game versions), so standings read earlier
    but delivered later never replace newer ones.
    """

    kind = "challenge"
    date: Any = None
    feed: StandingsFeed | None = None

    async def connect(self) -> None:
        await self.accept()
        try:
            self.date = await database_sync_to_async(self._open)()
        except DomainError as error:
            await self.close(code=close_code_for(error))
            return
        self.group = publish.challenge_group(self.date)
        relay.add_watcher(self)
        await self.join_group(self.group)
        self.keeper = asyncio.ensure_future(keep_membership(self))
        date = self.date
        self.feed = StandingsFeed.of(f"challenge:{date}", lambda: selectors.standings_frame(date))
        self.feed.join(self)
        revision, text = await database_sync_to_async(selectors.standings_frame)(self.date)
        await self.deliver(revision, text)

    def _open(self) -> Any:
        return selectors.challenge_get(self.scope["url_route"]["kwargs"]["date"]).date

    async def standings_changed(self, message: dict[str, Any]) -> None:
        if self.feed is not None:
            self.feed.changed()

    async def on_ping(self) -> None:
        """A ping also brings standings a dropped announcement left stale."""
        if self.feed is not None:
            self.feed.changed()
