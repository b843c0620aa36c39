"""What the notation carries of a game (a :class:`Transcript`) and how the reader refuses a
text (:class:`NotationError`)."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from games.store import events


@dataclass(frozen=True, slots=True)
class Entry:
    """One event of a game: what it records, when (to the millisecond, UTC), by whom, and
    the comments that follow it in the text.

    ``by`` of a player's event (all but moderation) is the game's player; of a moderation
    event, the moderator.
    """

    event: events.GameEvent
    at: dt.datetime | None = None
    by: str | None = None
    comments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Transcript:
    """A game as the notation writes it: its events in ``seq`` order, ``created`` first, its
    id and its player's username (each ``None`` when unknown).

    Reading what :func:`~games.store.notation.write` wrote gives an equal transcript, times
    rounded down to the millisecond.
    """

    entries: tuple[Entry, ...]
    game_id: uuid.UUID | None = None
    player: str | None = None


class NotationError(ValueError):
    """A text the reader refuses: the ``line`` (1-based, counted from the start of the whole
    text) and ``column`` (1-based, ``None`` for the line as a whole) where it goes wrong, a
    stable ``code`` (docs/notation.md#errors) and the ``reason``, a sentence."""

    def __init__(self, line: int, code: str, reason: str, column: int | None = None) -> None:
        where = f"line {line}" if column is None else f"line {line}, column {column}"
        super().__init__(f"{where}: {reason}")
        self.line = line
        self.column = column
        self.code = code
        self.reason = reason
