"""A race's standings in this process: the daily challenge's feed (docs/api.md#race-feed),
and what the race and arena feeds (``games.live.contests``) build on.

A change only marks the feed dirty; one task reads the standings (one query) and hands
them to every local watcher, again while changes came in meanwhile. Under a burst of
changes a process reads once per round, however many watchers it has. Each delivery
carries the standings' revision (for a day, the sum of the entries' game versions), so
standings read earlier but delivered later never replace newer ones.

A watcher enters the feed before it reads its first standings; until those are sent it is
*held*, and what the feed sends it meanwhile waits, so its first frames come first.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from channels.db import database_sync_to_async

from games.live import feeds
from games.live.frames import Standings
from games.live.messages import Message, StandingsChanged, challenge_group
from games.reads import selectors

#: Sends one text frame on a watcher's socket.
Send = Callable[[str], Awaitable[None]]


@dataclass(eq=False)
class Watcher:
    """One socket watching a race's standings (a day's, a race's or an arena's); the
    transport keeps it to :meth:`ping` and to :meth:`leave`."""

    send: Send
    #: The revision of the standings last sent.
    revision: int = -1
    #: While the watcher opens: frames to send after its first ones, with their revision
    #: (``None``: a frame sent whatever the revision, such as a contest's start).
    held: list[tuple[int | None, str]] | None = None
    feed: StandingsFeed | None = None

    async def deliver(self, revision: int, text: str) -> None:
        """Send standings unless newer ones were sent already."""
        if self.held is not None:
            self.held.append((revision, text))
        elif revision >= self.revision:
            self.revision = revision
            await self.send(text)

    async def tell(self, text: str) -> None:
        """Send a frame that is not standings (a contest's countdown, start or finish)."""
        if self.held is not None:
            self.held.append((None, text))
        else:
            await self.send(text)

    async def release(self) -> None:
        """Its first frames are sent: send what waited meanwhile, and the rest as it comes."""
        held = self.held or []
        while held:
            revision, text = held.pop(0)
            if revision is None:
                await self.send(text)
            elif revision >= self.revision:
                self.revision = revision
                await self.send(text)
        self.held = None

    async def ping(self) -> None:
        """Read what the feed shows again (a dropped announcement may have left it stale)."""
        if self.feed is not None:
            self.feed.ping()

    async def leave(self) -> None:
        """The socket closed: stop feeding it."""
        feed, self.feed = self.feed, None
        if feed is not None:
            await feed.leave(self)


async def watch_challenge(send: Send, *, date: str) -> Watcher:
    """Start feeding a socket the standings of the daily challenge of ``date`` (a day or
    ``today``): now, then after every change. ``DomainError`` if there is no such day, or
    while it is being prepared."""
    day = await database_sync_to_async(_day)(date)
    watcher = Watcher(send, held=[])
    feed = await ChallengeFeed.enter(f"challenge:{day}", watcher, lambda: ChallengeFeed(day))
    watcher.feed = feed
    revision, results = await database_sync_to_async(selectors.standings_ranked)(day)
    watcher.revision = revision
    await send(Standings(results).text())
    await watcher.release()
    return watcher


def _day(date: str) -> dt.date:
    return selectors.challenge_get(date).date


class StandingsFeed(feeds.Feed[Watcher]):
    """A race's watchers in this process: subclasses say how to read the standings."""

    def __init__(self, key: str, group: str) -> None:
        super().__init__(key, group)
        self.dirty = False
        self.task: asyncio.Future[None] | None = None

    def changed(self) -> None:
        """The standings changed: read them soon (once for every change meanwhile)."""
        self.dirty = True
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._fetch())

    def ping(self) -> None:
        """A watcher pinged: read the standings again."""
        self.changed()

    def refresh(self) -> None:
        self.changed()

    async def _fetch(self) -> None:
        while self.dirty and self.members:
            self.dirty = False
            revision, results = await database_sync_to_async(self.read)()
            await self.broadcast(revision, Standings(results).text())

    def read(self) -> tuple[int, str]:
        """``(revision, ranked results as JSON text)``, from the database."""
        raise NotImplementedError

    async def broadcast(self, revision: int, text: str) -> None:
        """Standings to every local watcher."""
        for watcher in list(self.members):
            await watcher.deliver(revision, text)

    def closed(self) -> None:
        if self.task is not None:
            self.task.cancel()


class ChallengeFeed(StandingsFeed):
    """One daily challenge's watchers in this process."""

    def __init__(self, day: dt.date) -> None:
        super().__init__(f"challenge:{day}", challenge_group(day))
        self.day = day

    async def handle(self, message: Message) -> None:
        if isinstance(message, StandingsChanged):
            self.changed()

    def read(self) -> tuple[int, str]:
        return selectors.standings_ranked(self.day)
