"""Evidence for moderators: how a finished rated or contest game was played, and whether it
looks assisted (docs/ratings.md#suspicion-flags). Evidence, not a verdict: a flag only asks
a moderator to look, and their void is what takes a rating change off.

:func:`assess` reads a game's events and measures, from them alone:

- **match**: at each sampled position where the player had a choice and the solver's
  choice *from their own view* (the hint, ``games.engine.hint``, computed as the server
  computes it for them: the face-up cards only, the same samples and line) was not the
  obvious move (the one-move heuristic's, ``games.engine.heuristic``), whether the player
  chose the solver's move; the share of those positions where they did. Obvious moves are
  left out because everyone plays them: counted, they made an honest heuristic player
  match the solver at 88% of its choices (median over 50 games), where only the
  non-obvious ones tell a player who sees further from one who is told;
- **pace**: the time between the player's actions (median and mean), and how much it varies
  (its coefficient of variation: a person pauses to think, then plays a few obvious moves
  at once; a program keeps time);
- **hard win**: a won game of a deal among the hardest (difficulty at least
  :data:`HARD_DIFFICULTY`);
- **hints**: the hints the game records.

A game is flagged for a reason when its evidence passes a threshold that
``bench/suspicion.py`` calibrated on players we can run: the bundled hint bot playing from
its own view (flagged on at least 90% of its rated wins) and a simulated honest player, the
one-move heuristic with 2 to 10 s of thought a move (flagged on at most 2% of its games).
The search is bounded: at most :data:`MAX_POSITIONS` positions a game, each one hint's
budget, on a worker (``games.jobs.assess_game``), never in a request.
"""

from __future__ import annotations

import itertools
import statistics
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from django.conf import settings

from games import engine
from games.engine import heuristic
from games.engine import hint as hints
from games.store import events, streams
from games.store.models import Event

#: Positions with a choice a game's match is searched on, at most (spread evenly over its
#: actions): one hint's search each.
MAX_POSITIONS = 150
#: Fewer positions where the solver's choice was not the obvious move: the match says
#: nothing.
MIN_POSITIONS = 3
#: The match flag: the player chose the solver's non-obvious move at this share of such
#: positions or more.
MATCH_FLAG = 0.8
#: The pace flag: a won game whose median time between actions is under this many seconds,
#: over at least :data:`MIN_INTERVALS` intervals, with a variation under :data:`STEADY_CV`.
FAST_SECONDS = 1.5
STEADY_CV = 0.6
MIN_INTERVALS = 20
#: A deal at least this difficult is among the hardest; winning one with a match of at
#: least :data:`HARD_MATCH` is flagged.
HARD_DIFFICULTY = 0.75
HARD_MATCH = 0.6
#: The kinds of events that are the player's moves (undo, restart and resign are not).
_PLAYS = (events.Moved, events.CellMoved, events.Dealt)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What :func:`assess` measured of a game, and the reasons it is flagged for."""

    positions: int
    matched: int
    intervals: int
    median_seconds: float | None
    mean_seconds: float | None
    variation: float | None
    won: bool
    difficulty: float | None
    hints: int
    reasons: tuple[str, ...] = field(default=())

    @property
    def match(self) -> float | None:
        """The share of positions where the player chose the solver's action."""
        return self.matched / self.positions if self.positions else None

    @property
    def flagged(self) -> bool:
        return bool(self.reasons)


def assess(game_id: uuid.UUID, *, difficulty: float | None = None) -> Evidence:
    """The evidence of game ``game_id`` from its events (``difficulty``: its deal's, when
    its events do not carry it, as a daily's do not)."""
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    stream = streams.start(rows[0])
    rules = stream.rules
    choices: list[tuple[engine.State, engine.Action]] = []
    times = []
    for row in rows[1:]:
        fact = streams.decoded(row)
        if isinstance(fact, _PLAYS) and stream.state.status == engine.PLAYING:
            times.append(row.at)
            if len(engine.legal_actions(stream.state)) > 1:
                choices.append((stream.state, fact.action()))
        stream = streams.advance(stream, row)
    positions = matched = 0
    for state, action in _spread(choices, MAX_POSITIONS):
        solver = _solver_choice(rules, state)
        if solver is None or solver == heuristic.best(rules, engine.player_view(state)):
            continue  # the obvious move, which everyone plays, or none
        positions += 1
        matched += action == solver
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(times)]
    mean = statistics.fmean(gaps) if gaps else None
    found = Evidence(
        positions=positions,
        matched=matched,
        intervals=len(gaps),
        median_seconds=statistics.median(gaps) if gaps else None,
        mean_seconds=mean,
        variation=(statistics.pstdev(gaps) / mean) if gaps and mean else None,
        won=stream.state.status == engine.WON,
        difficulty=stream.difficulty if stream.difficulty is not None else difficulty,
        hints=stream.hints,
    )
    return _with_reasons(found)


def _with_reasons(found: Evidence) -> Evidence:
    reasons = []
    match = found.match
    if match is not None and found.positions >= MIN_POSITIONS and match >= MATCH_FLAG:
        reasons.append("match")
    if (
        found.won
        and found.intervals >= MIN_INTERVALS
        and found.median_seconds is not None
        and found.median_seconds < FAST_SECONDS
        and found.variation is not None
        and found.variation < STEADY_CV
    ):
        reasons.append("pace")
    if (
        found.won
        and found.difficulty is not None
        and found.difficulty >= HARD_DIFFICULTY
        and match is not None
        and found.positions >= MIN_POSITIONS
        and match >= HARD_MATCH
    ):
        reasons.append("hard_win")
    if found.won and found.hints:
        reasons.append("hints")
    return replace(found, reasons=tuple(reasons))


def _spread(
    items: Sequence[tuple[engine.State, engine.Action]], most: int
) -> list[tuple[engine.State, engine.Action]]:
    """At most ``most`` of ``items``, spread evenly from the first to the last."""
    if len(items) <= most:
        return list(items)
    return [items[round(i * (len(items) - 1) / (most - 1))] for i in range(most)]


def _solver_choice(rules: engine.Ruleset, state: engine.State) -> engine.Action | None:
    """The hint for ``state`` as its player would have got it: from their view, with the
    server's samples and budget, avoiding the boards of their line of play."""
    return hints.hint(
        rules,
        engine.player_view(state),
        samples=settings.HINT_SAMPLES,
        budget=settings.HINT_SAMPLE_BUDGET,
        been=hints.line_boards(state),
    ).action
