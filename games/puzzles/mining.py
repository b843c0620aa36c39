"""Finding puzzles in real play (docs/puzzles.md#mining): the positions of finished public
games, followed through the public log in commit order, and the certified winning lines of
daily challenges that are over. Every source is public by then: its cards are everyone's,
so a puzzle made from it gives away nothing secret (its answer and its unseen cards still
stay on the server until an attempt ends).

Each position of a ruleset that has puzzles (``games.engine.puzzles.supported``) is
examined (``games.engine.puzzles.examine``); of a game's puzzles at most ``per_source`` are
kept, a real player's mistake first (the move the game played there lost as the cards
lay), then the fewest winning moves among the most choices, then the longest. A position
already mined is one puzzle (its id is a digest of the ruleset and the position).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from games import clock, engine
from games.dailies.models import DailyChallenge
from games.engine import puzzles as found
from games.puzzles.models import Puzzle, PuzzleMiner
from games.puzzles.positions import position_json
from games.puzzles.ratings import first_rating
from games.store import events, log, streams
from games.store.models import Event

logger = logging.getLogger(__name__)

#: The miner's sources (``PuzzleMiner.source``).
LOG = "log"
DAILIES = "dailies"


def puzzle_id(rules: str, key: str) -> str:
    """A puzzle's id: ten lowercase letters and digits of a digest of its ruleset and its
    position's key."""
    digest = hashlib.sha256(f"{rules}:{key}".encode()).digest()
    return base64.b32encode(digest).decode().lower()[:10]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A puzzle found at a position of a source, with what the source played there."""

    rules: engine.Ruleset
    state: engine.State
    puzzle: found.Found
    played: str | None
    mistake: bool
    game: uuid.UUID | None = None
    version: int | None = None
    challenge: dt.date | None = None
    step: int | None = None

    def rank(self) -> tuple[int, float, int]:
        """Lower is better: a mistake first, then the narrowest, then the longest."""
        narrow = self.puzzle.winning / max(1, self.puzzle.choices)
        return (0 if self.mistake else 1, narrow, -self.puzzle.length)


@dataclass
class Mined:
    """What one run of the miner did: sources looked at, puzzles made."""

    games: int = 0
    days: int = 0
    puzzles: int = 0


def mine(*, seconds: float, per_source: int, position_seconds: float, batch: int = 50) -> Mined:
    """Look at the public log's finished games after the miner's cursor, then at the
    daily challenges over since the last one mined, until ``seconds`` have passed (at
    least one source is looked at); keep at most ``per_source`` puzzles of each. The
    cursor moves on with each source, in the transaction that stores its puzzles, so a
    run stopped half way does nothing twice."""
    deadline = time.monotonic() + seconds
    done = Mined()
    miner, _ = PuzzleMiner.objects.get_or_create(source=LOG)
    after = log.Cursor.decode(miner.cursor) if miner.cursor else None
    while time.monotonic() < deadline:
        entries = log.entries(after, batch)
        if not entries:
            break
        for entry in entries:
            made = _store(_game(entry.game_id, position_seconds), per_source)
            after = entry.cursor
            _advance(LOG, after.encode(), made)
            done.games += 1
            done.puzzles += made
            if time.monotonic() >= deadline:
                return done
    days = DailyChallenge.objects.filter(published_at__isnull=False, solution__isnull=False)
    miner, _ = PuzzleMiner.objects.get_or_create(source=DAILIES)
    if miner.cursor:
        days = days.filter(date__gt=dt.date.fromisoformat(miner.cursor))
    for day in days.order_by("date")[:batch]:
        if time.monotonic() >= deadline:
            break
        made = _store(_daily(day, position_seconds), per_source)
        _advance(DAILIES, day.date.isoformat(), made)
        done.days += 1
        done.puzzles += made
    return done


def _advance(source: str, cursor: str, made: int) -> None:
    PuzzleMiner.objects.filter(source=source).update(cursor=cursor)
    if made:
        logger.info("puzzles: %d found in %s %s", made, source, cursor)


def _store(candidates: list[Candidate], per_source: int) -> int:
    """Keep the best ``per_source`` of ``candidates``; how many were new."""
    made = 0
    for candidate in sorted(candidates, key=Candidate.rank)[:per_source]:
        puzzle = candidate.puzzle
        key = found.key(candidate.state)
        row = Puzzle(
            id=puzzle_id(candidate.rules.name, key),
            rules=candidate.rules.name,
            key=key,
            position=position_json(candidate.state),
            line=[found.encode(action) for action in puzzle.line],
            length=puzzle.length,
            tree={k: node.to_json() for k, node in puzzle.nodes.items()},
            themes=list(puzzle.themes),
            win_in=puzzle.win_in,
            winning=puzzle.winning,
            choices=puzzle.choices,
            unseen=puzzle.unseen,
            searched=puzzle.searched,
            difficulty=puzzle.difficulty,
            first_rating=first_rating(puzzle.difficulty),
            source_game=candidate.game,
            source_version=candidate.version,
            source_challenge=candidate.challenge,
            source_step=candidate.step,
            played=candidate.played,
            mistake=candidate.mistake,
            created_at=clock.now(),
        )
        try:
            with transaction.atomic():
                row.save(force_insert=True)
        except IntegrityError:  # the position was mined before
            continue
        made += 1
    return made


def _positions(
    rules: engine.Ruleset, first: engine.State, actions: list[engine.Action]
) -> Iterator[tuple[int, engine.State, engine.Action | None]]:
    """Each position along ``actions`` from ``first``, with its index and the action
    played from it (``None`` for the last)."""
    state = first
    for index, action in enumerate(actions):
        yield index, state, action
        state = engine.apply(state, action)[0]
    yield len(actions), state, None


def _examine_all(
    rules: engine.Ruleset,
    positions: Iterator[tuple[int, engine.State, engine.Action | None]],
    position_seconds: float,
    make: Callable[[int, engine.State, found.Found, str | None, bool], Candidate],
) -> list[Candidate]:
    candidates: list[Candidate] = []
    seen: set[str] = set()
    for index, state, played in positions:
        if state.status != engine.PLAYING or found.unseen(state) > found.MAX_UNSEEN:
            continue
        k = found.key(state)
        if k in seen:
            continue
        seen.add(k)
        puzzle = found.examine(rules, state, late=_deadline(position_seconds))
        if puzzle is None:
            continue
        code = None if played is None else found.encode(played)
        # A mistake is a move that lost as the cards lay (not one that won by luck).
        lost = {move for move, reason in puzzle.nodes[k].losses if "hidden" not in reason}
        candidates.append(make(index, state, puzzle, code, code in lost))
    return candidates


def _deadline(seconds: float) -> Callable[[], bool]:
    """Whether ``seconds`` have passed since this call."""
    stop = time.monotonic() + seconds
    return lambda: time.monotonic() > stop


_PLAYS = (events.Moved, events.CellMoved, events.Dealt)


def _game(game_id: uuid.UUID, position_seconds: float) -> list[Candidate]:
    """The puzzles of a finished public game: every position its moves and deals passed
    through (an undo or a restart goes back to a position met already)."""
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    if not rows:
        return []
    stream = streams.start(rows[0])
    rules = stream.rules
    if not found.supported(rules):
        return []
    timeline: list[tuple[int, engine.State, engine.Action | None]] = []
    previous = stream.state
    version = 1
    for after, event, _effects in streams.steps(stream, rows[1:]):
        fact = streams.decoded(event)
        if isinstance(fact, _PLAYS):
            timeline.append((version, previous, fact.action()))
        previous, version = after.state, after.version
        stream = after
    if stream.state.status == engine.PLAYING:
        return []  # a contest's game left unfinished: not a finished game

    def make(
        version: int, state: engine.State, puzzle: found.Found, played: str | None, mistake: bool
    ) -> Candidate:
        return Candidate(rules, state, puzzle, played, mistake, game=game_id, version=version)

    return _examine_all(rules, iter(timeline), position_seconds, make)


def _daily(day: DailyChallenge, position_seconds: float) -> list[Candidate]:
    """The puzzles along a daily challenge's certified line (the day is over)."""
    rules = engine.RULESETS[day.rules]
    if not found.supported(rules) or not day.solution:
        return []
    first = engine.new_game(rules, engine.seeded_deal(rules, day.seed))
    actions = [engine.action_from_command(command) for command in day.solution]

    def make(
        step: int, state: engine.State, puzzle: found.Found, played: str | None, mistake: bool
    ) -> Candidate:
        return Candidate(rules, state, puzzle, played, False, challenge=day.date, step=step)

    return _examine_all(rules, _positions(rules, first, actions), position_seconds, make)
