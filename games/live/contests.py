"""A race's or arena's feed in this process: the contest clock and live standings
(docs/api.md#contest-feed).

- **Standings.** The feed holds the contest's ranking (``contests.Board``, read once) and
  applies each game's result that a command publishes, then sends the standings: no read
  per change. A change without a result (a join, a ban, a ping) or a player it does not
  know makes it read the ranking again, coalesced as a day's feed does
  (``games.live.standings``); results that arrive while it reads are applied on top (each
  carries its game's version, so applying one twice or late changes nothing).
- **The clock.** The phase follows the injectable clock (``games.clock``): a tick reads the
  contest, asks ``games.dailies.contests`` which phase the clock puts it in, sends what
  changed (``start``, ``finish``; ``countdown`` once a second before a race starts) and
  arms a timer for the next instant anything can change. The timer only wakes the feed
  up; the phase is always decided from the clock and the row, so a test that moves the
  clock and pings sees the transition at once.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async

from games import clock
from games.dailies import contests as domain
from games.errors import DomainError
from games.live import frames
from games.live.frames import ContestKind, Countdown, Finish, Standings, Start
from games.live.messages import ContestPhase, Message, StandingsChanged, contest_group
from games.live.standings import Send, StandingsFeed, Watcher
from games.reads import selectors, visibility

#: The longest a feed sleeps between two looks at the clock while a contest runs.
MAX_TICK_SECONDS = 30.0

SCHEDULED, RUNNING, FINISHED = "scheduled", "running", "finished"


@dataclass(frozen=True, slots=True)
class Look:
    """A contest as the clock finds it: its id, its body, its phase, the seconds until its
    next instant (``until``), and its final results once finished."""

    id: uuid.UUID
    body: Any
    phase: str
    until: float = 0.0
    results: list[Any] | None = None


def look(kind: ContestKind, key: str | uuid.UUID) -> Look:
    """The contest now, read only (its phase is the clock's: the scheduled job seals a
    race's racers at its start); ``ContestNotFound`` for an unknown one."""
    contest = selectors.race_get(key) if kind == "race" else selectors.arena_get(key)
    body: Any = selectors.race_view(contest) if kind == "race" else selectors.arena_view(contest)
    phase = body["status"]
    now = clock.now()
    if phase == SCHEDULED:
        return Look(contest.id, body, phase, (contest.starts_at - now).total_seconds())
    if phase == RUNNING:
        return Look(contest.id, body, phase, (contest.ends_at - now).total_seconds())
    results: list[Any] = (
        selectors.race_standings(contest) if kind == "race" else selectors.arena_standings(contest)
    )
    return Look(contest.id, body, phase, results=results)


def games_shown(phase: str | None) -> bool:
    """Whether live standings name their rows' games: as to an anonymous reader, once the
    contest is finished (``visibility.standing_games_shown``)."""
    return visibility.standing_games_shown(
        secret=phase != FINISHED, viewer=visibility.ANONYMOUS, own=False
    )


def countdown(seen: Look) -> Countdown:
    """The countdown frame: whole seconds until the start, and the start itself."""
    return Countdown(max(0, math.ceil(seen.until - 0.001)), seen.body["starts_at"])


async def watch_contest(send: Send, *, kind: ContestKind, key: str) -> Watcher:
    """Start feeding a socket a race (``key``: its id or code) or an arena (its id): it
    now, its countdown, its standings, then every change, its start and its finish.
    ``DomainError`` for an unknown one."""
    seen = await database_sync_to_async(look)(kind, key)
    watcher = Watcher(send, held=[])
    feed = await ContestFeed.enter(f"{kind}:{seen.id}", watcher, lambda: ContestFeed(kind, seen.id))
    watcher.feed = feed
    await send(frames.contest(kind, seen.body).text())
    if seen.phase == SCHEDULED and kind == "race":
        await send(countdown(seen).text())
    if feed.board is None:
        feed.board = await database_sync_to_async(feed.load)()
    board = feed.board
    watcher.revision = board.revision
    await send(Standings(board.text(games=games_shown(seen.phase))).text())
    await watcher.release()
    if feed.phase is None:
        feed.phase = seen.phase
        feed.arm(seen)
    return watcher


class ContestFeed(StandingsFeed):
    """One race's or arena's standings and phase, for every watcher of this process."""

    def __init__(self, kind: ContestKind, contest_id: uuid.UUID) -> None:
        super().__init__(f"{kind}:{contest_id}", contest_group(contest_id))
        self.kind: ContestKind = kind
        self.contest_id = contest_id
        self.phase: str | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.ticking: asyncio.Future[None] | None = None
        self.board: domain.Board | None = None
        self.pending: list[dict[str, Any]] = []
        self.sending: asyncio.Future[None] | None = None

    async def handle(self, message: Message) -> None:
        if isinstance(message, StandingsChanged):
            self.applied(message.result)
        elif isinstance(message, ContestPhase):
            self.tick_soon()

    def ping(self) -> None:
        """A ping refreshes the standings and looks at the clock."""
        self.changed()
        self.tick_soon()

    def load(self) -> domain.Board:
        """The contest's ranking, read from the database."""
        contest = (
            selectors.race_get(self.contest_id)
            if self.kind == "race"
            else selectors.arena_get(self.contest_id)
        )
        return selectors.contest_board(contest)

    # --- standings -------------------------------------------------------------------------

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
            text = board.text(games=games_shown(self.phase))
            await self.broadcast(sent, Standings(text).text())

    async def _fetch(self) -> None:
        """Read the board again while asked to, and apply the results that came meanwhile."""
        while self.members and (self.dirty or self.pending):
            board = self.board
            if self.dirty or board is None:
                self.dirty = False
                board = await database_sync_to_async(self.load)()
            pending, self.pending = self.pending, []
            for result in pending:
                if not board.apply(result):
                    self.dirty = True  # a player it does not know: read it again
            self.board = board
            await self._deliver()

    # --- the clock -------------------------------------------------------------------------

    def tick_soon(self) -> None:
        """Look at the clock now (a timer fired, a ping, or a race ended early)."""
        if self.ticking is None or self.ticking.done():
            self.ticking = asyncio.ensure_future(self.tick())

    async def tick(self) -> None:
        """Send what changed since the last look, and arm the timer for the next instant."""
        try:
            seen = await database_sync_to_async(look)(self.kind, self.contest_id)
        except DomainError:
            return
        sent: list[frames.Frame] = []
        if self.phase is not None and seen.phase != self.phase:
            if self.phase == SCHEDULED:
                sent.append(Start(self.kind, seen.body))
            if seen.phase == FINISHED:
                sent.append(Finish(self.kind, seen.body, seen.results or []))
        if seen.phase == SCHEDULED and self.kind == "race":
            sent.append(countdown(seen))
        self.phase = seen.phase
        for frame in sent:
            text = frame.text()
            for watcher in list(self.members):
                await watcher.tell(text)
        self.arm(seen)

    def arm(self, seen: Look) -> None:
        """Wake up at the contest's next instant (each second of a race's countdown)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if seen.phase == FINISHED or not self.members:
            return
        until = max(0.0, seen.until)
        if seen.phase == SCHEDULED and self.kind == "race":
            fraction = until - math.floor(until)
            until = fraction if fraction > 0.001 else min(until, 1.0)
        delay = min(until, MAX_TICK_SECONDS) + 0.001
        self.timer = asyncio.get_running_loop().call_later(delay, self.tick_soon)

    def closed(self) -> None:
        super().closed()
        if self.timer is not None:
            self.timer.cancel()
        if self.ticking is not None:
            self.ticking.cancel()
