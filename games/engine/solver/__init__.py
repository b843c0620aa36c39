"""A full-information solver: does a winning line exist from this position, and which?

``solve(rules, state, budget)`` searches every card known (face-down cards and the reserve
included) and answers ``won`` with a line of engine actions, ``lost`` once it has proved
that no line wins, or ``unknown`` when it searched ``budget`` positions without deciding.
It is pure (the standard library and :mod:`games.engine` only) and deterministic: the
same position and budget give the same answer, line and node count on every machine.

How it searches, and why each shortcut is sound, is in :mod:`games.engine.solver.search`
and docs/solvability.md.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    search = Search(rules, state)
    verdict, line, nodes = search.run(budget)
    return Solution(verdict, line, nodes)


__all__ = ["DEFAULT_BUDGET", "Solution", "Verdict", "solve"]
