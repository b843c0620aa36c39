"""Post-game analysis with full information: was the deal winnable, when did the game stop
being winnable, and how could it have been won from the last winnable position.

Only for finished games, whose every card is public (the server enforces it; this module
just computes). ``analyse`` walks the game's positions forward, one per version, and
decides each as won, lost or unknown with as few searches as it can defend:

- a position met before (an undo, a restart) has the verdict it had;
- an event that is not an action (moderation, a hint) leaves the position as it was;
- an action on the known winning line keeps the position won, with the rest of the line;
- a move or deal from a position proved lost leads to a lost one (no action brings a
  card back, so whatever wins after it would have won before it);
- anything else is searched, within ``budget`` nodes, while ``max_nodes`` lasts.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from .actions import Action, CellMove, Deal, Move, Resign
from .solver import solve
from .state import LOST, PLAYING, RESIGNED, WON, State

Verdict = Literal["won", "lost", "unknown"]


@dataclass(frozen=True, slots=True)
class Step:
    """One version of a game: the position right after it, and the engine action that led
    there (``None`` for ``created`` and for events that are not actions)."""

    version: int
    state: State
    action: Action | None


@dataclass(frozen=True, slots=True)
class Analysis:
    """What full information says of a finished game.

    ``winnable``: the deal could be won (``None`` if the search could not decide).
    ``lost_at``: the first version after which the game could no longer be won (``None``
    if it could still be won at the end, or if that is undecided). ``last_winnable``: the
    last version whose position could still be won, and ``line`` a winning line of actions
    from it. ``decided``: no position whose verdict matters was left unknown. ``nodes``:
    the search's total.
    """

    winnable: bool | None
    lost_at: int | None
    last_winnable: int | None
    line: tuple[Action, ...] | None
    decided: bool
    nodes: int


def position_key(state: State) -> Hashable:
    """What decides a position's future: the cards where they are (and, under the repetition
    rule, the positions already seen on the line of play)."""
    key = (state.columns, state.down, state.reserve, state.cells, state.removed)
    if state.rules.repeats_are_not_moves:
        return (key, state.seen)
    return key


@dataclass(frozen=True, slots=True)
class _Known:
    verdict: Verdict
    line: tuple[Action, ...] = ()


_FORWARD = (Move, CellMove, Deal)


def analyse(steps: Sequence[Step], *, budget: int, max_nodes: int) -> Analysis:
    """The analysis of a game whose versions, in order from 1, are ``steps``."""
    known: dict[Hashable, _Known] = {}
    verdicts: list[_Known] = []
    nodes = 0
    previous: _Known | None = None
    for step in steps:
        state, action = step.state, step.action
        key = position_key(state)
        found = known.get(key)
        if found is not None:
            current = found
        elif previous is not None and (action is None or isinstance(action, Resign)):
            current = previous
        elif state.status == WON:
            current = _Known("won")
        elif state.status == LOST:
            current = _Known("lost")
        elif state.status == RESIGNED:  # resigned without a previous step: cannot happen
            current = previous if previous is not None else _Known("unknown")
        elif previous is not None and previous.verdict == "lost" and isinstance(action, _FORWARD):
            current = _Known("lost")
        elif (
            previous is not None
            and previous.verdict == "won"
            and previous.line
            and previous.line[0] == action
        ):
            current = _Known("won", previous.line[1:])
        elif nodes >= max_nodes or state.status != PLAYING:
            current = _Known("unknown")
        else:
            solution = solve(state.rules, state, budget)
            nodes += solution.nodes
            current = _Known(solution.verdict, tuple(solution.line))
        if state.status == PLAYING or current.verdict != "unknown":
            known.setdefault(key, current)
        verdicts.append(current)
        previous = current
    return _summary(steps, verdicts, nodes)


def _summary(steps: Sequence[Step], verdicts: Sequence[_Known], nodes: int) -> Analysis:
    if not steps:
        return Analysis(None, None, None, None, False, nodes)
    first = verdicts[0].verdict
    won = steps[-1].state.status == WON
    winnable = True if won or first == "won" else (False if first == "lost" else None)
    last = None
    for index, known in enumerate(verdicts):
        if known.verdict == "won":
            last = index
    line = verdicts[last].line if last is not None else None
    last_version = steps[last].version if last is not None else None
    lost_at = None
    decided = first != "unknown" or won
    if verdicts[-1].verdict != "won":
        start = 0 if last is None else last + 1
        for index in range(start, len(verdicts)):
            verdict = verdicts[index].verdict
            if verdict == "lost":
                lost_at = steps[index].version
                break
            decided = False  # an unknown position lies between the last win and the loss
        else:
            decided = False
    return Analysis(winnable, lost_at, last_version, line, decided, nodes)
