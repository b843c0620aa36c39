"""The one-move heuristic: the best-looking action by a fixed measure of progress, from
what the player sees and nothing else.

The hint (:mod:`games.engine.hint`) falls back on it where its samples decide nothing, and
breaks its ties by it. :func:`best` and :func:`ranked` take a
:func:`~games.engine.player_view` and never a state, so a face-down card or the reserve
cannot influence them: the hidden cards are replaced by placeholders before any rule runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import CellMove, Deal, Move
from .cards import KING, RANK, SUIT, SUITS, parse_card
from .game import apply, legal_actions
from .rules import Ruleset
from .state import PLAYING, State, position

_PLACEHOLDER = 0  # stands for any hidden card; hidden cards are never moved or built on

# How much each kind of progress is worth to the heuristic.
_COMPLETES_RUN = 100
_TURNS_UP_CARD = 50
_EMPTIES_FOR_KING = 30
_EMPTIES_COLUMN = 10
_FREES_CELL = 20
_KING_TO_EMPTY = 15
_SAME_SUIT = 5
_DEAL = 1
_BREAKS_BUILT_PAIR = -20


def best(rules: Ruleset, view: Mapping[str, Any]) -> Move | CellMove | Deal | None:
    """The best action for the position ``view`` shows, or ``None`` when there is none.

    Prefers moves that complete a run, turn up a face-down card or empty a column that a
    King can use; never suggests a whole column moving into an empty one.
    """
    if view["status"] != PLAYING:
        return None
    state = _visible_state(rules, view)
    best: Move | CellMove | Deal | None = None
    best_score = None
    for action in legal_actions(state):
        score = _worth(state, action)
        if score is not None and (best_score is None or score > best_score):
            best, best_score = action, score
    return best


def ranked(rules: Ruleset, view: Mapping[str, Any]) -> list[Move | CellMove | Deal]:
    """Every legal action of the position ``view`` shows, best first by the same measure
    as :func:`best` (pointless ones last); empty for a finished game."""
    if view["status"] != PLAYING:
        return []
    state = _visible_state(rules, view)
    scored = [
        (_worth(state, action), rank, action) for rank, action in enumerate(legal_actions(state))
    ]
    scored.sort(key=lambda item: (item[0] is None, -(item[0] or 0), item[1]))
    return [action for _, _, action in scored]


def _visible_state(rules: Ruleset, view: Mapping[str, Any]) -> State:
    columns = []
    down = []
    for shown in view["columns"]:
        hidden = sum(1 for code in shown if code is None)
        columns.append(tuple(_PLACEHOLDER if code is None else parse_card(code) for code in shown))
        down.append(hidden)
    cells = tuple(None if code is None else parse_card(code) for code in view.get("cells", ()))
    return position(
        rules,
        columns=columns,
        down=down,
        reserve=(_PLACEHOLDER,) * int(view["reserve"]),
        cells=cells,
        removed=[SUITS.index(suit) for suit in view["removed"]],
    )


def _worth(state: State, action: Move | CellMove | Deal) -> int | None:
    """How good ``action`` looks from the visible position; ``None`` for a pointless one."""
    if isinstance(action, Deal):
        return _DEAL
    _, effects = apply(state, action)
    score = _COMPLETES_RUN * len(effects.removed)
    if isinstance(action, CellMove):
        card = state.cells[action.cell - 1]
        assert card is not None
        target = state.columns[action.to - 1]
        score += _FREES_CELL
    else:
        source = action.source - 1
        cards = state.columns[source]
        card = cards[action.index]
        target = state.columns[action.to - 1]
        down = state.down[source]
        if action.index == 0 and not down:
            if not target:
                return None  # a whole column into an empty one changes nothing
            score += _EMPTIES_FOR_KING if _king_waiting(state, source) else _EMPTIES_COLUMN
        if action.index and action.index == down:
            score += _TURNS_UP_CARD
        if action.index > down:
            below = cards[action.index - 1]
            if RANK[below] == RANK[card] + 1 and SUIT[below] == SUIT[card]:
                score += _BREAKS_BUILT_PAIR
        if not target and RANK[card] == KING:
            score += _KING_TO_EMPTY
    if target and SUIT[target[-1]] == SUIT[card]:
        score += _SAME_SUIT
    return score


def _king_waiting(state: State, emptied: int) -> bool:
    """Whether a King outside column ``emptied`` could use an empty column."""
    for c, cards in enumerate(state.columns):
        if c == emptied:
            continue
        if any(RANK[card] == KING for card in cards[max(state.down[c], 1) :]):
            return True
    return any(card is not None and RANK[card] == KING for card in state.cells)
