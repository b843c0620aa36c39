"""Hints from the player's view: sample what the player cannot see, solve each sample.

``hint(rules, view)`` takes a player's view (face-down cards ``None``, the reserve a
count) and never a state, so no hidden card can reach it. It deals the unseen cards (the
deck less every card the view shows) into the face-down places and the reserve ``samples``
times, solves each completion with full information under a small budget, and recommends
the action worth the most won samples: for an action that shows a card, those it wins in;
for one that shows none, those that one plan (the same actions in every sample, up to the
next card shown) wins in. When no sample is won within the budget, it
recommends the action after which the fewest samples are proved lost (ties, and positions
lost in every sample, go to the one-move heuristic of :mod:`games.engine.heuristic`).

A whole column moving into an empty one is suggested only before the deal and in one
direction (see :func:`left_out`): after the deal it only renumbers columns, so it keeps every
won sample won and would tie the best move in every position, and a player who follows
the hint could go back and forth between two columns for ever.

The samples are drawn from the view alone: the random stream is seeded with a digest of the
view (its board: columns, reserve size, removed runs, cells, status), never from a game's
id, seed or hidden cards. So one visible position gets one hint, in any game, but for one
thing a game's history adds: an action that shows no card and would take the game back to
a board it has already been in on its line of play (``been``, :func:`line_boards`) is not
suggested, unless every action would. Without it, where a card has two places to go
(``double``), a follower moved a card between the two copies of its successor for ever:
each position's best action led back to the other.

What the player remembers but no longer sees (a card turned up and then turned down again
by an undo) is not used: the view is all the hint knows.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, count, islice
from typing import Any, Literal, TypeVar

from . import heuristic
from .actions import Action, CellMove, Deal, Move
from .cards import SUITS, Card, new_deck, parse_card
from .deals import MAX_SEED, shuffle
from .game import apply, legal_actions
from .rules import Ruleset
from .solver import solve
from .state import PLAYING, State, position

#: How many completions a hint samples, and the solver's node budget for each.
SAMPLES = 128
SAMPLE_BUDGET = 400
#: Wall-clock seconds after which a hint asked for in a request stops refining and answers
#: with what it has (``HINT_TIME_LIMIT``'s default; :func:`hint` itself has none).
TIME_LIMIT = 0.25
#: Under a time limit, the hint first chooses from this many samples, and answers with that
#: choice when the limit cuts the choice from all of them short.
QUICK_SAMPLES = 32

Source = Literal["solver", "heuristic", "none"]
Hinted = Move | CellMove | Deal
Trial = TypeVar("Trial")


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint: the action (``None`` when there is nothing to suggest), in how many of the
    sampled completions it starts a won line, out of how many, and what chose it
    (``solver`` when some sample was won, else ``heuristic``, or ``none``)."""

    action: Hinted | None
    wins: int
    samples: int
    source: Source


def board_of(view: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a player's view that the hint reads: the position, nothing about the
    game's history, score or identity."""
    board: dict[str, Any] = {
        "status": view["status"],
        "columns": [list(column) for column in view["columns"]],
        "reserve": int(view["reserve"]),
        "removed": "".join(view["removed"]),
    }
    if view.get("cells") is not None:
        board["cells"] = list(view["cells"])
    return board


def board_key(state: State) -> Hashable:
    """What a player sees of ``state``'s tableau (its face-up cards, how many are face-down
    in each column, the reserve's size and the cells), as a key: two positions of one deal
    with one key look alike to the player. (They have the same runs gone too, perhaps in
    another order: the face-down cards and the reserve are the deal's own.)"""
    return (
        tuple(cards[down:] for cards, down in zip(state.columns, state.down, strict=True)),
        state.down,
        len(state.reserve),
        state.cells,
    )


def line_boards(state: State) -> frozenset[Hashable]:
    """The :func:`board_key` of every position on ``state``'s line of play: ``state`` and
    each position before a move or deal still in effect (an undone move's position is off
    the line, and a restart begins a new one)."""
    keys = set()
    current: State | None = state
    while current is not None:
        keys.add(board_key(current))
        current = current.previous[0] if current.previous else None
    return frozenset(keys)


def view_digest(rules: Ruleset, view: Mapping[str, Any]) -> bytes:
    """SHA-256 of the ruleset's name and the visible board: the seed of the samples."""
    text = json.dumps(
        {"rules": rules.name, "board": board_of(view)}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(text.encode()).digest()


def unseen_cards(rules: Ruleset, view: Mapping[str, Any]) -> list[Card]:
    """The cards the view does not show, in deck order (a multiset for two decks).

    ``ValueError`` when the view does not fit the ruleset (more cards shown than exist, or
    not as many unseen cards as hidden places)."""
    counts = Counter(new_deck(rules.decks))
    shown: list[Card] = []
    for column in view["columns"]:
        shown.extend(parse_card(code) for code in column if code is not None)
    shown.extend(parse_card(code) for code in view.get("cells") or () if code is not None)
    for letter in view["removed"]:
        suit = SUITS.index(letter)
        shown.extend(range(suit * 13, suit * 13 + 13))
    counts.subtract(shown)
    if any(count < 0 for count in counts.values()):
        raise ValueError("the view shows a card more often than the decks hold it")
    unseen = sorted(counts.elements())
    hidden = sum(1 for column in view["columns"] for code in column if code is None)
    if len(unseen) != hidden + int(view["reserve"]):
        raise ValueError(
            f"{len(unseen)} unseen cards for {hidden} face-down places "
            f"and a reserve of {view['reserve']}"
        )
    return unseen


def completions(rules: Ruleset, view: Mapping[str, Any], count: int) -> list[State]:
    """``count`` positions that agree with everything ``view`` shows, the unseen cards dealt
    at random into its face-down places and its reserve (seeded by :func:`view_digest`)."""
    return list(islice(_completions(rules, view), count))


def _completions(rules: Ruleset, view: Mapping[str, Any]) -> Iterator[State]:
    """:func:`completions`, one at a time, without end."""
    unseen = unseen_cards(rules, view)
    digest = view_digest(rules, view)
    removed = [SUITS.index(letter) for letter in view["removed"]]
    cells = tuple(None if code is None else parse_card(code) for code in view.get("cells") or ())
    for sample in count():
        seed = int.from_bytes(hashlib.sha256(digest + sample.to_bytes(4, "big")).digest()[:8])
        cards = iter(shuffle(unseen, seed & MAX_SEED))
        columns = []
        down = []
        for shown in view["columns"]:
            hidden = sum(1 for code in shown if code is None)
            columns.append(
                tuple(next(cards) if code is None else parse_card(code) for code in shown)
            )
            down.append(hidden)
        reserve = tuple(cards)
        yield position(
            rules, columns=columns, down=down, reserve=reserve, cells=cells, removed=removed
        )


def hint(
    rules: Ruleset,
    view: Mapping[str, Any],
    *,
    samples: int = SAMPLES,
    budget: int = SAMPLE_BUDGET,
    plans: bool = True,
    time_limit: float | None = None,
    been: Collection[Hashable] = (),
) -> Hint:
    """The hint for the position ``view`` shows (see the module's docstring).

    ``been`` holds the :func:`board_key` of the boards the game has been in on its line of
    play (:func:`line_boards`): an action that shows no card and leads to one of them is
    left out, unless every action does (an action that shows a card leads to a board no
    one has seen, as far as the view can tell).

    Each sample is solved within ``budget`` nodes. In a sample the solver wins, an action
    *wins in that sample* when the position after it is still won within the budget (the
    solver's own first move does by construction). An action that shows the player a
    card (turns one up, deals the reserve) is worth the samples it wins in. One that shows
    nothing is worth, with ``plans``, the most samples that one *plan* starting with it
    wins in (:func:`_plan_value`): the player learns nothing until the next card shows,
    so must play the same actions until then in every sample, where each sample's solver
    chose its own. The hint is the action worth the most; ties go to the action that shows
    the most cards (the deal, then a move that turns one up: the player then knows more for
    the next choice, where each sample's solver knew everything already), then to the one
    the one-move heuristic prefers, then to the one more winning lines started with, then
    to the order of ``/moves``. On the 150 first classic deals that full information wins,
    the follower of 128 samples won 95 with ties to the heuristic first and 101 this way.
    A sample the solver does not win cannot be won after any action, or was not decided
    within the budget: it counts for no action.

    When no sample is won, the samples the solver did not decide are searched again after
    each action, and the hint is the action after which the most of them are not proved
    lost (``source`` ``heuristic``, ``wins`` 0).

    ``time_limit`` (seconds of wall clock; None, the default, for none) bounds the work when
    the machine is busy: the request path passes ``HINT_TIME_LIMIT`` (:data:`TIME_LIMIT`).
    Under a limit the hint first chooses from the first :data:`QUICK_SAMPLES` samples, then
    from all of them; past the limit it stops solving and trying, and answers with the
    choice from all samples when it was made, else the quick one, else the best action
    tried in full, else the first move of the most won lines (``samples`` is then the
    number solved). Without a limit, or on a quiet machine, the hint depends on the view
    and ``been`` alone.
    """
    if view["status"] != PLAYING:
        return Hint(None, 0, 0, "none")
    clock = _Clock(time_limit)
    drawn = islice(_completions(rules, view), samples)
    some = next(drawn, None)
    if some is None:
        return Hint(None, 0, samples, "none")
    states: Iterator[State] = chain((some,), drawn)
    legal = [action for action in legal_actions(some) if not left_out(rules, some, action)]
    if not legal:
        return Hint(None, 0, samples, "none")
    afters = {action: apply(some, action)[0] for action in legal}
    shown = {action: _cards_shown(some, after) for action, after in afters.items()}
    if been:
        onward = [a for a in legal if shown[a] or board_key(afters[a]) not in been]
        legal = onward or legal
    order = {action: rank for rank, action in enumerate(legal)}
    preference = {action: rank for rank, action in enumerate(heuristic.ranked(rules, view))}
    first_moves: Counter[Hinted] = Counter()
    won: list[tuple[State, tuple[Action, ...]]] = []
    undecided: list[State] = []
    solved = 0

    def rank(action: Hinted, wins: int) -> tuple[int, int, int, int, int]:
        return (
            -wins,
            -shown[action],
            preference.get(action, len(preference)),
            -first_moves[action],
            order[action],
        )

    quick: Hint | None = None
    for state in states:
        if clock.late():
            break
        solved += 1
        solution = solve(rules, state, budget)
        if solution.verdict == "won" and solution.line:
            first: Action = solution.line[0]
            if isinstance(first, Move | CellMove | Deal) and first in order:
                first_moves[first] += 1
                won.append((state, solution.line))
        elif solution.verdict == "unknown":
            undecided.append(state)
        if solved == QUICK_SAMPLES < samples and won and time_limit is not None:
            action, wins, complete = _choose(rules, legal, won, rank, budget, plans, clock)
            if complete and action is not None:
                quick = Hint(action, wins, solved, "solver")
    if not won:
        return _least_lost(rules, view, legal, undecided, budget, preference, solved, clock)
    if quick is not None and clock.late():
        return quick
    best, wins, complete = _choose(rules, legal, won, rank, budget, plans, clock)
    if not complete and quick is not None:
        return quick
    if best is None:  # out of time before any action was tried in full
        best = min(legal, key=lambda action: (-first_moves[action], rank(action, 0)))
        wins = first_moves[best]
    return Hint(best, wins, solved, "solver")


class _Clock:
    """A wall-clock limit: :meth:`late` once ``limit`` seconds have passed (never when
    ``limit`` is None)."""

    def __init__(self, limit: float | None) -> None:
        self.end = None if limit is None else time.monotonic() + limit

    def late(self) -> bool:
        return self.end is not None and time.monotonic() > self.end


def _cards_shown(before: State, after: State) -> int:
    """How many cards the player did not see going from ``before`` to ``after`` shows (one
    turned up, the reserve dealt)."""
    return sum(before.down) - sum(after.down) + len(before.reserve) - len(after.reserve)


def _choose(
    rules: Ruleset,
    legal: Sequence[Hinted],
    won: Sequence[tuple[State, tuple[Action, ...]]],
    rank: Callable[[Hinted, int], tuple[int, ...]],
    budget: int,
    plans: bool,
    clock: _Clock,
) -> tuple[Hinted | None, int, bool]:
    """The action of least ``rank(action, worth)``, its worth (see :func:`hint`), and
    whether every action was weighed before the clock ran out (if not, the best of those
    tried in full, or None).

    An action's worth never exceeds the won samples, so actions are tried in the order of
    their best possible rank and dropped as soon as they cannot beat the best so far, as
    in :func:`_vote`."""
    total = len(won)
    best: Hinted | None = None
    best_rank: tuple[int, ...] = ()
    best_worth = 0
    for action in sorted(legal, key=lambda action: rank(action, total)):
        if best is not None and rank(action, total) >= best_rank:
            break
        if clock.late():
            return best, best_worth, False
        kept: list[tuple[State, tuple[Action, ...]]] = []
        failed = 0
        for state, line in won:
            if clock.late():
                return best, best_worth, False
            after = apply(state, action)[0]
            if line[0] == action:
                kept.append((after, line[1:]))
                continue
            solution = solve(rules, after, budget)
            if solution.verdict == "won":
                kept.append((after, solution.line))
                continue
            failed += 1
            if best is not None and rank(action, total - failed) >= best_rank:
                break
        else:
            worth = len(kept)
            if plans and kept and not _cards_shown(won[0][0], kept[0][0]):
                need = 0
                if best is not None:
                    need = best_worth + (rank(action, best_worth) >= best_rank)
                worth = _plan_value(rules, kept, budget, need, clock)
            if best is None or rank(action, worth) < best_rank:
                best, best_rank, best_worth = action, rank(action, worth), worth
    return best, best_worth, not clock.late()


def _plan_value(
    rules: Ruleset,
    kept: Sequence[tuple[State, tuple[Action, ...]]],
    budget: int,
    need: int,
    clock: _Clock,
) -> int:
    """The most of the positions ``kept`` (each with a won line) that one plan wins in, or
    any figure below ``need`` when no plan reaches it (``len(kept)`` when the clock runs
    out first).

    A plan is a sequence of actions up to and including the first that shows a card (or
    the whole line when none does). The plans tried are those the won lines start with,
    the most common first; two that reach what the player would see alike are one. A plan
    is legal in every sample, since until a card shows the samples differ only in cards
    no action touches."""
    plans: dict[Any, tuple[tuple[Action, ...], int]] = {}
    own: list[Any] = []
    for after, line in kept:
        plan, key = _plan_of(after, line)
        own.append(key)
        plans[key] = (plan, plans.get(key, (plan, 0))[1] + 1)
    most = 0
    for key, (plan, _) in sorted(plans.items(), key=lambda item: -item[1][1]):
        floor = max(need, most + 1)
        count = failed = 0
        for (after, _), mine in zip(kept, own, strict=True):
            if clock.late():
                return len(kept)
            if mine == key or _plan_wins(rules, after, plan, budget):
                count += 1
                continue
            failed += 1
            if len(kept) - failed < floor:
                break
        most = max(most, count)
        if most == len(kept):
            break
    return most


def _plan_of(state: State, line: Sequence[Action]) -> tuple[tuple[Action, ...], Any]:
    """The start of ``line`` up to and including its first action that shows a card, and
    what tells it from another plan: what the player sees before that action (face-down
    cards and the reserve hidden), and the action."""
    plan: list[Action] = []
    last: Action | None = None
    for action in line:
        after = apply(state, action)[0]
        plan.append(action)
        if _cards_shown(state, after):
            last = action
            break
        state = after
    return tuple(plan), (board_key(state), last)


def _plan_wins(rules: Ruleset, state: State, plan: Sequence[Action], budget: int) -> bool:
    """Whether the solver wins ``state`` after ``plan`` within ``budget`` nodes."""
    for action in plan:
        state = apply(state, action)[0]
    return solve(rules, state, budget).verdict == "won"


def _vote(
    actions: Sequence[Hinted],
    trials: Sequence[Trial],
    passes: Callable[[Hinted, Trial], bool],
    rank: Callable[[Hinted, int], tuple[int, ...]],
) -> tuple[Hinted, int]:
    """The action with the least ``rank(action, n)``, ``n`` the trials it ``passes``, and
    that ``n``; exactly as if every action were tried on every trial, with fewer tries.

    ``rank`` must grow as ``n`` falls. Actions are tried in the order of their best
    possible rank (every trial passed), and an action is dropped as soon as even passing
    every trial left could not beat the best so far: in ``double``, where most samples
    are won and most actions keep them won, the first action tried often passes them all
    and no other is tried at all."""
    total = len(trials)
    best: Hinted | None = None
    best_rank: tuple[int, ...] = ()
    best_count = 0
    for action in sorted(actions, key=lambda action: rank(action, total)):
        if best is not None and rank(action, total) >= best_rank:
            break  # neither this action nor any after it can beat the best
        count = failed = 0
        for trial in trials:
            if passes(action, trial):
                count += 1
                continue
            failed += 1
            if best is not None and rank(action, total - failed) >= best_rank:
                break
        else:
            if best is None or rank(action, count) < best_rank:
                best, best_rank, best_count = action, rank(action, count), count
    assert best is not None
    return best, best_count


def _least_lost(
    rules: Ruleset,
    view: Mapping[str, Any],
    legal: Sequence[Hinted],
    undecided: list[State],
    budget: int,
    preference: Mapping[Hinted, int],
    samples: int,
    clock: _Clock,
) -> Hint:
    """The hint when no sample is won: the action after which the most of the samples not
    yet decided are still not proved lost within ``budget`` (a sample proved lost before
    the action is lost after any), ties to the heuristic's preference; the heuristic's own
    choice when every sample is proved lost, or when the clock has run out (its first
    choice in ``legal`` when its own is left out: it leads back to where the game has been)."""
    if not undecided or clock.late():
        fallback = heuristic.best(rules, view)
        if fallback is not None and fallback not in legal:
            fallback = min(legal, key=lambda action: preference.get(action, len(preference)))
        return Hint(fallback, 0, samples, "heuristic" if fallback else "none")
    best, _ = _vote(
        legal,
        undecided,
        lambda action, state: (
            clock.late() or solve(rules, apply(state, action)[0], budget).verdict != "lost"
        ),
        lambda action, alive: (-alive, preference.get(action, len(preference))),
    )
    return Hint(best, 0, samples, "heuristic")


def left_out(rules: Ruleset, state: State, action: Hinted) -> bool:
    """Whether ``action`` is a whole column (no face-down card) moving into an empty one,
    taking no run off the table, that the hint leaves out.

    After the deal such a move only renumbers columns. Before it, it decides which column
    a reserve card lands on, and the hint keeps one direction only: out of a column the
    reserve reaches, into one it does not reach or reaches later (so that a reserve card
    lands in the empty column, not on the pile). The way back would be the same kind of
    move, and a position and the one a column away each get their own samples: with both
    directions, the follower of ``classic`` seeds 548, 564 and 869 moved one column to and
    fro until the position came back a third time. Keeping the other direction instead
    wins 71 of classic's 145 winnable deals among seeds 0-1199 rather than 73."""
    if not isinstance(action, Move) or action.index or state.down[action.source - 1]:
        return False
    if state.columns[action.to - 1]:
        return False
    if apply(state, action)[1].removed:
        return False
    if not state.reserve:
        return True
    landing = {column: rank for rank, column in enumerate(rules.reserve_to)}
    source, to = action.source - 1, action.to - 1
    if source not in landing:
        return True
    return to in landing and landing[to] < landing[source]
