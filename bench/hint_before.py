"""The hint as it was before it spent the native core's speed: the baseline of
bench/hints.py (``--before``), kept here unchanged so that one run measures both on the
same deals. It is not served.

Hints from the player's view: sample what the player cannot see, solve each sample.

``hint(rules, view)`` takes a player's view (face-down cards ``None``, the reserve a
count) and never a state, so no hidden card can reach it. It deals the unseen cards (the
deck less every card the view shows) into the face-down places and the reserve ``samples``
times, solves each completion with full information under a small budget, and recommends
the action that wins in the most of them. When no sample is won within the budget, it
recommends the action after which the fewest samples are proved lost (ties, and positions
lost in every sample, go to the one-move heuristic of :mod:`games.engine.heuristic`).

A whole column moving into an empty one is suggested only before the deal and in one
direction (see :func:`left_out`): after the deal it only renumbers columns, so it keeps every
won sample won and would tie the best move in every position, and a player who follows
the hint could go back and forth between two columns for ever.

The samples are drawn from the view alone: the random stream is seeded with a digest of the
view (its board: columns, reserve size, removed runs, cells, status), never from a game's
id, seed or hidden cards. So one visible position gets one hint, in any game.

What the player remembers but no longer sees (a card turned up and then turned down again
by an undo) is not used: the view is all the hint knows.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from games.engine import heuristic
from games.engine.actions import Action, CellMove, Deal, Move
from games.engine.cards import SUITS, Card, new_deck, parse_card
from games.engine.deals import MAX_SEED, shuffle
from games.engine.game import apply, legal_actions
from games.engine.rules import Ruleset
from games.engine.solver import solve
from games.engine.state import PLAYING, State, position

#: How many completions a hint samples, and the solver's node budget for each.
SAMPLES = 32
SAMPLE_BUDGET = 400

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
    unseen = unseen_cards(rules, view)
    digest = view_digest(rules, view)
    removed = [SUITS.index(letter) for letter in view["removed"]]
    cells = tuple(None if code is None else parse_card(code) for code in view.get("cells") or ())
    states = []
    for sample in range(count):
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
        states.append(
            position(
                rules, columns=columns, down=down, reserve=reserve, cells=cells, removed=removed
            )
        )
    return states


def hint(
    rules: Ruleset,
    view: Mapping[str, Any],
    *,
    samples: int = SAMPLES,
    budget: int = SAMPLE_BUDGET,
) -> Hint:
    """The hint for the position ``view`` shows (see the module's docstring).

    Each sample is solved within ``budget`` nodes. In a sample the solver wins, every
    legal action is then tried: it *wins in that sample* when the position after it is
    still won within the budget (the solver's own first move does by construction). The
    hint is the action that wins in the most samples; ties go to the action the one-move
    heuristic prefers (turning up a card before committing to a plan, say), then to the
    one more winning lines started with, then to the order of ``/moves``. A sample the
    solver does not win cannot be won after any action, or was not decided within the
    budget: it counts for no action.

    When no sample is won, the samples the solver did not decide are searched again after
    each action, and the hint is the action after which the most of them are not proved
    lost (``source`` ``heuristic``, ``wins`` 0): on classic seeds 0-899 this wins one
    winnable deal more than the heuristic's choice did, at no cost in latency, since most
    of those searches end in a few nodes.
    """
    if view["status"] != PLAYING:
        return Hint(None, 0, 0, "none")
    states = completions(rules, view, samples)
    legal: Sequence[Hinted] = (
        [action for action in legal_actions(states[0]) if not left_out(rules, states[0], action)]
        if states
        else ()
    )
    if not legal:
        return Hint(None, 0, samples, "none")
    order = {action: rank for rank, action in enumerate(legal)}
    preference = {action: rank for rank, action in enumerate(heuristic.ranked(rules, view))}
    first_moves: Counter[Hinted] = Counter()
    won: list[tuple[State, Hinted]] = []
    undecided: list[State] = []
    for state in states:
        solution = solve(rules, state, budget)
        if solution.verdict == "won" and solution.line:
            first: Action = solution.line[0]
            if isinstance(first, Move | CellMove | Deal) and first in order:
                first_moves[first] += 1
                won.append((state, first))
        elif solution.verdict == "unknown":
            undecided.append(state)
    if not won:
        return _least_lost(rules, view, legal, undecided, budget, preference, samples)

    def rank(action: Hinted, wins: int) -> tuple[int, int, int, int]:
        return (
            -wins,
            preference.get(action, len(preference)),
            -first_moves[action],
            order[action],
        )

    best, wins = _vote(
        legal,
        won,
        lambda action, trial: trial[1] == action or _still_won(rules, trial[0], action, budget),
        rank,
    )
    return Hint(best, wins, samples, "solver")


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
) -> Hint:
    """The hint when no sample is won: the action after which the most of the samples not
    yet decided are still not proved lost within ``budget`` (a sample proved lost before
    the action is lost after any), ties to the heuristic's preference; the heuristic's own
    choice when every sample is proved lost."""
    if not undecided:
        fallback = heuristic.best(rules, view)
        return Hint(fallback, 0, samples, "heuristic" if fallback else "none")
    best, _ = _vote(
        legal,
        undecided,
        lambda action, state: solve(rules, apply(state, action)[0], budget).verdict != "lost",
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


def _still_won(rules: Ruleset, state: State, action: Hinted, budget: int) -> bool:
    """Whether the solver wins ``state`` after ``action`` within ``budget`` nodes."""
    after = apply(state, action)[0]
    return solve(rules, after, budget).verdict == "won"
