"""A hint that searches one reveal further: recursive sampling over information sets.

The hint of :mod:`games.engine.hint` (hindsight optimisation) credits an action with the
samples that are still won after it, each solved with every card known: after the action
the player is assumed to know the hidden cards. That is strategy fusion, and it flatters
the actions that show a card (the deal most): after the card shows, the player still has
to choose the next action without knowing the others.

This hint takes the same samples and the same count, and where the count's choice shows a
card (the count's ties go to the action that shows the most cards: the deal, then a card
turned up), it keeps the actions whose count is within ``margin`` of the best and weighs
each again one reveal deeper. An action, with the plan the count credited it with (itself
when it shows a card; else the actions up to and including the next one that shows a card,
the same in every sample), leads to a chance node: the cards the plan shows. For each of
``configs`` outcomes of that node (the cards the plan shows in the first samples, so drawn
as the view says they may be), the player sees those cards and chooses again, from what
they see: the next information set. Its value is a hint's own count there, over ``inner``
completions of that information set (other samples with the shown cards swapped into the
places the plan turns up: a uniform draw from what the player would then see, and the same
draws for every action weighed, so that their difference is less noise), the best next
action's share of them. An action replaces the count's choice when its value is higher by
more than ``z`` standard errors (0: higher at all).

It is computed from the view alone, like the hint it extends (the samples are the hint's,
seeded by the view), and stops at its time limit with the count's choice.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import heuristic  # noqa: E402
from games.engine import hint as hints  # noqa: E402
from games.engine.actions import Action, CellMove, Deal, Move  # noqa: E402
from games.engine.game import apply, legal_actions  # noqa: E402
from games.engine.rules import Ruleset  # noqa: E402
from games.engine.solver import solve  # noqa: E402
from games.engine.state import PLAYING, State, position  # noqa: E402

#: Outcomes of the chance node weighed per action, and completions of each.
CONFIGS = 8
INNER = 16
#: Actions whose count is within this share of the best count (at least one sample) are
#: weighed again.
MARGIN = 0.1

#: An action is preferred to the count's choice when its value one reveal deeper is higher
#: by more than this many standard errors (of the difference of two shares of
#: ``CONFIGS * INNER`` trials, as if independent: the shared samples make it smaller).
Z = 0.0

#: Weigh deeper only when the count's choice shows a card (its ties go to the action that
#: shows the most cards: the deal, a card turned up).
REVEALS_ONLY = True

Hinted = Move | CellMove | Deal
Won = tuple[State, tuple[Action, ...]]


@dataclass(frozen=True)
class Weighed:
    """A near-tied action, its count, and the plan the count credited it with."""

    action: Hinted
    worth: int
    plan: tuple[Action, ...]


def search_hint(
    rules: Ruleset,
    view: Mapping[str, Any],
    *,
    samples: int = hints.SAMPLES,
    budget: int = hints.SAMPLE_BUDGET,
    time_limit: float | None = None,
    been: Collection[Hashable] = (),
    configs: int = CONFIGS,
    inner: int = INNER,
    margin: float = MARGIN,
    inner_plans: bool = True,
    z: float = Z,
    reveals_only: bool = REVEALS_ONLY,
) -> tuple[hints.Hint, int]:
    """The hint for ``view`` (see the module's docstring) and how many actions were weighed
    one reveal deeper (0 when the count alone chose)."""
    if view["status"] != PLAYING:
        return hints.Hint(None, 0, 0, "none"), 0
    clock = hints._Clock(time_limit)
    drawn = list(islice(hints._completions(rules, view), samples))
    if not drawn:
        return hints.Hint(None, 0, samples, "none"), 0
    some = drawn[0]
    legal = [a for a in legal_actions(some) if not hints.left_out(rules, some, a)]
    if not legal:
        return hints.Hint(None, 0, samples, "none"), 0
    afters = {action: apply(some, action)[0] for action in legal}
    shown = {action: hints._cards_shown(some, after) for action, after in afters.items()}
    if been:
        onward = [a for a in legal if shown[a] or hints.board_key(afters[a]) not in been]
        legal = onward or legal
    order = {action: rank for rank, action in enumerate(legal)}
    preference = {action: rank for rank, action in enumerate(heuristic.ranked(rules, view))}
    first_moves: Counter[Hinted] = Counter()
    won: list[Won] = []
    undecided: list[State] = []
    solved: list[State] = []

    def rank(action: Hinted, wins: int) -> tuple[int, int, int, int, int]:
        return (
            -wins,
            -shown[action],
            preference.get(action, len(preference)),
            -first_moves[action],
            order[action],
        )

    quick: hints.Hint | None = None
    for state in drawn:
        if clock.late():
            break
        solved.append(state)
        solution = solve(rules, state, budget)
        if solution.verdict == "won" and solution.line:
            first = solution.line[0]
            if isinstance(first, Move | CellMove | Deal) and first in order:
                first_moves[first] += 1
                won.append((state, solution.line))
        elif solution.verdict == "unknown":
            undecided.append(state)
        if len(solved) == hints.QUICK_SAMPLES < samples and won and time_limit is not None:
            # as the hint does: a choice from the first samples, for when the limit cuts
            # the rest short
            action, wins, complete = hints._choose(rules, legal, won, rank, budget, True, clock)
            if complete and action is not None:
                quick = hints.Hint(action, wins, len(solved), "solver")
    if not won:
        found = hints._least_lost(
            rules, view, legal, undecided, budget, preference, len(solved), clock
        )
        return found, 0
    if quick is not None and clock.late():
        return quick, 0
    near = _near_ties(rules, legal, won, rank, budget, margin, clock)
    if not near and quick is not None:  # out of time: the choice from the first samples
        return quick, 0
    if not near:  # out of time before any action was counted in full
        most = min(legal, key=lambda action: (-first_moves[action], rank(action, 0)))
        return hints.Hint(most, first_moves[most], len(solved), "solver"), 0
    chosen = near[0]
    if len(near) == 1 or clock.late() or (reveals_only and not shown[chosen.action]):
        return hints.Hint(chosen.action, chosen.worth, len(solved), "solver"), 0
    best, value, weighed = chosen, -1.0, 0
    evaluations = configs * inner
    for candidate in near:
        if candidate.worth / len(solved) <= value + _noise(value, evaluations, z):
            continue  # one reveal deeper an action is worth at most its count, about
        deeper = _deeper(rules, solved, candidate, budget, configs, inner, inner_plans, clock)
        if deeper is None:  # out of time: the count's choice
            return hints.Hint(chosen.action, chosen.worth, len(solved), "solver"), 0
        weighed += 1
        if value < 0:
            value = deeper  # the count's choice, which the others must beat beyond noise
        elif deeper > value + _noise(value, evaluations, z):
            best, value = candidate, deeper
    return hints.Hint(best.action, best.worth, len(solved), "solver"), weighed


def _noise(share: float, trials: int, z: float) -> float:
    """``z`` standard errors of the difference of two shares near ``share`` of ``trials``
    independent trials each."""
    share = min(max(share, 1 / trials), 1 - 1 / trials)
    return z * math.sqrt(2 * share * (1 - share) / trials)


def _near_ties(
    rules: Ruleset,
    legal: Sequence[Hinted],
    won: Sequence[Won],
    rank: Callable[[Hinted, int], tuple[int, ...]],
    budget: int,
    margin: float,
    clock: hints._Clock,
) -> list[Weighed]:
    """The actions whose count (as :func:`games.engine.hint.hint` counts: the samples an
    action that shows a card wins in, the most that one plan wins in for one that shows
    none) is within ``margin`` of the best, best first in the count's order; [] when the
    clock runs out first."""
    total = len(won)
    counted: list[Weighed] = []
    best = 0

    def slack() -> int:
        return max(1, math.ceil(margin * best))

    for action in sorted(legal, key=lambda action: rank(action, total)):
        kept = _kept(rules, won, action, budget, total - best + slack(), clock)
        if clock.late():
            return []
        if kept is not None:
            plan: tuple[Action, ...] = (action,)
            worth = len(kept)
            if kept and not hints._cards_shown(won[0][0], kept[0][0]):
                tail, worth = _best_plan(rules, kept, budget, clock)
                plan = (action, *tail)
            if worth >= best - slack():
                counted.append(Weighed(action, worth, plan))
                best = max(best, worth)
    near = [w for w in counted if w.worth >= best - slack()]
    return sorted(near, key=lambda w: rank(w.action, w.worth))


def _kept(
    rules: Ruleset,
    won: Sequence[Won],
    action: Action,
    budget: int,
    failures: int,
    clock: hints._Clock,
) -> list[Won] | None:
    """The positions after ``action`` in the samples of ``won`` that are still won within
    ``budget``, each with a won line; None as soon as more than ``failures`` are not, or
    the clock runs out."""
    kept: list[Won] = []
    failed = 0
    for state, line in won:
        if clock.late():
            return None
        after = apply(state, action)[0]
        if line[0] == action:
            kept.append((after, line[1:]))
            continue
        solution = solve(rules, after, budget)
        if solution.verdict == "won":
            kept.append((after, solution.line))
            continue
        failed += 1
        if failed > failures:
            return None
    return kept


def _best_plan(
    rules: Ruleset, kept: Sequence[Won], budget: int, clock: hints._Clock
) -> tuple[tuple[Action, ...], int]:
    """The plan (up to and including the first action that shows a card) that wins in the
    most of ``kept``, and in how many (:func:`games.engine.hint._plan_value`, keeping the
    plan)."""
    plans: dict[Any, tuple[tuple[Action, ...], int]] = {}
    own: list[Any] = []
    for after, line in kept:
        plan, key = hints._plan_of(after, line)
        own.append(key)
        plans[key] = (plan, plans.get(key, (plan, 0))[1] + 1)
    most = -1
    best_plan: tuple[Action, ...] = ()
    for key, (plan, _) in sorted(plans.items(), key=lambda item: -item[1][1]):
        count = failed = 0
        for (after, _), mine in zip(kept, own, strict=True):
            if clock.late():
                return best_plan or plan, max(most, len(kept))
            if mine == key or hints._plan_wins(rules, after, plan, budget):
                count += 1
                continue
            failed += 1
            if len(kept) - failed <= most:
                break
        if count > most:
            most, best_plan = count, plan
        if most == len(kept):
            break
    return best_plan, most


def _hidden_slots(state: State) -> list[tuple[int, int]]:
    """The places of the hidden cards of ``state``: (column, index) of each face-down card,
    (-1, index) of each reserve card."""
    slots = [(c, i) for c, down in enumerate(state.down) for i in range(down)]
    return slots + [(-1, i) for i in range(len(state.reserve))]


def _shown_slots(state: State, plan: Sequence[Action]) -> list[tuple[int, int]]:
    """The places (as :func:`_hidden_slots` names them in ``state``) of the hidden cards that
    ``plan`` shows. Face-down cards move only with a whole column into an empty one."""
    ids = [[(c, i) for i in range(down)] for c, down in enumerate(state.down)]
    reserve = [(-1, i) for i in range(len(state.reserve))]
    shown: list[tuple[int, int]] = []
    for action in plan:
        if isinstance(action, Move) and action.index == 0 and state.down[action.source - 1]:
            ids[action.to - 1], ids[action.source - 1] = ids[action.source - 1], []
        after = apply(state, action)[0]
        if isinstance(action, Deal):
            shown.extend(reserve)
            reserve = []
        for column, (before, now) in enumerate(zip(state.down, after.down, strict=True)):
            if now < before:
                shown.extend(ids[column][now:before])
                ids[column] = ids[column][:now]
        state = after
    return shown


def _card(state: State, slot: tuple[int, int]) -> int:
    column, index = slot
    return state.reserve[index] if column < 0 else state.columns[column][index]


def _with_cards(state: State, wanted: Mapping[tuple[int, int], int]) -> State:
    """``state`` with the cards ``wanted`` in the hidden places named, each swapped with the
    hidden card that was there (a uniform completion of ``state``'s view stays uniform given
    those cards)."""
    columns = [list(cards) for cards in state.columns]
    reserve = list(state.reserve)
    slots = _hidden_slots(state)

    def get(slot: tuple[int, int]) -> int:
        return reserve[slot[1]] if slot[0] < 0 else columns[slot[0]][slot[1]]

    def put(slot: tuple[int, int], card: int) -> None:
        if slot[0] < 0:
            reserve[slot[1]] = card
        else:
            columns[slot[0]][slot[1]] = card

    fixed: set[tuple[int, int]] = set()
    for slot, card in wanted.items():
        if get(slot) != card:
            other = next(s for s in slots if s not in fixed and s != slot and get(s) == card)
            mine = get(slot)
            put(slot, card)
            put(other, mine)
        fixed.add(slot)
    return position(
        state.rules,
        columns=columns,
        down=state.down,
        reserve=reserve,
        cells=state.cells,
        removed=state.removed,
    )


def _deeper(
    rules: Ruleset,
    samples: Sequence[State],
    weighed: Weighed,
    budget: int,
    configs: int,
    inner: int,
    inner_plans: bool,
    clock: hints._Clock,
) -> float | None:
    """The value of ``weighed`` one reveal deeper (see the module's docstring): the mean,
    over the first ``configs`` samples' cards shown by its plan, of the best next action's
    share of ``inner`` completions of what the player then sees; None past the clock."""
    total = len(samples)
    start = samples[0]
    slots = _shown_slots(start, weighed.plan)
    if not slots:  # the plan wins without showing a card: its count is its value
        return weighed.worth / total
    values: dict[tuple[int, ...], float] = {}
    score = 0.0
    used = min(configs, total)
    for i in range(used):
        target = tuple(_card(samples[i], slot) for slot in slots)
        if target not in values:
            states = []
            for k in range(inner):
                base = samples[(i * inner + k) % total]
                state = _with_cards(base, dict(zip(slots, target, strict=True)))
                for action in weighed.plan:
                    state = apply(state, action)[0]
                states.append(state)
            value = _best_share(rules, states, budget, inner_plans, clock)
            if value is None:
                return None
            values[target] = value
        score += values[target]
    return score / used


def _best_share(
    rules: Ruleset, states: Sequence[State], budget: int, plans: bool, clock: hints._Clock
) -> float | None:
    """The most of ``states`` (completions of one view) that one next action is still won
    after (with ``plans``, as the hint counts an action that shows nothing: one plan in
    all), as a share; None past the clock."""
    if states[0].status != PLAYING:
        return 1.0 if states[0].status == "won" else 0.0
    won: list[Won] = []
    firsts: Counter[Action] = Counter()
    for state in states:
        if clock.late():
            return None
        solution = solve(rules, state, budget)
        if solution.verdict == "won" and solution.line:
            won.append((state, solution.line))
            firsts[solution.line[0]] += 1
    if not won:
        return 0.0
    some = states[0]
    legal = [a for a in legal_actions(some) if not hints.left_out(rules, some, a)]
    best = 0
    for action in sorted(legal, key=lambda a: -firsts[a]):
        if best == len(won):
            break
        kept = _kept(rules, won, action, budget, len(won) - best - 1, clock)
        if clock.late():
            return None
        if kept is not None:
            worth = len(kept)
            if plans and kept and not hints._cards_shown(won[0][0], kept[0][0]):
                worth = hints._plan_value(rules, kept, budget, best + 1, clock)
            best = max(best, worth)
    return best / len(states)
