"""The native core: :class:`~games.engine.solver.search.Search` in C, where it is built.

``_native`` (games/engine/solver/csrc/) is an optional C extension: ``pip install`` builds
it where a compiler is found and goes on without it where none is. It searches exactly as
the Python search does (the same moves in the same order, the same shortcuts, the same
random order in a probe), so it gives the same verdict, line and node count;
tests/engine/test_solver_native.py compares both on thousands of deals.

:func:`native_search` makes a search from the same arguments as ``Search``. It hands back
the Python one for what the C core does not take: a position outside its fixed limits
(more than 16 columns, 4 cells, 2 decks or 104 cards, a card more often than its decks
hold, a column of face-down cards alone: none of which the engine makes), or a probe's
random source that is not a plain :class:`random.Random`.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..actions import Action
from ..rules import Ruleset
from ..state import State
from . import limits
from .search import Decided, Search, Verdict, _action

try:
    from . import _native
except ImportError:  # not built: the Python core runs
    _native = None  # type: ignore[assignment]

#: Whether the C extension is built and importable here.
AVAILABLE = _native is not None

_MODES = {"destination": 0, "all": 1, "stay": 2}
_VERDICTS: dict[int, Verdict] = {}
_CUT = -2
if _native is not None:
    _VERDICTS = {_native.WON: "won", _native.LOST: "lost", _native.UNKNOWN: "unknown"}
    _CUT = _native.CUT
    limits.on_interrupt.append(_native.interrupt)


class Searcher(Protocol):
    """What games.engine.solver asks of a search, from either core."""

    @property
    def focus(self) -> bool:
        """Whether it is a focused probe, whose end proves nothing."""

    def run(self, budget: int) -> Decided:
        """``(verdict, line, nodes)`` within ``budget`` distinct positions in all; an
        ``unknown`` search goes on from where it stopped."""


class NativeSearch:
    """``Search(rules, state, ...)`` run by the C core; only :meth:`run` and :attr:`focus`
    (the Python search's methods for tests have no counterpart here)."""

    def __init__(
        self,
        rules: Ruleset,
        state: State,
        *,
        safe_joins: bool = True,
        jitter: random.Random | None = None,
        focus: bool = False,
    ) -> None:
        if _native is None:
            raise RuntimeError("the native solver core is not built")
        self.focus = focus and not rules.same_suit
        self.jitter = jitter
        self.core = _native.Core(*_arguments(rules, state, safe_joins, jitter, focus))
        self.decided: Decided | None = None

    def run(self, budget: int) -> Decided:
        """Search.run, in C."""
        if self.decided is not None:
            return self.decided
        jitter = self.jitter
        if jitter is None:
            code, line, nodes, _ = self.core.run(budget, None, limits.current())
        else:
            # The probe draws from the same random source as the Python one would, and
            # leaves it where the Python one would.
            version, words, gauss = jitter.getstate()
            code, line, nodes, after = self.core.run(budget, words, limits.current())
            jitter.setstate((version, after, gauss))
        answer = _decided(code, line, nodes)
        if answer[0] != "unknown":
            self.decided = answer
        return answer


def search_once(rules: Ruleset, state: State, budget: int) -> Decided | None:
    """``Search(rules, state).run(budget)`` by the C core in one call, or None where the C
    core cannot take the position."""
    if _native is None:
        raise RuntimeError("the native solver core is not built")
    known = _RULES.get(id(rules))
    if known is None or known[0] is not rules:
        if len(_RULES) > 64:
            _RULES.clear()  # rulesets made on the fly (tests): keep a few
        known = _RULES[id(rules)] = (rules, *_rule_arguments(rules, True, False, False))
    _, reserve_to, decks, mode, flags = known
    try:
        found = _native.search(
            state.down,
            state.columns,
            state.cells,
            state.reserve,
            reserve_to,
            len(state.removed),
            decks,
            mode,
            flags,
            budget,
            limits.current(),
        )
    except ValueError:
        return None  # outside the C core's limits
    return _decided(*found)


#: What :func:`search_once` passes of each ruleset it met, by identity (the rulesets are a
#: few frozen values, and hashing one costs more than the search of most deals), with the
#: ruleset itself, so that an identity another object takes later is not mistaken for it.
_RULES: dict[int, tuple[Ruleset, tuple[int, ...], int, int, int]] = {}


def _rule_arguments(
    rules: Ruleset, safe_joins: bool, jitter: bool, focus: bool
) -> tuple[tuple[int, ...], int, int, int]:
    """What the C core takes of the rules and the options: ``reserve_to``, decks, the
    sequence check and the flags."""
    flags = (
        rules.same_suit
        | rules.king_only_on_empty << 1
        | rules.whole_column_to_empty << 2
        | rules.deal_any_time << 3
        | safe_joins << 4
        | focus << 5
        | jitter << 6
    )
    return rules.reserve_to, rules.decks, _MODES[rules.sequences], flags


def _arguments(
    rules: Ruleset, state: State, safe_joins: bool, jitter: random.Random | None, focus: bool
) -> tuple[
    tuple[int, ...],
    tuple[tuple[int, ...], ...],
    tuple[int | None, ...],
    tuple[int, ...],
    tuple[int, ...],
    int,
    int,
    int,
    int,
]:
    """What the C core takes: the state's own tuples, the rules' fields and the options."""
    reserve_to, decks, mode, flags = _rule_arguments(rules, safe_joins, jitter is not None, focus)
    return (
        state.down,
        state.columns,
        state.cells,
        state.reserve,
        reserve_to,
        len(state.removed),
        decks,
        mode,
        flags,
    )


#: Each step's action, made once: actions are frozen values, and making one costs more
#: than the C core spends on a position.
_ACTIONS: dict[bytes, Action] = {}


def _decided(code: int, line: bytes, nodes: int) -> Decided:
    """The C core's answer as Search.run's: the line's steps (4 bytes each) as actions;
    :class:`~.limits.Interrupted` for a search cut by its deadline."""
    if code == _CUT:
        raise limits.Interrupted()
    if not line:
        return _VERDICTS[code], (), nodes
    actions = []
    for k in range(0, len(line), 4):
        step = line[k : k + 4]
        action = _ACTIONS.get(step)
        if action is None:
            action = _ACTIONS[step] = _action((step[0], step[1], step[2], step[3]))
        actions.append(action)
    return _VERDICTS[code], tuple(actions), nodes


def native_search(
    rules: Ruleset,
    state: State,
    *,
    safe_joins: bool = True,
    jitter: random.Random | None = None,
    focus: bool = False,
) -> Searcher:
    """A search by the C core, or the Python one where the C core cannot take it."""
    if jitter is None or type(jitter) is random.Random:
        try:
            return NativeSearch(rules, state, safe_joins=safe_joins, jitter=jitter, focus=focus)
        except ValueError:
            pass  # outside the C core's limits
    return Search(rules, state, safe_joins=safe_joins, jitter=jitter, focus=focus)
