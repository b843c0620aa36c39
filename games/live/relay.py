"""Spectators that outlive the channel layer: the store relay (docs/architecture.md#the-live-path).

The channel layer (Redis) carries published messages between processes, but it is not the
source of truth: the event store is. Each process keeps here the registry of its open
feeds (``games.live.feeds``: one per game or race that its sockets watch) and a view of its
channel layer's health:

- **Up.** Messages come through the layer. Every :data:`SWEEP_SECONDS` one query reads the
  versions of the games this process's feeds follow, and a feed whose spectators are behind
  (a message the layer dropped) sends them the missing events from the store: a sweep, not
  a path.
- **Down.** Any failure of the layer (a feed's receive, a ``group_add``, a publish) marks it
  down for the whole process. Feeds stop receiving from it and their sockets stay open; the
  same query now runs every :data:`POLL_SECONDS`, and each game's new events are read and
  rendered once per audience and per resume point, then sent to every local spectator, so
  a process pays per game, not per spectator. Race feeds read their standings again. New
  sockets are accepted: PostgreSQL serves them.
- **Back.** A probe every :data:`PROBE_SECONDS` drops the layer's pooled connections
  (stale after a Redis restart) and makes one round trip; once it succeeds, every feed
  joins its group again (a restarted Redis forgot them), the layer is marked up, and a
  last poll covers what was published before the groups were joined.

Frames carry ``seq``; spectators are never sent one twice, so delivery from both paths at
a seam is harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer

from games import metrics
from games.live import backlog

logger = logging.getLogger(__name__)

#: While the layer is down, each process reads its spectators' games this often.
POLL_SECONDS = 0.5
#: While it is up, the same sweep runs this often, to fill gaps of dropped messages.
SWEEP_SECONDS = 5.0
#: While it is down, a probe tries it this often.
PROBE_SECONDS = 1.0
_PROBE_GROUP = "relay.probe"


class Feed(Protocol):
    """An open feed, as the relay sees it (``games.live.feeds.Feed``)."""

    group: str
    channel: str | None

    def resume_point(self) -> tuple[uuid.UUID, int] | None: ...

    async def fill(self, version: int) -> None: ...

    def refresh(self) -> None: ...


class _Relay:
    def __init__(self) -> None:
        self.feeds: set[Feed] = set()
        self.up = asyncio.Event()
        self.up.set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.sweeper: asyncio.Future[None] | None = None
        self.prober: asyncio.Future[None] | None = None
        self.recovery_hooks: list[Callable[[], Awaitable[None]]] = []

    # --- registry ------------------------------------------------------------------------

    def add(self, feed: Feed) -> None:
        """Watch over ``feed`` (an open feed of this loop)."""
        self._start()
        self.feeds.add(feed)

    def remove(self, feed: Feed) -> None:
        self.feeds.discard(feed)

    def _start(self) -> None:
        self._bind(asyncio.get_running_loop())
        if isinstance(get_channel_layer(), InMemoryChannelLayer):
            return  # one process, no failure to survive: nothing to sweep
        if self.sweeper is None or self.sweeper.done():
            self.sweeper = asyncio.ensure_future(self._sweep_forever())

    def _bind(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is not loop:  # a new server loop (tests run several): start afresh
            self.loop, self.sweeper, self.prober = loop, None, None
            self.feeds = set()
            self.up = asyncio.Event()
            self.up.set()
            metrics.channel_layer_up.set(1)

    # --- health --------------------------------------------------------------------------

    def is_up(self) -> bool:
        return self.up.is_set()

    async def wait_up(self) -> None:
        await self.up.wait()

    def failed(self, operation: str, error: BaseException) -> None:
        """A channel-layer operation failed: count it, and mark the layer down (once)."""
        metrics.channel_layer_errors.labels(operation).inc()
        loop = _running_loop()
        if loop is None:
            return
        if self.loop is None:
            self._bind(loop)
        if loop is not self.loop or not self.up.is_set():
            return
        logger.warning(
            "channel layer failed (%s: %r): spectators are fed from the event store",
            operation,
            error,
        )
        self.up.clear()
        metrics.channel_layer_up.set(0)
        if self.prober is None or self.prober.done():
            self.prober = asyncio.ensure_future(self._probe_until_up())
        # Poll at once rather than at the end of a sweep interval.
        if self.sweeper is not None and not self.sweeper.done():
            self.sweeper.cancel()
        self.sweeper = asyncio.ensure_future(self._sweep_forever())

    async def _probe_until_up(self) -> None:
        while True:
            await asyncio.sleep(PROBE_SECONDS)
            layer = get_channel_layer()
            try:
                await drop_pooled_connections(layer)
                probe = await layer.new_channel(prefix="relay")
                await layer.group_add(_PROBE_GROUP, probe)
                await layer.group_discard(_PROBE_GROUP, probe)
                await self._rejoin(layer)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                metrics.channel_layer_errors.labels("probe").inc()
                logger.info("channel layer still down: %r", error)
                continue
            for hook in self.recovery_hooks:
                with contextlib.suppress(Exception):
                    await hook()
            self.up.set()
            metrics.channel_layer_up.set(1)
            logger.warning("channel layer is back: spectators are fed through it again")
            await self._poll()  # what was published before the groups were joined
            return

    async def _rejoin(self, layer: Any) -> None:
        for feed in list(self.feeds):
            if feed.channel is not None:
                await layer.group_add(feed.group, feed.channel)

    # --- the sweep / poll ----------------------------------------------------------------

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self._poll()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database may be down too: try again next round
                logger.warning("relay: could not read the store", exc_info=True)
            await asyncio.sleep(SWEEP_SECONDS if self.up.is_set() else POLL_SECONDS)

    async def _poll(self) -> None:
        feeds = list(self.feeds)
        if not self.up.is_set():
            for feed in feeds:
                feed.refresh()
        behind: dict[uuid.UUID, tuple[int, Feed]] = {}
        for feed in feeds:
            point = feed.resume_point()
            if point is not None:
                behind[point[0]] = (point[1], feed)
        if not behind:
            return
        versions = await database_sync_to_async(backlog.versions)(list(behind))
        for game_id, version in versions.items():
            sent, feed = behind[game_id]
            if version > sent:
                await feed.fill(version)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def drop_pooled_connections(layer: Any) -> None:
    """Disconnect the idle pooled connections of the layer (a Redis that restarted left them
    stale); the next command connects again. Connections in use are left alone."""
    for loop_layer in list(getattr(layer, "_layers", {}).values()):
        for client in list(getattr(loop_layer, "_connections", {}).values()):
            await client.connection_pool.disconnect(inuse_connections=False)


relay = _Relay()
