"""One channel per process and group: what every feed shares (docs/architecture.md#the-live-path).

A feed is what one server process keeps for one thing its sockets watch: a game
(``games.live.spectators``), a day's race (``games.live.standings``), a race or an arena
(``games.live.contests``). Whatever the number of local sockets, the feed holds **one**
channel in the thing's channel-layer group, receives each published message once, and
sends the frames to its sockets itself. A command's event therefore crosses the layer once
per process, not once per spectator, and a process's fan-out is a loop over its sockets.

Feeds are per event loop (tests run several loops in one process). A socket enters a feed
(made on first use) before it reads anything from the store, and the feed is in its group
before that read begins, so nothing published meanwhile is missed; the last socket to
leave closes the feed and its membership. The feed's receive waits while the layer is
down instead of failing, and renews its membership before the layer's group expiry could
drop it; ``games.live.relay`` watches the layer's health and joins the groups again after
an outage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from channels.layers import get_channel_layer
from django.conf import settings

from games.live import messages
from games.live.relay import drop_pooled_connections, relay

logger = logging.getLogger(__name__)

Member = TypeVar("Member")
F = TypeVar("F", bound="Feed[Any]")

_open: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Feed[Any]]] = (
    weakref.WeakKeyDictionary()
)


class Feed(Generic[Member]):
    """This process's subscription to ``group`` for its local ``members``: subclasses say
    what a message does (:meth:`handle`) and how to recover after an outage."""

    def __init__(self, key: str, group: str) -> None:
        self.key = key
        self.group = group
        self.members: set[Member] = set()
        self.layer: Any = get_channel_layer()
        self.channel: str | None = None
        self.opening: asyncio.Future[None] | None = None
        self._tasks: list[asyncio.Future[None]] = []

    @classmethod
    async def enter(cls: type[F], key: str, member: Any, make: Callable[[], F]) -> F:
        """This loop's feed of ``key`` (made by ``make`` if there is none yet), with
        ``member`` in it, once the feed is in its group."""
        local = _open.setdefault(asyncio.get_running_loop(), {})
        feed = local.get(key)
        if feed is None:
            feed = local[key] = make()
            feed.opening = asyncio.ensure_future(feed._open())
        # Added before any wait, so that a last member leaving meanwhile does not close it.
        feed.members.add(member)
        assert feed.opening is not None
        try:
            await asyncio.shield(feed.opening)
        except BaseException:
            await feed.leave(member)
            raise
        return feed  # type: ignore[return-value]

    async def leave(self, member: Member) -> None:
        """``member`` goes; the last one closes the feed (a new arrival makes a new one)."""
        self.members.discard(member)
        if self.members:
            return
        local = _open.get(asyncio.get_running_loop(), {})
        if local.get(self.key) is self:
            del local[self.key]
        await self.close()

    async def _open(self) -> None:
        self.channel = await self.layer.new_channel()
        await self._join()
        self._tasks = [
            asyncio.ensure_future(self._receive_forever()),
            asyncio.ensure_future(self._keep_membership()),
        ]
        relay.add(self)

    async def close(self) -> None:
        """Stop receiving and leave the group; hook :meth:`closed` runs first."""
        if self.opening is not None and not self.opening.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self.opening)
        relay.remove(self)
        self.closed()
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.channel is not None and relay.is_up():
            try:
                await self.layer.group_discard(self.group, self.channel)
            except Exception as error:  # the membership expires with the group anyway
                relay.failed("group_discard", error)

    def closed(self) -> None:
        """Hook run when the feed closes (its last member left)."""

    async def _join(self) -> None:
        """Join the group if the layer works: a stale pooled connection is dropped and the
        join tried once more; if the layer is down, the relay joins when it is back."""
        if not relay.is_up():
            return
        assert self.channel is not None
        try:
            await self.layer.group_add(self.group, self.channel)
            return
        except Exception:  # perhaps a connection that a restarted Redis left stale
            pass
        try:
            await drop_pooled_connections(self.layer)
            await self.layer.group_add(self.group, self.channel)
        except Exception as error:
            relay.failed("group_add", error)

    async def _keep_membership(self) -> None:
        """Join again before the layer's group expiry could drop the membership."""
        interval = max(1.0, settings.WS_GROUP_EXPIRY / 2)
        while True:
            await asyncio.sleep(interval)
            if relay.is_up():
                assert self.channel is not None
                try:
                    await self.layer.group_add(self.group, self.channel)
                except Exception as error:
                    relay.failed("group_add", error)

    async def _receive_forever(self) -> None:
        """Handle the group's messages one at a time; while the layer is down, wait for it
        to come back (the relay feeds the members from the store meanwhile)."""
        assert self.channel is not None
        while True:
            await relay.wait_up()
            try:
                raw = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                relay.failed("receive", error)
                if relay.is_up():  # not this process's server loop: do not spin
                    await asyncio.sleep(1)
                continue
            message = messages.parse(raw)
            if message is None:
                continue
            try:
                await self.handle(message)
            except Exception:  # one bad message must not end the feed of every member
                logger.exception("feed %s could not handle %r", self.key, raw.get("type"))

    async def handle(self, message: messages.Message) -> None:
        """Act on one message of the group."""
        raise NotImplementedError

    # --- what the relay asks (games.live.relay) -----------------------------------------

    def resume_point(self) -> tuple[Any, int] | None:
        """For a game's feed, the game and the lowest ``seq`` its members were sent; else
        ``None``."""
        return None

    async def fill(self, version: int) -> None:
        """Send the members what the store holds up to ``version`` (a game's feed)."""

    def refresh(self) -> None:
        """Read what the feed shows again (while the layer is down, a race's feed)."""
