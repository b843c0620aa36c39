"""A game's spectators in this process: the game feed (docs/api.md#game-feed).

The promise: a spectator gets the snapshot (now, or at its resume point ``after``), then
every event after it once, in ``seq`` order, none missed, whatever the channel layer drops.

- **Opening.** A socket enters the game's feed (``games.live.feeds``: one channel in the
  game's group for the whole process) *before* it reads the snapshot and the backlog from
  the store, so an event appended meanwhile reaches the feed afterwards. Until its opening
  frames are sent the spectator is *held*: what arrives for it waits in its hold.
- **The common path.** The feed sends each published event (rendered once per audience by
  ``games.live.publish``) to every spectator whose last ``seq`` is the one before it: a loop
  with one send per spectator, nothing read, nothing rendered.
- **Gaps.** An event already sent is dropped. One beyond the next (a message the layer
  dropped, so every local spectator missed it) holds the spectators behind and reads the
  missing events from the store once per audience and resume point, in a task of its own,
  then sends them and what waited in the holds: a gap never delays the feed. A ping fills a
  gap as well (a dropped message followed by silence), and so does the relay's sweep
  (``games.live.relay``). While the store is out of reach a gap stays open, and the socket
  too: the sweep fills it later.
- **Presence.** Every spectator counts as a viewer (``games.live.presence``); the feed
  renews its spectators' presence at once, and those who asked (``?watchers=1``) are sent
  each newer count.

Only one task sends events to a spectator at a time (the one that holds it), so frames
leave in the order their ``seq`` was recorded as sent.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import psycopg
from channels.db import database_sync_to_async
from django.db import DatabaseError

from games import metrics
from games.errors import DomainError
from games.live import backlog, feeds, presence
from games.live.frames import Event, Frame, Watchers
from games.live.messages import GameEvent, GameWatchers, Message, game_group
from games.reads import visibility
from games.reads.visibility import Audience, Viewer

logger = logging.getLogger(__name__)

#: Sends one text frame on a spectator's socket.
Send = Callable[[str], Awaitable[None]]


class BadAfter(Exception):
    """The resume point ``after`` is beyond the game's version."""


@dataclass(frozen=True, slots=True)
class _Upto:
    """Fill from the store up to ``seq`` (a ping, a sweep)."""

    seq: int


@dataclass(frozen=True, slots=True)
class _Stored:
    """Event frames read from the store once for several spectators (the relay's sweep)."""

    frames: list[Event]


_Item = GameEvent | _Upto | _Stored


@dataclass(eq=False)
class Spectator:
    """One socket watching one game, as the game's feed keeps it; the transport keeps it
    to :meth:`ping` and to :meth:`leave`."""

    game_id: uuid.UUID
    viewer: Viewer
    send: Send
    audience: Audience
    #: Whether the socket is sent each newer count of viewers.
    counting: bool = False
    #: This viewer's name in the game's presence.
    name: str = field(default_factory=lambda: uuid.uuid4().hex)
    last_sent: int = 0
    #: Set while one task sends this spectator events: what arrives meanwhile waits here.
    held: list[_Item] | None = field(default_factory=list)
    watchers_revision: int = 0
    present: bool = False
    feed: GameFeed | None = None

    async def ping(self) -> None:
        """Send any event a dropped message left unsent (before the pong is sent)."""
        if self.feed is not None:
            await self.feed.offer(self, _Upto(2**31))

    async def leave(self) -> None:
        """The socket closed: stop feeding it, and stop counting it."""
        feed, self.feed = self.feed, None
        if feed is not None:
            await feed.depart(self)


async def watch_game(
    send: Send, *, game_id: str, viewer: Viewer, after: int | None, counting: bool
) -> Spectator:
    """Start feeding a socket the game ``game_id`` as ``viewer`` may see it: its snapshot
    (at ``after`` if given) and the events after it, then every new one.
    ``DomainError`` if the viewer may not watch it (as ``GET /games/{id}``),
    :class:`BadAfter` if ``after`` is beyond its version."""
    game, _ = await database_sync_to_async(backlog.current)(game_id, viewer)
    if after is not None and after > game.version:
        raise BadAfter()
    spectator = Spectator(game.id, viewer, send, visibility.audience(viewer))
    feed = await GameFeed.enter(f"game:{game.id}", spectator, lambda: GameFeed(game.id))
    spectator.feed = feed
    try:
        await feed.open(spectator, after)
    except BaseException:
        await spectator.leave()
        raise
    spectator.counting = counting
    await feed.arrive(spectator)
    return spectator


class GameFeed(feeds.Feed[Spectator]):
    """One game's spectators in this process."""

    def __init__(self, game_id: uuid.UUID) -> None:
        super().__init__(f"game:{game_id}", game_group(game_id))
        self.game_id = game_id
        self.renewer: asyncio.Future[None] | None = None
        self.workers: set[asyncio.Future[None]] = set()

    async def handle(self, message: Message) -> None:
        if isinstance(message, GameEvent):
            await self.deliver(message)
        elif isinstance(message, GameWatchers):
            await self.count(message)

    # --- events ----------------------------------------------------------------------------

    async def open(self, spectator: Spectator, after: int | None) -> None:
        """Send the opening frames (read now that the feed is in the game's group), then
        what arrived for the spectator meanwhile."""
        frames, version = await database_sync_to_async(_opening)(
            self.game_id, spectator.viewer, after
        )
        for frame in frames:
            await spectator.send(frame.text())
        spectator.last_sent = version
        await self._work(spectator)

    async def deliver(self, event: GameEvent) -> None:
        """A published event, to every local spectator."""
        seq, texts = event.seq, event.texts
        behind: list[Spectator] = []
        for spectator in list(self.members):
            if spectator.held is not None:
                spectator.held.append(event)
            elif seq <= spectator.last_sent:
                continue
            elif seq == spectator.last_sent + 1 and spectator.audience in texts:
                spectator.held = []
                spectator.last_sent = seq
                try:
                    await spectator.send(texts[spectator.audience])
                except Exception:  # one socket's failure is not the others'
                    logger.warning("game %s: could not send a frame", self.game_id, exc_info=True)
                if spectator.held:
                    self._spawn(self._work(spectator))  # arrived while sending
                else:
                    spectator.held = None
            else:  # a gap before it (or a message without this audience's frame)
                spectator.held = [event]
                behind.append(spectator)
        if behind:  # a message the layer dropped: every local spectator missed it
            self._spawn(self._catch_up(behind, seq - 1))

    async def _catch_up(self, behind: list[Spectator], upto: int) -> None:
        """Fill the gap of spectators held by :meth:`deliver`: the events up to ``upto``
        are read once per audience and resume point, then each spectator is sent them and
        what waits in its hold."""
        groups: dict[tuple[Audience, int], list[Spectator]] = {}
        for spectator in behind:
            groups.setdefault((spectator.audience, spectator.last_sent), []).append(spectator)
        for (_, after), local in groups.items():
            try:
                frames = await database_sync_to_async(_stored)(
                    self.game_id, local[0].viewer, after, upto
                )
            except (DatabaseError, psycopg.Error) as error:
                logger.warning("game %s: could not read the store: %r", self.game_id, error)
                for spectator in local:  # the gap stays open: a ping or the sweep fills it
                    spectator.held = None
                continue
            for spectator in local:
                assert spectator.held is not None
                spectator.held.insert(0, _Stored(frames))
                await self._work(spectator)

    async def offer(self, spectator: Spectator, item: _Item) -> None:
        """Hand ``spectator`` an item to send: now, or after what holds it."""
        if spectator.held is not None:
            spectator.held.append(item)
            return
        spectator.held = [item]
        await self._work(spectator)

    async def _work(self, spectator: Spectator) -> None:
        """Send what waits in the spectator's hold, in order, then release it."""
        held = spectator.held
        assert held is not None
        try:
            while held:
                await self._apply(spectator, held.pop(0))
        except Exception:  # a failed store read ends this round; the sweep tries again
            logger.warning("game %s: could not feed a spectator", self.game_id, exc_info=True)
        finally:
            spectator.held = None

    async def _apply(self, spectator: Spectator, item: _Item) -> None:
        if isinstance(item, GameEvent):
            if item.seq <= spectator.last_sent:
                return
            text = item.texts.get(spectator.audience)
            await self._read(spectator, item.seq - 1 if text is not None else item.seq)
            if text is not None and item.seq == spectator.last_sent + 1:
                spectator.last_sent = item.seq
                await spectator.send(text)
        elif isinstance(item, _Upto):
            await self._read(spectator, item.seq)
        else:
            for frame in item.frames:
                seq = frame.event["seq"]
                if seq <= spectator.last_sent:
                    continue
                await self._read(spectator, seq - 1)
                if seq == spectator.last_sent + 1:
                    spectator.last_sent = seq
                    metrics.gaps_filled.inc()
                    await spectator.send(frame.text())

    async def _read(self, spectator: Spectator, upto: int) -> None:
        """Send the stored events after the last one sent, up to ``upto``. While the
        database is out of reach nothing is sent: the relay's sweep fills the gap later."""
        if upto <= spectator.last_sent:
            return
        try:
            frames = await database_sync_to_async(_stored)(
                self.game_id, spectator.viewer, spectator.last_sent, upto
            )
        except (DatabaseError, psycopg.Error) as error:
            logger.warning("game %s: could not read the store: %r", self.game_id, error)
            return
        for frame in frames:
            seq = frame.event["seq"]
            if seq == spectator.last_sent + 1:
                spectator.last_sent = seq
                metrics.gaps_filled.inc()
                await spectator.send(frame.text())

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self.workers.add(task)
        task.add_done_callback(self.workers.discard)

    # --- what the relay asks ----------------------------------------------------------------

    def resume_point(self) -> tuple[uuid.UUID, int] | None:
        if not self.members:
            return None
        return self.game_id, min(spectator.last_sent for spectator in self.members)

    async def fill(self, version: int) -> None:
        """Read the events up to ``version`` once per audience and resume point, and hand
        them to the spectators behind."""
        groups: dict[tuple[Audience, int], list[Spectator]] = {}
        for spectator in self.members:
            if spectator.last_sent < version:
                key = (spectator.audience, spectator.last_sent)
                groups.setdefault(key, []).append(spectator)
        for (_, after), local in groups.items():
            frames = await database_sync_to_async(_stored)(
                self.game_id, local[0].viewer, after, version
            )
            for spectator in local:
                if spectator in self.members:
                    await self.offer(spectator, _Stored(frames))

    # --- how many watch ---------------------------------------------------------------------

    async def arrive(self, spectator: Spectator) -> None:
        """Count ``spectator`` as a viewer (a count is a courtesy: spectating goes on
        without it)."""
        game = str(self.game_id)
        try:
            await presence.presence(self.layer).join(game, spectator.name)
        except Exception:
            logger.warning("could not count a watcher of game %s", game, exc_info=True)
            return
        spectator.present = True
        presence.announce_soon(self.layer, game, self.group)
        if self.renewer is None or self.renewer.done():
            self.renewer = asyncio.ensure_future(self._renew())

    async def depart(self, spectator: Spectator) -> None:
        """``spectator`` leaves the feed and the count."""
        await self.leave(spectator)
        if not spectator.present:
            return
        spectator.present = False
        game = str(self.game_id)
        try:
            await presence.presence(self.layer).leave(game, spectator.name)
        except Exception:
            logger.warning("could not uncount a watcher of game %s", game, exc_info=True)
        presence.announce_soon(self.layer, game, self.group)

    async def _renew(self) -> None:
        """Renew the presence of every local viewer, at once; viewers of a process that
        died lapse meanwhile, and the others must hear it."""
        game = str(self.game_id)
        while True:
            await asyncio.sleep(presence.RENEW_SECONDS)
            names = [spectator.name for spectator in self.members if spectator.present]
            if not names:
                continue
            try:
                lapsed = await presence.presence(self.layer).renew(game, names)
            except Exception:
                logger.warning("could not renew the watchers of game %s", game, exc_info=True)
                continue
            if lapsed:
                presence.announce_soon(self.layer, game, self.group)

    async def count(self, message: GameWatchers) -> None:
        """A new count of the game's viewers, to those who asked, if newer than the last."""
        text = Watchers(message.count).text()
        for spectator in list(self.members):
            if spectator.counting and message.revision > spectator.watchers_revision:
                spectator.watchers_revision = message.revision
                await spectator.send(text)

    def closed(self) -> None:
        if self.renewer is not None:
            self.renewer.cancel()
        for task in list(self.workers):
            task.cancel()


def _opening(game_id: uuid.UUID, viewer: Viewer, after: int | None) -> tuple[list[Frame], int]:
    """The snapshot (now, or at ``after``) and the stored events after ``after``; the
    version they reach."""
    seen = backlog.current(game_id, viewer)
    version = seen.game.version
    if after is None:
        return [backlog.snapshot(seen)], version
    frames: list[Frame] = [backlog.snapshot(seen, version=after)]
    frames += backlog.event_frames(seen, after=after, upto=version)
    return frames, version


def _stored(game_id: uuid.UUID, viewer: Viewer, after: int, upto: int) -> list[Event]:
    """The event frames after ``after`` up to ``upto`` as ``viewer`` sees the game now;
    none once they may no longer watch it."""
    try:
        seen = backlog.current(game_id, viewer)
    except DomainError:
        return []
    return backlog.event_frames(seen, after=after, upto=min(upto, seen.game.version))
