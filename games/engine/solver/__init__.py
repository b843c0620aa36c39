"""A full-information solver: does a winning line exist from this position, and which?

``solve(rules, state, budget)`` searches every card known (face-down cards and the reserve
included) and answers ``won`` with a line of engine actions, ``lost`` once it has proved
that no line wins, or ``unknown`` when it searched ``budget`` positions without deciding.
It is pure (the standard library and :mod:`games.engine` only) and deterministic: the
same position and budget give the same answer, line and node count on every machine.

How it searches, and why each shortcut is sound, is in :mod:`games.engine.solver.search`
and docs/solvability.md.

Where a card has several places to go (``easy``, which builds on any suit, and ``double``,
with two decks), the one search is joined by *probes*: short searches with the moves in a
random order seeded from the position (:func:`_probing`), and in ``easy`` the same-suit
game is searched first (:class:`_Chain`). Their turns do not depend on the budget, so a
deal decided within a budget still gets the same answer under a larger one.

Two cores run the search: the Python one (:mod:`.search`), the reference, and a native one
(:mod:`.native`, in C), which searches exactly as it does, about 30 to 60 times as fast, where
it is built. :data:`CORE` is the one that runs by default: ``native`` where it is built,
else ``python``; the environment variable ``SOLVER_CORE`` (``native``, ``python`` or
``auto``) picks it for the process, and ``core=`` for one call.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from ..actions import Action
from ..rules import Ruleset
from ..state import PLAYING, WON, State
from . import native
from .native import Searcher
from .search import Decided, Search, Verdict

#: The node budget when the caller names none.
DEFAULT_BUDGET = 200_000

Core = Literal["native", "python"]
#: The environment variable that picks the core: ``native``, ``python`` or ``auto``.
CORE_VARIABLE = "SOLVER_CORE"


def _default_core() -> Core:
    """The core :envvar:`SOLVER_CORE` asks for; ``native`` where it is not built fails at
    once, rather than run ten times slower than asked."""
    wanted = os.environ.get(CORE_VARIABLE, "auto").strip().lower() or "auto"
    if wanted == "auto":
        return "native" if native.AVAILABLE else "python"
    if wanted == "python":
        return "python"
    if wanted == "native":
        if not native.AVAILABLE:
            raise RuntimeError(
                f"{CORE_VARIABLE}=native, but the native solver core is not built "
                "(pip install needs a C compiler for it; docs/architecture.md)"
            )
        return "native"
    raise RuntimeError(f"{CORE_VARIABLE} must be native, python or auto, not {wanted!r}")


#: The core that runs when a call names none.
CORE: Core = _default_core()


class _MakeSearch(Protocol):
    def __call__(
        self,
        rules: Ruleset,
        state: State,
        *,
        safe_joins: bool = True,
        jitter: random.Random | None = None,
        focus: bool = False,
    ) -> Searcher: ...


def _maker(core: Core | None) -> _MakeSearch:
    """How searches are made in ``core`` (None: :data:`CORE`)."""
    chosen = CORE if core is None else core
    if chosen == "python":
        return Search
    if chosen == "native" and native.AVAILABLE:
        return native.native_search
    raise ValueError(f"no {chosen!r} solver core here")


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


def solve(
    rules: Ruleset, state: State, budget: int = DEFAULT_BUDGET, *, core: Core | None = None
) -> Solution:
    """Search ``state`` (every card known) under ``rules`` with at most ``budget`` nodes,
    in ``core`` (None: :data:`CORE`); both cores give the same answer."""
    over = _over(rules, state)
    if over is not None:
        return over
    make = _maker(core)
    if rules.decks == 1 and rules.same_suit:
        if make is native.native_search:
            # One search, run once: in one call to the C core, where it takes the position.
            decided = native.search_once(rules, state, budget)
            if decided is not None:
                return Solution(*decided)
        return Solution(*make(rules, state).run(budget))
    return _probing(rules, state, budget, make)


def systematic(
    rules: Ruleset, state: State, budget: int = DEFAULT_BUDGET, *, core: Core | None = None
) -> Solution:
    """:func:`solve` without its probes, as it was before them: the systematic search
    alone (in ``easy``, the same-suit game first). For benchmarks and tests that measure
    what the probes add."""
    over = _over(rules, state)
    if over is not None:
        return over
    return Solution(*_Chain(rules, state, _maker(core)).run(budget))


def _over(rules: Ruleset, state: State) -> Solution | None:
    """The answer for a game already over (no search), or None; a state of other rules
    is refused."""
    if state.rules is not rules and state.rules != rules:
        raise ValueError(f"the state is a {state.rules.name} state, not {rules.name}")
    if state.status == WON:
        return Solution("won", (), 0)
    if state.status != PLAYING:
        return Solution("lost", (), 0)
    return None


#: Where a card has several places to go: the nodes of one probe, and of each turn of the
#: systematic search.
PROBE_NODES = 1000
#: Probes between two turns of the systematic search.
PROBES_PER_TURN = 3


def _probing(rules: Ruleset, state: State, budget: int, make: _MakeSearch) -> Solution:
    """The systematic search (:class:`_Chain`) in turns of :data:`PROBE_NODES` nodes, with
    :data:`PROBES_PER_TURN` probes after each: fresh searches of :data:`PROBE_NODES` nodes
    whose moves of one kind come in a random order, seeded from the position.

    In ``easy`` and ``double`` a depth-first search that took a wrong turn early spends any
    budget below it: on double seeds 0-9 one search of 500,000 nodes won 3 deals, with
    probes 9 were won within 50,000 nodes. Since the search checks every position it
    visits for stranded cards (:mod:`.search`) it leaves most wrong turns at
    once, and wins 9 of those 10 deals alone within 140 nodes; the probes still win deals
    it does not (the tests keep three). A complete probe prunes only what the systematic
    search prunes, so its won line is a won line, and one that searches its whole tree
    proves the deal lost; on a tree larger than a probe, only the systematic search can.

    In ``easy`` the probes are *focused* (:meth:`Search.focused`): a card goes onto a card
    of another suit only to turn up a card, empty a column or uncover a card whose own
    predecessor can then join it. On 20 easy deals that 50,000 nodes did not decide, 200,000
    nodes won 14 with complete probes (158 s) and 19 with focused ones (23 s). A focused
    probe leaves moves out, so its end proves nothing; only its won line counts.

    The turns do not depend on the budget, so a deal decided within a budget gets the same
    answer, line and node count under a larger one.
    """
    chain = _Chain(rules, state, make)
    rng = random.Random(repr((rules.name, state.down, state.columns, state.reserve, state.cells)))
    probed = 0
    turn = 1
    while True:
        verdict, line, nodes = chain.run(min(budget - probed, turn * PROBE_NODES))
        if verdict != "unknown":
            return Solution(verdict, line, nodes + probed)
        for _ in range(PROBES_PER_TURN):
            room = budget - nodes - probed
            if room <= 0:
                return Solution("unknown", (), nodes + probed)
            probe = make(rules, state, jitter=rng, focus=True)
            verdict, line, spent = probe.run(min(PROBE_NODES, room))
            probed += spent
            if verdict == "won" or (verdict == "lost" and not probe.focus):
                return Solution(verdict, line, nodes + probed)
        turn += 1


class _Chain:
    """The systematic search of a ruleset where a card has several places to go, kept
    between turns. In ``easy`` the same-suit game comes first: it allows a subset of the
    moves, each with the same effect, so its won lines are won lines of the any-suit game,
    and its search is far smaller (every card has one place to go, and the shortcuts of one
    place hold). Only when it is proved lost does the any-suit search follow."""

    def __init__(self, rules: Ruleset, state: State, make: _MakeSearch) -> None:
        self.searches = [make(rules, state)]
        if not rules.same_suit:
            self.searches.insert(0, make(replace(rules, same_suit=True), state))
        #: The nodes of the searches already proved lost.
        self.spent = 0

    def run(self, limit: int) -> Decided:
        """Go on until ``limit`` nodes in all; ``(verdict, line, nodes in all)``."""
        while True:
            if self.spent >= limit:
                return "unknown", (), self.spent
            verdict, line, nodes = self.searches[0].run(limit - self.spent)
            if verdict != "lost" or len(self.searches) == 1:
                return verdict, line, self.spent + nodes
            self.spent += nodes
            self.searches.pop(0)


__all__ = [
    "CORE",
    "CORE_VARIABLE",
    "Core",
    "DEFAULT_BUDGET",
    "PROBE_NODES",
    "PROBES_PER_TURN",
    "Solution",
    "Verdict",
    "solve",
    "systematic",
]
