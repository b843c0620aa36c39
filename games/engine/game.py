"""Applying actions, listing legal ones, and the ``blocked`` flag.

``apply`` checks legality once, in the order of precedence of docs/rules.md#precedence,
then builds the next state from tuples it shares with the previous one: a move copies only
the two columns it touches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .actions import Action, CellMove, Deal, Move, Resign, Restart, Undo
from .cards import ACE, KING, RANK, RUNS, SUIT, Card
from .errors import RuleViolation
from .rules import Ruleset
from .state import LOST, PLAYING, RESIGNED, WON, Effects, State, layout, new_game

#: Cards that ``card`` may be built on, by ``same_suit``: one card, or one per suit.
_TARGETS_SAME_SUIT: tuple[tuple[Card, ...], ...] = tuple(
    (card + 1,) if RANK[card] < KING else () for card in range(52)
)
_TARGETS_ANY_SUIT: tuple[tuple[Card, ...], ...] = tuple(
    tuple(suit * 13 + RANK[card] for suit in range(4)) if RANK[card] < KING else ()
    for card in range(52)
)

#: A placement onto a card of the same suit scores this; so does each card turned up.
SAME_SUIT_POINTS = 5
FLIP_POINTS = 5
RUN_POINTS = 100


def apply(state: State, action: Action) -> tuple[State, Effects]:
    """The state after ``action`` and what it caused.

    Raises :class:`RuleViolation` with its code (docs/rules.md#rejections) when the rules
    refuse the action; ``state`` is never changed.
    """
    if state.status != PLAYING:
        raise RuleViolation("game_over")
    kind = type(action)
    if kind is Move:
        assert isinstance(action, Move)
        return _move(state, action)
    if kind is CellMove:
        assert isinstance(action, CellMove)
        return _cell_move(state, action)
    if kind is Deal:
        return _deal(state)
    if kind is Undo:
        return _undo(state)
    if kind is Restart:
        return _restart(state)
    if kind is Resign:
        return _derive(state, status=RESIGNED), Effects()
    raise TypeError(f"not an action: {action!r}")


def replay(rules: Ruleset, deal: Iterable[Card], actions: Iterable[Action]) -> State:
    """The state after applying ``actions`` in order to the initial state of ``deal``."""
    state = new_game(rules, tuple(deal))
    for action in actions:
        state = apply(state, action)[0]
    return state


def is_blocked(state: State) -> bool:
    """``blocked`` (docs/rules.md#blocked): playing, the reserve empty, and no move that counts.

    Whole-column moves into an empty column do not count, nor, under the repetition rule,
    moves back to a position already seen on this line of play.
    """
    if state.blocked_cache is None:
        state.blocked_cache = (
            state.status == PLAYING and not state.reserve and not _has_progress(state)
        )
    return state.blocked_cache


def legal_moves(state: State) -> list[Move | CellMove]:
    """Every move the rules accept now, ordered by source, index, then destination."""
    if state.status != PLAYING:
        return []
    moves: list[Move | CellMove] = [
        Move(source=f + 1, index=i, to=t + 1) for f, i, t in sorted(_column_moves(state, False))
    ]
    moves.extend(CellMove(cell=n + 1, to=t + 1) for n, t in sorted(_cell_moves(state)))
    return moves


def can_deal(state: State) -> bool:
    """Whether a deal would be accepted now."""
    return (
        state.status == PLAYING
        and bool(state.reserve)
        and (state.rules.deal_any_time or not _has_progress(state))
    )


def legal_actions(state: State) -> list[Move | CellMove | Deal]:
    """Every legal move, then the deal when it is allowed (no undo, restart or resign)."""
    actions: list[Move | CellMove | Deal] = [*legal_moves(state)]
    if can_deal(state):
        actions.append(Deal())
    return actions


# --- moves -----------------------------------------------------------------------------


def _placement_points(rules: Ruleset, card: Card, target: tuple[Card, ...], whole: bool) -> int:
    """Points for putting ``card`` on column ``target``, or the rule's refusal."""
    if not target:
        if rules.king_only_on_empty and RANK[card] != KING:
            raise RuleViolation("only_king_on_empty")
        if whole and not rules.whole_column_to_empty:
            raise RuleViolation("whole_column_king")
        return 0
    top = target[-1]
    if RANK[top] != RANK[card] + 1:
        raise RuleViolation("wrong_rank")
    if SUIT[top] != SUIT[card]:
        if rules.same_suit:
            raise RuleViolation("not_same_suit")
        return 0
    return SAME_SUIT_POINTS


def _move(state: State, action: Move) -> tuple[State, Effects]:
    columns = state.columns
    source, to = action.source - 1, action.to - 1
    count = len(columns)
    if not (0 <= source < count and 0 <= to < count):
        raise RuleViolation("bad_column")
    cards = columns[source]
    index = action.index
    if not 0 <= index < len(cards):
        raise RuleViolation("bad_index")
    if source == to:
        raise RuleViolation("same_column")
    down = state.down[source]
    if index < down:
        raise RuleViolation("card_face_down")
    points = _placement_points(state.rules, cards[index], columns[to], index == 0)
    new_columns = list(columns)
    new_down = list(state.down)
    flipped: list[tuple[int, Card]] = []
    points += _lift(new_columns, new_down, source, index, to, flipped)
    return _after_placing(state, new_columns, new_down, state.cells, (to,), points, flipped)


def _lift(
    columns: list[tuple[Card, ...]],
    down: list[int],
    source: int,
    index: int,
    to: int,
    flipped: list[tuple[int, Card]],
) -> int:
    """Move the group at ``index`` of ``source`` onto ``to``; turn up what it uncovers."""
    cards = columns[source]
    columns[source] = cards[:index]
    columns[to] = columns[to] + cards[index:]
    if index and index == down[source]:
        down[source] = index - 1
        flipped.append((source + 1, cards[index - 1]))
        return FLIP_POINTS
    return 0


def _cell_move(state: State, action: CellMove) -> tuple[State, Effects]:
    cells = state.cells
    cell, to = action.cell - 1, action.to - 1
    if not (0 <= cell < len(cells) and 0 <= to < len(state.columns)):
        raise RuleViolation("bad_column")
    card = cells[cell]
    if card is None:
        raise RuleViolation("bad_index")
    target = state.columns[to]
    points = _placement_points(state.rules, card, target, False)
    new_columns = list(state.columns)
    new_columns[to] = target + (card,)
    new_cells = list(cells)
    new_cells[cell] = None
    return _after_placing(state, new_columns, list(state.down), tuple(new_cells), (to,), points, [])


def _deal(state: State) -> tuple[State, Effects]:
    if not state.reserve:
        raise RuleViolation("reserve_empty")
    rules = state.rules
    if not rules.deal_any_time and _has_progress(state):
        raise RuleViolation("reserve_locked")
    new_columns = list(state.columns)
    for card, column in zip(state.reserve, rules.reserve_to, strict=True):
        new_columns[column] = new_columns[column] + (card,)
    return _after_placing(
        state, new_columns, list(state.down), state.cells, rules.reserve_to, 0, [], reserve=()
    )


def _after_placing(
    state: State,
    columns: list[tuple[Card, ...]],
    down: list[int],
    cells: tuple[Card | None, ...],
    touched: tuple[int, ...],
    points: int,
    flipped: list[tuple[int, Card]],
    reserve: tuple[Card, ...] | None = None,
) -> tuple[State, Effects]:
    """Finish a move or deal: sequence check, status, history, the new state."""
    rules = state.rules
    removed: list[tuple[int, int]] = []
    points += _settle(rules, columns, down, touched, removed, flipped)
    suits = state.removed + tuple(suit for _, suit in removed) if removed else state.removed
    if rules.sequences == "stay":
        won = _every_column_a_run(columns, down)
    else:
        won = len(suits) >= rules.sequences_to_win
    depth = rules.undo_depth
    budget = state.undo_budget + 1
    if depth is not None and budget > depth:
        budget = depth
    after = State(
        rules,
        state.deal,
        tuple(columns),
        tuple(down),
        state.reserve if reserve is None else reserve,
        cells,
        suits,
        state.score + points,
        state.moves + 1,
        state.undos,
        WON if won else PLAYING,
        state.ply + 1,
        (state, state.ply + 1),
        budget,
        state.seen,
    )
    if rules.repeats_are_not_moves:
        after.seen = state.seen | {after.position()}
    if rules.lose_when_blocked and not won and is_blocked(after):
        after.status = LOST
        after.blocked_cache = False
    return after, Effects(points, tuple(flipped), tuple(removed))


def _settle(
    rules: Ruleset,
    columns: list[tuple[Card, ...]],
    down: list[int],
    touched: Iterable[int],
    removed: list[tuple[int, int]],
    flipped: list[tuple[int, Card]],
) -> int:
    """The sequence check: take every complete face-up run K..A off the end of the columns
    the ruleset checks (``touched`` ones, or all), turning up what that uncovers."""
    if rules.sequences == "stay":
        return 0
    checked = touched if rules.sequences == "destination" else range(len(columns))
    points = 0
    for column in checked:
        cards = columns[column]
        while (
            len(cards) - down[column] >= 13
            and RANK[cards[-1]] == ACE
            and cards[-13:] == RUNS[SUIT[cards[-1]]]
        ):
            removed.append((column + 1, SUIT[cards[-1]]))
            cards = cards[:-13]
            points += RUN_POINTS
            if cards and len(cards) == down[column]:
                down[column] -= 1
                flipped.append((column + 1, cards[-1]))
                points += FLIP_POINTS
            columns[column] = cards
    return points


def _every_column_a_run(columns: list[tuple[Card, ...]], down: list[int]) -> bool:
    return all(
        not cards or (len(cards) == 13 and not down[c] and cards == RUNS[SUIT[cards[0]]])
        for c, cards in enumerate(columns)
    )


# --- undo, restart --------------------------------------------------------------------------


def _undo(state: State) -> tuple[State, Effects]:
    previous = state.previous
    if previous is None:
        raise RuleViolation("nothing_to_undo")
    if state.undo_budget <= 0:
        raise RuleViolation("undo_limit")
    before, undone_ply = previous
    after = _derive(
        before,
        moves=state.moves,
        undos=state.undos + 1,
        ply=state.ply + 1,
        undo_budget=state.undo_budget - 1,
    )
    after.blocked_cache = before.blocked_cache
    return after, Effects(points=before.score - state.score, undid=undone_ply)


def _restart(state: State) -> tuple[State, Effects]:
    fresh = layout(state.rules, state.deal)
    after = _derive(fresh, moves=state.moves, undos=state.undos, ply=state.ply + 1)
    return after, Effects(points=-state.score)


def _derive(
    state: State,
    *,
    status: str | None = None,
    moves: int | None = None,
    undos: int | None = None,
    ply: int | None = None,
    undo_budget: int | None = None,
) -> State:
    return State(
        state.rules,
        state.deal,
        state.columns,
        state.down,
        state.reserve,
        state.cells,
        state.removed,
        state.score,
        state.moves if moves is None else moves,
        state.undos if undos is None else undos,
        state.status if status is None else status,
        state.ply + 1 if ply is None else ply,
        state.previous,
        state.undo_budget if undo_budget is None else undo_budget,
        state.seen,
    )


# --- move generation ------------------------------------------------------------------------


def _column_moves(state: State, progress_only: bool) -> Iterator[tuple[int, int, int]]:
    """``(source, index, to)`` 0-based for every legal column move.

    With ``progress_only``, whole-column moves into an empty column are left out.
    """
    rules = state.rules
    columns = state.columns
    targets = _TARGETS_SAME_SUIT if rules.same_suit else _TARGETS_ANY_SUIT
    tops: dict[Card, list[int]] = {}
    empty: list[int] = []
    for c, cards in enumerate(columns):
        if cards:
            tops.setdefault(cards[-1], []).append(c)
        else:
            empty.append(c)
    king_only = rules.king_only_on_empty
    whole_allowed = rules.whole_column_to_empty and not progress_only
    for source, cards in enumerate(columns):
        for index in range(state.down[source], len(cards)):
            card = cards[index]
            for target in targets[card]:
                for to in tops.get(target, ()):
                    if to != source:
                        yield source, index, to
            if empty and (not king_only or RANK[card] == KING) and (index or whole_allowed):
                for to in empty:
                    yield source, index, to


def _cell_moves(state: State) -> Iterator[tuple[int, int]]:
    """``(cell, to)`` 0-based for every legal move out of a cell."""
    rules = state.rules
    targets = _TARGETS_SAME_SUIT if rules.same_suit else _TARGETS_ANY_SUIT
    for cell, card in enumerate(state.cells):
        if card is None:
            continue
        for to, cards in enumerate(state.columns):
            if cards:
                if cards[-1] in targets[card]:
                    yield cell, to
            elif not rules.king_only_on_empty or RANK[card] == KING:
                yield cell, to


def _has_progress(state: State) -> bool:
    """Whether some move counts as possible in the sense of ``blocked``."""
    if any(True for _ in _cell_moves(state)):
        return True
    if not state.rules.repeats_are_not_moves:
        return any(True for _ in _column_moves(state, True))
    rules = state.rules
    for source, index, to in _column_moves(state, True):
        columns = list(state.columns)
        down = list(state.down)
        _lift(columns, down, source, index, to, [])
        _settle(rules, columns, down, (to,), [], [])
        if (tuple(columns), tuple(down), len(state.reserve), state.cells) not in state.seen:
            return True
    return False
