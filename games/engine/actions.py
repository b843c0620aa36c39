"""Actions are small value objects, and commands their plain-data notation.

(Events record actions too; their vocabulary is the server's, in ``games.store.events``.)

Columns and cells are numbered from 1, as in docs/rules.md and the API; ``index`` is the
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

_COMMANDS: dict[str, Deal | Undo | Restart | Resign] = {
    "deal": Deal(),
    "undo": Undo(),
    "restart": Restart(),
    "resign": Resign(),
}


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
