"""What a player may see of a state: the only way a state leaves the engine for a client.

Face-down cards are ``None`` and the reserve is a count. ``reveal=True`` shows every card
and is meant for finished games and staff only.
"""

from __future__ import annotations

from typing import Any

from .actions import Action, CellMove, Deal, Move
from .cards import card_code, suit_code
from .game import is_blocked
from .state import State


def player_view(state: State, *, reveal: bool = False) -> dict[str, Any]:
    """The game as a player sees it, JSON-ready; ``reveal`` adds the hidden cards."""
    columns: list[list[str | None]] = []
    for cards, down in zip(state.columns, state.down, strict=True):
        shown: list[str | None] = [card_code(card) for card in cards]
        if not reveal:
            shown[:down] = [None] * down
        columns.append(shown)
    view: dict[str, Any] = {
        "status": state.status,
        "blocked": is_blocked(state),
        "score": state.score,
        "moves": state.moves,
        "undos": state.undos,
        "reserve": len(state.reserve),
        "removed": [suit_code(suit) for suit in state.removed],
        "columns": columns,
    }
    if state.rules.cells:
        view["cells"] = [None if card is None else card_code(card) for card in state.cells]
    if reveal:
        view["reserve_cards"] = [card_code(card) for card in state.reserve]
    return view


def describe_action(state: State, action: Action) -> dict[str, Any]:
    """``action`` as an entry of the API's move list: a move names the card it takes.

    Only ever called with moves of face-up cards, so the card shown is public.
    """
    if isinstance(action, Move):
        card = state.card_at(action.source, action.index)
        return {
            "type": "move",
            "from": action.source,
            "index": action.index,
            "to": action.to,
            "card": None if card is None else card_code(card),
        }
    if isinstance(action, CellMove):
        held = state.cells[action.cell - 1]
        return {
            "type": "move",
            "cell": action.cell,
            "to": action.to,
            "card": None if held is None else card_code(held),
        }
    if isinstance(action, Deal):
        return {"type": "deal"}
    return {"type": type(action).__name__.lower()}
