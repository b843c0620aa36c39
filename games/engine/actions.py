"""Actions are small value objects; events record them as plain data.

Columns and cells are numbered from 1, as in RULES.md and the API; ``index`` is the
0-based position in a column, bottom card first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Move:
    """Move the face-up card at ``index`` of column ``source`` and everything above it."""

    source: int
    index: int
    to: int


@dataclass(frozen=True, slots=True)
class CellMove:
    """Play the card of cell ``cell`` onto column ``to`` (``three_blind_mice``)."""

    cell: int
    to: int


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal the reserve onto its columns."""


@dataclass(frozen=True, slots=True)
class Undo:
    """Revert the last move or deal still in effect."""


@dataclass(frozen=True, slots=True)
class Restart:
    """Go back to the initial deal."""


@dataclass(frozen=True, slots=True)
class Resign:
    """End the game as resigned."""


Action = Move | CellMove | Deal | Undo | Restart | Resign

#: The event type that records each kind of action.
EVENT_TYPES: dict[type[Action], str] = {
    Move: "moved",
    CellMove: "moved",
    Deal: "dealt",
    Undo: "undone",
    Restart: "restarted",
    Resign: "resigned",
}

_COMMANDS: dict[str, Deal | Undo | Restart | Resign] = {
    "deal": Deal(),
    "undo": Undo(),
    "restart": Restart(),
    "resign": Resign(),
}
_BY_EVENT: dict[str, Deal | Undo | Restart | Resign] = {
    "dealt": Deal(),
    "undone": Undo(),
    "restarted": Restart(),
    "resigned": Resign(),
}


def event_type(action: Action) -> str:
    """The type of the event that records ``action``."""
    return EVENT_TYPES[type(action)]


def event_data(action: Action) -> dict[str, int]:
    """The data of the event that records ``action`` (intent only, no effects)."""
    if isinstance(action, Move):
        return {"from": action.source, "index": action.index, "to": action.to}
    if isinstance(action, CellMove):
        return {"cell": action.cell, "to": action.to}
    return {}


def action_from_event(kind: str, data: Mapping[str, Any]) -> Action:
    """The action an event of type ``kind`` with ``data`` recorded."""
    if kind == "moved":
        if "cell" in data:
            return CellMove(cell=int(data["cell"]), to=int(data["to"]))
        return Move(source=int(data["from"]), index=int(data["index"]), to=int(data["to"]))
    try:
        return _BY_EVENT[kind]
    except KeyError:
        raise ValueError(f"{kind!r} is not an engine event") from None


def action_from_command(command: Mapping[str, Any]) -> Action:
    """The action of an already validated API command such as ``{"type": "deal"}``."""
    kind = command["type"]
    if kind == "move":
        if command.get("cell") is not None:
            return CellMove(cell=int(command["cell"]), to=int(command["to"]))
        return Move(source=int(command["from"]), index=int(command["index"]), to=int(command["to"]))
    return _COMMANDS[kind]


def action_to_command(action: Action) -> dict[str, Any]:
    """The API command that asks for ``action``."""
    if isinstance(action, Move):
        return {"type": "move", "from": action.source, "index": action.index, "to": action.to}
    if isinstance(action, CellMove):
        return {"type": "move", "cell": action.cell, "to": action.to}
    return {"type": type(action).__name__.lower()}
