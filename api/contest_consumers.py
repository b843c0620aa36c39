"""WebSocket feeds of races and arenas: the countdown, the start, live standings and the
finish (docs/api.md#contest-feed).

Each process keeps one :class:`ContestFeed` per race or arena that its clients watch. Its
standings are those of :class:`api.consumers.StandingsFeed` (a change only marks them
dirty; one query per round serves every local watcher). Its phase follows the injectable
clock (``games.clock``): a tick reads the contest, asks ``games.dailies.contests`` which
phase the clock puts it in, sends what changed (``start``, ``finish``; ``countdown`` once a
second before a race starts) and arms a timer for the next instant anything can change.
The timer only wakes the feed up; the phase is always decided from the clock and the row,
so a test that moves the clock and pings sees the transition at once.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from channels.db import database_sync_to_async

from api.consumers import (
    StandingsFeed,
    StandingsWatcher,
    close_code_for,
    keep_membership,
)
from games import clock
from games.errors import DomainError
from games.live import publish
from games.live.relay import relay
from games.reads import selectors
from games.writes import contests as services

#: The longest a feed sleeps between two looks at the clock while a contest runs.
MAX_TICK_SECONDS = 30.0


def _look(kind: str, key: str) -> dict[str, Any]:
    """The contest now (a race's start sealed if its time has come): its id, body, phase,
    and the seconds until its next instant, with its final results once finished."""
    contest = selectors.race_get(key) if kind == "race" else selectors.arena_get(key)
    if kind == "race":
        contest = services.race_start(contest)
    body: dict[str, Any] = dict(
        selectors.race_view(contest) if kind == "race" else selectors.arena_view(contest)
    )
    phase = body["status"]
    now = clock.now()
    look: dict[str, Any] = {"id": str(contest.id), "body": body, "phase": phase}
    if phase == "scheduled":
        look["until"] = (contest.starts_at - now).total_seconds()
    elif phase == "running":
        look["until"] = (contest.ends_at - now).total_seconds()
    else:
        look["results"] = (
            selectors.race_standings(contest)
            if kind == "race"
            else selectors.arena_standings(contest)
        )
    return look


class ContestFeed(StandingsFeed):
    """One race's or arena's standings and phase, for every watcher of this process.

    The feed holds the contest's ranking (``Board``, read once) and applies each game's
    result a command publishes, then sends the standings: no read per change. A change
    without a result (a join, a ban, a ping) or a player it does not know makes it read
    the ranking again (coalesced as :class:`StandingsFeed` does); results that arrive
    while it reads are applied on top (each carries its game's version, so applying one
    twice or late changes nothing).
    """

    def __init__(self, key: str, fetch: Any) -> None:
        super().__init__(key, fetch)
        self.kind, _, self.contest = key.partition(":")
        self.phase: str | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.ticking: asyncio.Future[None] | None = None
        self.board: Any = None
        self.pending: list[dict[str, Any]] = []
        self.sending: asyncio.Future[None] | None = None

    def applied(self, result: dict[str, Any] | None) -> None:
        """A change: one game's new result, or (``None``) something to read again."""
        if result is None or self.board is None or self.dirty:
            if result is not None:
                self.pending.append(result)
            self.changed()
            return
        if self.task is not None and not self.task.done():
            self.pending.append(result)  # a read is on its way: applied after it
            return
        if not self.board.apply(result):
            self.changed()
            return
        if self.sending is None or self.sending.done():
            self.sending = asyncio.ensure_future(self._deliver())

    async def _deliver(self) -> None:
        """Send the standings as they are when this runs, again while results were applied
        meanwhile: a burst costs one render and one frame per watcher per round."""
        sent = -1
        while self.board is not None and self.board.revision != sent:
            board = self.board
            sent = board.revision
            text = f'{{"type": "standings", "results": {board.text()}}}'
            for watcher in list(self.watchers):
                await watcher.deliver(sent, text)

    async def _fetch(self) -> None:
        """Read the board again while asked to, and apply the results that came meanwhile."""
        while self.watchers and (self.dirty or self.pending):
            board = self.board
            if self.dirty or board is None:
                self.dirty = False
                board = await database_sync_to_async(self.fetch)()
            pending, self.pending = self.pending, []
            for result in pending:
                if not board.apply(result):
                    self.dirty = True  # a player it does not know: read it again
            self.board = board
            await self._deliver()

    def tick_soon(self) -> None:
        """Look at the clock now (a timer fired, a ping, or a race ended early)."""
        if self.ticking is None or self.ticking.done():
            self.ticking = asyncio.ensure_future(self.tick())

    async def tick(self) -> None:
        try:
            look = await database_sync_to_async(_look)(self.kind, self.contest)
        except DomainError:
            return
        frames: list[dict[str, Any]] = []
        phase = look["phase"]
        if self.phase is not None and phase != self.phase:
            if self.phase == "scheduled":
                frames.append({"type": "start", self.kind: look["body"]})
            if phase == "finished":
                frames.append(
                    {"type": "finish", self.kind: look["body"], "results": look["results"]}
                )
        if phase == "scheduled" and self.kind == "race":
            frames.append(countdown(look))
        self.phase = phase
        for frame in frames:
            text = json.dumps(frame)
            for watcher in list(self.watchers):
                await watcher.send(text_data=text)
        self.arm(look)

    def arm(self, look: dict[str, Any]) -> None:
        """Wake up at the contest's next instant (each second of a race's countdown)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if look["phase"] == "finished" or not self.watchers:
            return
        until = max(0.0, look["until"])
        if look["phase"] == "scheduled" and self.kind == "race":
            fraction = until - math.floor(until)
            until = fraction if fraction > 0.001 else min(until, 1.0)
        delay = min(until, MAX_TICK_SECONDS) + 0.001
        self.timer = asyncio.get_running_loop().call_later(delay, self.tick_soon)

    def closed(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


def countdown(look: dict[str, Any]) -> dict[str, Any]:
    """The countdown frame: whole seconds until the start, and the start itself."""
    return {
        "type": "countdown",
        "seconds": max(0, math.ceil(look["until"] - 0.001)),
        "starts_at": look["body"]["starts_at"],
    }


class ContestConsumer(StandingsWatcher):
    """Watch a race (``/ws/races/{id or code}/``) or an arena (``/ws/arenas/{id}/``)."""

    kind = "race"
    feed: ContestFeed | None = None

    async def connect(self) -> None:
        await self.accept()
        key = self.scope["url_route"]["kwargs"][self.kind]
        try:
            look = await database_sync_to_async(_look)(self.kind, key)
        except DomainError as error:
            await self.close(code=close_code_for(error))
            return
        contest = look["id"]
        self.group = publish.contest_group(contest)
        # Through a channel-layer outage the relay asks for the standings again, as it does
        # for a daily race's watchers (games.live.relay).
        relay.add_watcher(self)
        await self.join_group(self.group)
        self.keeper = asyncio.ensure_future(keep_membership(self))
        kind = self.kind

        def fetch() -> Any:
            return selectors.contest_board(
                selectors.race_get(contest) if kind == "race" else selectors.arena_get(contest)
            )

        feed: ContestFeed = ContestFeed.of(f"{kind}:{contest}", fetch)
        self.feed = feed
        feed.join(self)
        await self.send_json({"type": kind, kind: look["body"]})
        if look["phase"] == "scheduled" and kind == "race":
            await self.send_json(countdown(look))
        if feed.board is None:
            feed.board = await database_sync_to_async(fetch)()
        board = feed.board
        await self.deliver(board.revision, f'{{"type": "standings", "results": {board.text()}}}')
        if feed.phase is None:
            feed.phase = look["phase"]
            feed.arm(look)

    async def standings_changed(self, message: dict[str, Any]) -> None:
        if self.feed is not None:
            self.feed.applied(message.get("result"))

    async def contest_phase(self, message: dict[str, Any]) -> None:
        if self.feed is not None:
            self.feed.tick_soon()

    async def on_ping(self) -> None:
        """A ping refreshes the standings and looks at the clock."""
        if self.feed is not None:
            self.feed.changed()
            self.feed.tick_soon()


class RaceConsumer(ContestConsumer):
    kind = "race"


class ArenaConsumer(ContestConsumer):
    kind = "arena"
