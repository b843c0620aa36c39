"""Auto-finish: the moves that win a game once nothing is hidden.

Once every card is face up and the reserve is dealt, the player's view is the whole
position, and the solver (:mod:`games.engine.solver`) can decide it exactly. :func:`finish`
reads the position from that view alone (as a hint does, :mod:`games.engine.hint`) and, if
the solver wins it within ``budget`` positions, answers the line that plays it. The client
sends those actions as ordinary commands, one event each (docs/api.md#finish).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .actions import Action
from .cards import SUITS, parse_card
from .rules import Ruleset
from .solver import solve
from .state import position

#: Nodes the solver may visit for a finish: a position with nothing hidden is decided in far
#: fewer as a rule, and one that is not is no finish a player would call obvious.
FINISH_BUDGET = 20_000

Verdict = Literal["won", "lost", "unknown"]


@dataclass(frozen=True, slots=True)
class Finish:
    """``verdict`` is ``won`` (with ``line``, the actions that win from the position),
    ``lost`` (no line wins) or ``unknown`` (undecided within the budget)."""

    verdict: Verdict
    line: tuple[Action, ...] = ()


def ready(view: Mapping[str, Any]) -> bool:
    """Whether a player's ``view`` (``games.engine.view``) hides nothing: no face-down card
    and no card left in the reserve."""
    return not view["reserve"] and all(
        code is not None for column in view["columns"] for code in column
    )


def finish(rules: Ruleset, view: Mapping[str, Any], budget: int = FINISH_BUDGET) -> Finish:
    """The finish of the position a player's ``view`` shows (which must be :func:`ready`):
    the solver's winning line when it finds one within ``budget`` positions."""
    if not ready(view):
        raise ValueError("a card of the view is hidden: nothing to finish yet")
    state = position(
        rules,
        columns=[[parse_card(code) for code in column] for column in view["columns"]],
        down=[0] * len(view["columns"]),
        cells=[None if code is None else parse_card(code) for code in view.get("cells") or ()],
        removed=[SUITS.index(letter) for letter in view["removed"]],
    )
    solution = solve(rules, state, budget)
    if solution.verdict == "won":
        return Finish("won", solution.line)
    return Finish(solution.verdict)
