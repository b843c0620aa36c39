"""A full-information solver: does a winning line exist from this position, and which?

``solve(rules, state, budget)`` searches every card known (face-down cards and the reserve
included) and answers ``won`` with a line of engine actions, ``lost`` once it has proved
that no line wins, or ``unknown`` when it searched ``budget`` positions without deciding.
It is pure (the standard library and :mod:`games.engine` only) and deterministic: the
same position and budget give the same answer, line and node count on every machine.

How it searches, and why each shortcut is sound, is in :mod:`games.engine.solver.search`
and docs/solvability.md.

Where building is on any suit (``easy``), the same-suit game is searched first: it allows
a subset of the moves, each with the same effect, so its won lines are won lines of the
any-suit game, and its search is far smaller (every card has one place to go, and the
shortcuts of one place hold). Only when it is proved lost does the any-suit search follow,
with what is left of the budget; so a deal decided within a budget still gets the same
answer under a larger one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..actions import Action
from ..rules import Ruleset
from ..state import PLAYING, WON, State
from .search import Search, Verdict

#: The node budget when the caller names none.
DEFAULT_BUDGET = 200_000


@dataclass(frozen=True)
class Solution:
    """What the search found.

    ``line`` holds engine actions (``Move``, ``CellMove``, ``Deal``) that lead from the
    searched state to a won state when ``verdict`` is ``won``, and is empty otherwise.
    ``nodes`` counts the distinct positions the search visited.
    """

    verdict: Verdict
    line: tuple[Action, ...]
    nodes: int


def solve(rules: Ruleset, state: State, budget: int = DEFAULT_BUDGET) -> Solution:
    """Search ``state`` (every card known) under ``rules`` with at most ``budget`` nodes."""
    if state.rules != rules:
        raise ValueError(f"the state is a {state.rules.name} state, not {rules.name}")
    if state.status == WON:
        return Solution("won", (), 0)
    if state.status != PLAYING:
        return Solution("lost", (), 0)
    spent = 0
    if not rules.same_suit:
        verdict, line, spent = Search(replace(rules, same_suit=True), state).run(budget)
        if verdict != "lost":
            return Solution(verdict, line, spent)
        if spent >= budget:
            return Solution("unknown", (), spent)
    verdict, line, nodes = Search(rules, state).run(budget - spent)
    return Solution(verdict, line, spent + nodes)


__all__ = ["DEFAULT_BUDGET", "Solution", "Verdict", "solve"]
