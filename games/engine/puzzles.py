"""Puzzles: positions of real play where the way to win can be seen from what the player
sees, the tree of every decision they ask for, and the judge of an attempt.

What counts (docs/puzzles.md says why):

- **Seen from what the player sees.** Either every card is face up (no face-down card, the
  reserve dealt), or the position hides at most :data:`MAX_UNSEEN` cards and a move wins
  *for every arrangement* of them: after it, each way the unseen cards could lie is won
  with full information (:func:`classify` solves every arrangement).
- **A decision.** At least one move wins and at most :data:`MAX_WINNING` do (moves that
  lead to the same position up to renumbering columns count once), and at least
  :data:`MIN_LOSING` legal moves lose: a position where many moves win teaches nothing.
- **Decided.** Every legal move of every position the puzzle asks about is proved won or
  proved lost within the solver's budget, so the judge never guesses.

A puzzle is the decisions from its position until the win is no longer in doubt: along
its line (:func:`examine`), until a position where no move loses any more (the rest plays
itself), the game is won, or a move leaves cards unseen (what follows depends on them:
the decision was the move that wins whatever they are). That is its ``length``, at most
:data:`MAX_LENGTH` moves. An attempt is judged against the **tree**: every position that
winning moves reach within that length, each with its winning moves and its losing ones,
each losing one with the reason it loses (:func:`explain`), computed once, when the
puzzle is found. Any winning move is accepted, not only the line's; an attempt ends
solved when it reaches the win, a position where nothing loses, cards unseen, or the
puzzle's length; a losing move ends it failed.

Only rulesets where no move undoes another are mined (:func:`supported`: one deck,
same-suit building, a King only into an empty column): there every move that counts
raises a measure that never falls (docs/solvability.md, the repetition rule needs no
history), so the tree has no cycle. A whole column moved into an empty one after the deal
only renumbers columns: it is neither right nor wrong (:func:`renumbers`).

Pure: the standard library and :mod:`games.engine` only, deterministic.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .actions import Action, CellMove, Deal, Move
from .cards import KING, RANK, card_code
from .errors import RuleViolation
from .game import apply, is_blocked, legal_actions
from .rules import Ruleset
from .solver import solve
from .solver.departures import NEVER, Departures
from .state import LOST, PLAYING, WON, Effects, State, position

#: At most this many cards unseen (face down or in the reserve) in a puzzle's position:
#: 6! = 720 arrangements, each solved after each legal move.
MAX_UNSEEN = 6
#: At most this many moves to find.
MAX_LENGTH = 6
#: At most this many positions in a puzzle's tree.
MAX_NODES = 300
#: At most this many winning moves in a puzzle's position (up to renumbering columns).
MAX_WINNING = 2
#: At least this many losing moves in it.
MIN_LOSING = 1
#: The solver's node budget for each position it decides.
SOLVE_BUDGET = 20_000

#: The themes a puzzle may carry (docs/puzzles.md#themes), in the order they are listed.
THEMES = (
    "only_move",
    "one_move",
    "long",
    "win_in_n",
    "free_column",
    "king_to_empty",
    "reserve_timing",
    "turn_up",
    "run_home",
    "hidden_cards",
)

Verdict = Literal["right", "wrong", "no_progress"]
Puzzled = Move | CellMove | Deal


def supported(rules: Ruleset) -> bool:
    """Whether puzzles of ``rules`` are mined: one deck, same suit, a King only into an
    empty column (no move undoes another)."""
    return rules.decks == 1 and rules.same_suit and rules.king_only_on_empty


def unseen(state: State) -> int:
    """How many cards the player cannot see: face down, and in the reserve."""
    return sum(state.down) + len(state.reserve)


def key(state: State) -> str:
    """The position as the tree keys it: every card where it lies (face-down and reserve
    included), the cells and the runs gone; the same on every machine."""
    text = repr((state.columns, state.down, state.reserve, state.cells, sorted(state.removed)))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def encode(action: Action) -> str:
    """A move as the tree writes it: ``from-index-to``, ``cCELL-to`` or ``deal``."""
    if isinstance(action, Move):
        return f"{action.source}-{action.index}-{action.to}"
    if isinstance(action, CellMove):
        return f"c{action.cell}-{action.to}"
    if isinstance(action, Deal):
        return "deal"
    raise ValueError(f"not a move of a puzzle: {action!r}")


def decode(text: str) -> Puzzled:
    """The move :func:`encode` wrote as ``text``."""
    if text == "deal":
        return Deal()
    if text.startswith("c"):
        cell, to = text[1:].split("-")
        return CellMove(cell=int(cell), to=int(to))
    source, index, to = text.split("-")
    return Move(source=int(source), index=int(index), to=int(to))


def renumbers(state: State, action: Action, effects: Effects) -> bool:
    """Whether ``action`` (with its ``effects``) only renumbers columns: a whole column
    moved into an empty one once the reserve is dealt, taking no run off the table."""
    return (
        isinstance(action, Move)
        and action.index == 0
        and not state.down[action.source - 1]
        and not state.columns[action.to - 1]
        and not state.reserve
        and not effects.removed
    )


def arrangements(state: State) -> Iterator[State]:
    """Every way the unseen cards could lie (each a playing position), the real one
    first: the face-down places column by column, then the reserve in dealing order."""
    places = [(c, i) for c, down in enumerate(state.down) for i in range(down)]
    hidden = [state.columns[c][i] for c, i in places] + list(state.reserve)
    met: set[tuple[int, ...]] = set()
    for order in itertools.permutations(hidden):
        if order in met:
            continue
        met.add(order)
        columns = [list(cards) for cards in state.columns]
        for (c, i), card in zip(places, order, strict=False):
            columns[c][i] = card
        yield position(
            state.rules,
            columns=columns,
            down=state.down,
            reserve=order[len(places) :],
            cells=state.cells,
            removed=state.removed,
            deal=state.deal,
        )


@dataclass(frozen=True, slots=True)
class Node:
    """A position of a puzzle's tree: its winning moves, and its losing ones with why."""

    wins: tuple[str, ...]
    losses: tuple[tuple[str, dict[str, Any]], ...]

    def to_json(self) -> dict[str, Any]:
        return {"w": list(self.wins), "l": [[move, reason] for move, reason in self.losses]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Node:
        return cls(tuple(data["w"]), tuple((move, reason) for move, reason in data["l"]))

    @property
    def settled(self) -> bool:
        """No move loses any more: the rest plays itself."""
        return not self.losses


def classify(rules: Ruleset, state: State, budget: int = SOLVE_BUDGET) -> tuple[Node | None, int]:
    """The position's winning and losing moves, each losing one with its reason; ``None``
    when some verdict is left undecided within ``budget``. Also the solver's nodes spent.

    With cards unseen, a move *wins* when it wins in every arrangement of them that can be
    won at all (it never throws a win away, whatever they are), and *loses* when some
    arrangement that can be won is lost after it. An arrangement lost whatever one does
    says nothing about a move."""
    worlds: list[State] = []
    spent = 0
    for world in arrangements(state):
        found = solve(rules, world, budget)
        spent += found.nodes
        if found.verdict == "unknown":
            return None, spent
        if found.verdict == "won":
            worlds.append(world)
    if not worlds:
        return Node((), ()), spent
    real = worlds[0] if _same_cards(worlds[0], state) else None
    wins: list[str] = []
    losses: list[tuple[str, dict[str, Any]]] = []
    for action in legal_actions(state):
        after, effects = apply(state, action)
        if renumbers(state, action, effects):
            continue
        verdict, lost, nodes, losing = _over_worlds(rules, worlds, action, budget)
        spent += nodes
        if verdict == "unknown":
            return None, spent
        if verdict == "won":
            wins.append(encode(action))
            continue
        assert lost is not None and losing is not None
        reason = explain(rules, losing, action, lost, nodes)
        if losing is not real:
            reason["hidden"] = _hidden_codes(losing)
        losses.append((encode(action), reason))
    return Node(tuple(wins), tuple(losses)), spent


def _same_cards(world: State, state: State) -> bool:
    return world.columns == state.columns and world.reserve == state.reserve


def _over_worlds(
    rules: Ruleset, worlds: Sequence[State], action: Action, budget: int
) -> tuple[str, State | None, int, State | None]:
    """``won`` when ``action`` wins in every world, ``lost`` (with the position after it,
    the solver's nodes there, and the world) when it loses in one, else ``unknown``."""
    undecided = False
    spent = 0
    for world in worlds:
        after = apply(world, action)[0]
        solution = solve(rules, after, budget)
        spent += solution.nodes
        if solution.verdict == "lost":
            return "lost", after, solution.nodes, world
        if solution.verdict == "unknown":
            undecided = True
    return ("unknown" if undecided else "won"), None, spent, None


def _hidden_codes(world: State) -> list[str]:
    """The unseen cards of ``world``, face-down places column by column, then the reserve."""
    cards = [world.columns[c][i] for c, down in enumerate(world.down) for i in range(down)]
    return [card_code(card) for card in (*cards, *world.reserve)]


# --- why a move loses ------------------------------------------------------------------------


def explain(
    rules: Ruleset, before: State, action: Action, after: State, nodes: int
) -> dict[str, Any]:
    """Why ``action`` loses (``after`` is the position it leads to, which the solver
    proved lost in ``nodes`` positions), in terms a player can follow: the game stuck at
    once; a card stuck for good, and what holds it (the stranded cards of
    :mod:`games.engine.solver.departures`); else the search itself."""
    if after.status == LOST or is_blocked(after):
        return {"code": "blocked"}
    stuck = _stuck(rules, after, action)
    if stuck is not None:
        return stuck
    return {"code": "searched", "nodes": nodes}


def _stuck(rules: Ruleset, state: State, action: Action) -> dict[str, Any] | None:
    """A card of ``state`` that can never leave its place though the win needs it to, and
    what holds it; ``None`` when every card that must leave can."""
    columns = [
        bytes((down,)) + bytes(cards) for down, cards in zip(state.down, state.columns, strict=True)
    ]
    free = set(state.reserve) | {card for card in state.cells if card is not None}
    targets = tuple((card + 1,) if card % 13 != 12 else () for card in range(52))
    departures = Departures(columns, free, targets, rules.king_only_on_empty)
    if not departures.missing:
        return None
    order = departures.closure()
    where: list[tuple[int, int]] = [
        (c, j) for c, cards in enumerate(state.columns) for j in range(len(cards))
    ]
    stuck = [i for i in range(departures.total) if departures.needed[i] and order[i] == NEVER]
    if not stuck:
        return None
    landing = action.to - 1 if isinstance(action, Move | CellMove) else -1

    def rank(i: int) -> tuple[int, int, int]:
        c, j = where[i]
        face_down = j < state.down[c]
        return (face_down, c != landing, -j if c == landing else j)

    chosen = min(stuck, key=rank)
    c, j = where[chosen]
    card = state.columns[c][j]
    if j < state.down[c]:
        above = state.columns[c][j + 1]
        return {"code": "buried", "card": card_code(above), "column": c + 1}
    if RANK[card] == KING:
        return {"code": "king_no_column", "card": card_code(card), "column": c + 1}
    needs = card + 1
    spot = next(
        (
            (tc, tj)
            for tc, cards in enumerate(state.columns)
            for tj, x in enumerate(cards)
            if x == needs
        ),
        None,
    )
    found = {"card": card_code(card), "needs": card_code(needs), "column": c + 1}
    if spot is None:
        return {"code": "stuck", **found}
    tc, tj = spot
    if tc == c and tj < j:
        return {"code": "under_it", **found}
    if tc == c:
        return {"code": "above_it", **found}
    if tj + 1 < len(state.columns[tc]):
        cover = state.columns[tc][tj + 1]
        return {"code": "covered", **found, "cover": card_code(cover), "at": tc + 1}
    return {"code": "stuck", **found}


# --- finding a puzzle ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Found:
    """A puzzle found in a position: its tree (by :func:`key`), the line the solver
    found, its length, its themes, ``win_in`` (the line's length when it ends in the win),
    how many moves win and how many there are at its position (up to renumbering
    columns), the cards it leaves unseen, the solver's nodes spent, and its difficulty in
    [0, 1]."""

    nodes: dict[str, Node]
    line: tuple[Puzzled, ...]
    length: int
    themes: tuple[str, ...]
    win_in: int | None
    winning: int
    choices: int
    unseen: int
    searched: int
    difficulty: float


class _Budget:
    """The solver's nodes and the tree's positions a search may still spend."""

    def __init__(self, max_nodes: int, deadline: Callable[[], bool] | None) -> None:
        self.positions = max_nodes
        self.spent = 0
        self.late = deadline or (lambda: False)


def examine(
    rules: Ruleset,
    state: State,
    *,
    budget: int = SOLVE_BUDGET,
    max_length: int = MAX_LENGTH,
    max_nodes: int = MAX_NODES,
    max_unseen: int = MAX_UNSEEN,
    max_winning: int = MAX_WINNING,
    min_losing: int = MIN_LOSING,
    late: Callable[[], bool] | None = None,
) -> Found | None:
    """The puzzle at ``state`` (see the module's docstring), or ``None`` when it is not
    one: too much unseen, not won, too many winning moves, too few losing ones, a line
    longer than ``max_length``, a tree larger than ``max_nodes``, a move undecided within
    ``budget``, or ``late()`` true before the end."""
    if not supported(rules) or state.status != PLAYING or unseen(state) > max_unseen:
        return None
    first = solve(rules, state, budget)
    if first.verdict != "won":
        return None
    spend = _Budget(max_nodes, late)
    spend.spent = first.nodes
    root, nodes = _classified(rules, state, budget, spend)
    spend.spent += nodes
    if root is None:
        return None
    winning = _distinct(state, root.wins)
    if not 1 <= winning <= max_winning or len(root.losses) < min_losing:
        return None
    tree = {key(state): root}
    line = _line(rules, state, root, first.line, tree, budget, max_length, spend)
    if line is None:
        return None
    length = len(line)
    if not _grow(rules, state, tree, length, budget, spend):
        return None
    states = [state]
    effects: list[Effects] = []
    for action in line:
        after, done = apply(states[-1], action)
        states.append(after)
        effects.append(done)
    choices = winning + _distinct(state, [move for move, _ in root.losses])
    return Found(
        nodes=tree,
        line=line,
        length=length,
        themes=_themes(state, root, line, states, effects, winning),
        win_in=length if states[-1].status == WON else None,
        winning=winning,
        choices=choices,
        unseen=unseen(state),
        searched=spend.spent,
        difficulty=difficulty(winning, choices, length, unseen(state), first.nodes),
    )


def _classified(
    rules: Ruleset, state: State, budget: int, spend: _Budget
) -> tuple[Node | None, int]:
    if spend.late():
        return None, 0
    return classify(rules, state, budget)


def _line(
    rules: Ruleset,
    state: State,
    root: Node,
    solved: Sequence[Action],
    tree: dict[str, Node],
    budget: int,
    max_length: int,
    spend: _Budget,
) -> tuple[Puzzled, ...] | None:
    """The puzzle's line from ``state``: the solver's move where it wins, else the first
    winning move, until the end (the module's docstring); ``None`` when longer than
    ``max_length`` or undecided. Classifies the positions along it into ``tree``."""
    line: list[Puzzled] = []
    node = root
    suggested = solved[0] if solved else None
    while True:
        chosen = decode(
            encode(suggested)
            if suggested is not None and encode(suggested) in node.wins
            else node.wins[0]
        )
        state = apply(state, chosen)[0]
        line.append(chosen)
        if _terminal(state):
            return tuple(line)
        here = tree.get(key(state))
        if here is None:
            here, nodes = _classified(rules, state, budget, spend)
            spend.spent += nodes
            if here is None:
                return None
            tree[key(state)] = here
        if here.settled:
            return tuple(line)
        if len(line) >= max_length:
            return None
        node = here
        following = solve(rules, state, budget)
        spend.spent += following.nodes
        suggested = following.line[0] if following.line else None


def _terminal(state: State) -> bool:
    """Whether an attempt that reaches ``state`` by a winning move ends there whatever
    else: the game is won, or cards are unseen (what follows depends on them)."""
    return state.status == WON or unseen(state) > 0


def _grow(
    rules: Ruleset, root: State, tree: dict[str, Node], length: int, budget: int, spend: _Budget
) -> bool:
    """Classify every position winning moves reach from ``root`` in fewer than ``length``
    moves, into ``tree``; False when one is undecided or the tree outgrows its bound."""
    frontier = [root]
    expanded = {key(root)}
    for _depth in range(1, length):
        following: list[State] = []
        for state in frontier:
            node = tree[key(state)]
            if node.settled:
                continue
            for move in node.wins:
                after = apply(state, decode(move))[0]
                k = key(after)
                if _terminal(after) or k in expanded:
                    continue
                expanded.add(k)
                if k not in tree:
                    if len(tree) >= spend.positions:
                        return False
                    found, nodes = _classified(rules, after, budget, spend)
                    spend.spent += nodes
                    if found is None:
                        return False
                    tree[k] = found
                following.append(after)
        frontier = following
    return True


def _distinct(state: State, moves: Sequence[str]) -> int:
    """How many positions ``moves`` lead to, up to renumbering columns (once the reserve
    is dealt; before it, columns keep their numbers, where the reserve lands)."""
    shapes = set()
    for move in moves:
        after = apply(state, decode(move))[0]
        columns = list(zip(after.columns, after.down, strict=True))
        if not after.reserve:
            columns.sort()
        shapes.add(
            (
                tuple(columns),
                len(after.reserve),
                tuple(sorted(c for c in after.cells if c is not None)),
            )
        )
    return len(shapes)


def _themes(
    state: State,
    root: Node,
    line: Sequence[Puzzled],
    states: Sequence[State],
    effects: Sequence[Effects],
    winning: int,
) -> tuple[str, ...]:
    """The themes of a puzzle (docs/puzzles.md#themes), from its root and its line."""
    found: set[str] = set()
    if winning == 1:
        found.add("only_move")
    if len(line) == 1:
        found.add("one_move")
    if len(line) >= 4:
        found.add("long")
    if states[-1].status == WON:
        found.add("win_in_n")
    if unseen(state) > 0:
        found.add("hidden_cards")
    if "deal" in root.wins or any(move == "deal" for move, _ in root.losses):
        found.add("reserve_timing")
    for before, action, after, done in zip(states, line, states[1:], effects, strict=False):
        empty_before = sum(1 for cards in before.columns if not cards)
        if sum(1 for cards in after.columns if not cards) > empty_before:
            found.add("free_column")
        if (
            isinstance(action, Move)
            and not before.columns[action.to - 1]
            and RANK[before.columns[action.source - 1][action.index]] == KING
        ):
            found.add("king_to_empty")
        if isinstance(action, CellMove) and not before.columns[action.to - 1]:
            found.add("king_to_empty")
        if done.flipped:
            found.add("turn_up")
        if done.removed:
            found.add("run_home")
    return tuple(theme for theme in THEMES if theme in found)


#: The solver's effort counts on a logarithmic scale up to this many nodes.
EFFORT_NODES = 1_000_000


def difficulty(winning: int, choices: int, length: int, hidden: int, nodes: int) -> float:
    """A puzzle's difficulty in [0, 1] (docs/puzzles.md#ratings): how few of the moves
    win, how many moves it asks for, whether cards are unseen, and the solver's effort."""
    narrow = 1.0 - winning / max(1, choices)
    long = min(1.0, (length - 1) / 4)
    effort = min(1.0, math.log1p(max(0, nodes)) / math.log1p(EFFORT_NODES))
    value = 0.4 * narrow + 0.3 * long + 0.15 * (1.0 if hidden else 0.0) + 0.15 * effort
    return round(min(1.0, max(0.0, value)), 4)


# --- judging an attempt ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Judged:
    """What the judge says of one move: ``right`` (it wins), ``wrong`` (it loses: the
    attempt ends, with ``reason``) or ``no_progress`` (it only renumbers columns: refused,
    the attempt goes on); the position after a right or wrong move and its effects, and
    whether the attempt ends there."""

    verdict: Verdict
    state: State
    effects: Effects
    end: bool
    reason: dict[str, Any] | None = None


class Unjudged(LookupError):
    """The position is not in the puzzle's tree (never, for a tree that :func:`examine`
    made): the caller may :func:`classify` it."""


def judge(
    state: State,
    action: Action,
    *,
    tree: Mapping[str, Mapping[str, Any]],
    length: int,
    played: int,
    node: Node | None = None,
) -> Judged:
    """Judge ``action`` in ``state``, the position after ``played`` winning moves of an
    attempt at a puzzle of ``length`` whose tree is ``tree`` (as stored: :meth:`Node.to_json`
    by :func:`key`). ``node`` gives the position's node when the caller classified it.
    :class:`RuleViolation` for a move the rules refuse; :class:`Unjudged` for a position
    missing from the tree (a winning move that leads to one ends the attempt, solved)."""
    if not isinstance(action, Move | CellMove | Deal):
        raise RuleViolation("game_over")  # never sent: the API parses moves and deals only
    after, effects = apply(state, action)
    if renumbers(state, action, effects):
        return Judged("no_progress", state, Effects(), end=False)
    if node is None:
        stored = tree.get(key(state))
        if stored is None:
            raise Unjudged(key(state))
        node = Node.from_json(stored)
    move = encode(action)
    for losing, reason in node.losses:
        if losing == move:
            return Judged("wrong", after, effects, end=True, reason=dict(reason))
    if move not in node.wins:
        raise Unjudged(key(state))
    try:
        end = ends(after, tree=tree, length=length, played=played + 1)
    except Unjudged:  # a position the tree does not hold: the attempt ends there, solved
        end = True
    return Judged("right", after, effects, end=end)


def ends(state: State, *, tree: Mapping[str, Mapping[str, Any]], length: int, played: int) -> bool:
    """Whether an attempt that reached ``state`` with ``played`` winning moves is solved:
    the win, cards unseen, the puzzle's length, or a position where nothing loses."""
    if _terminal(state) or played >= length:
        return True
    stored = tree.get(key(state))
    if stored is None:
        raise Unjudged(key(state))
    return not stored["l"]
