"""What the moderators' replay shows: a game's board at any version, and its event log.

Cards are shown as the moderator's sight of the game allows (``games.reads.visibility``):
staff see every card, face-down ones included (marked, not hidden), except on a daily
challenge that is still open, whose deal is masked like it is for players until the
moderator explicitly reveals it (``games.admin.games``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import engine
from games.engine.cards import SUITS
from games.reads import presenters, selectors
from games.reads.visibility import Sight
from games.store.models import Event
from games.store.summary import GameSummary

_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_RED = {"H", "D"}

#: Most events the game's admin page lists (a Scorpion game has a few hundred at most).
EVENT_LOG_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class CardView:
    """One card as the replay shows it; ``code`` is ``None`` when it is masked."""

    code: str | None
    face_down: bool

    @property
    def label(self) -> str:
        """``Q♥`` (``10`` for tens), or ``??`` for a masked card."""
        if self.code is None:
            return "??"
        rank = "10" if self.code[0] == "T" else self.code[0]
        return rank + _SYMBOLS[self.code[1]]

    @property
    def red(self) -> bool:
        return self.code is not None and self.code[1] in _RED


@dataclass(frozen=True, slots=True)
class Board:
    """A position for the replay: columns bottom to top, the reserve, the cells."""

    columns: list[list[CardView]]
    reserve: list[CardView]
    reserve_count: int
    cells: list[CardView | None] | None
    removed: list[str]
    status: str
    score: int
    moves: int
    undos: int
    revealed: bool


def board(state: engine.State, sight: Sight) -> Board:
    """The board of ``state``: every card if ``sight`` reveals them, else face-down cards and
    the reserve masked (still counted and marked face-down)."""
    reveal = sight.reveal
    columns = [
        [
            CardView(engine.card_code(card) if reveal or index >= down else None, index < down)
            for index, card in enumerate(cards)
        ]
        for cards, down in zip(state.columns, state.down, strict=True)
    ]
    reserve = [CardView(engine.card_code(card), True) for card in state.reserve] if reveal else []
    cells = None
    if state.rules.cells:
        cells = [
            None if card is None else CardView(engine.card_code(card), False)
            for card in state.cells
        ]
    return Board(
        columns=columns,
        reserve=reserve,
        reserve_count=len(state.reserve),
        cells=cells,
        removed=[_SYMBOLS[SUITS[suit]] for suit in state.removed],
        status=state.status,
        score=state.score,
        moves=state.moves,
        undos=state.undos,
        revealed=reveal,
    )


def event_log(game: GameSummary, sight: Sight) -> list[dict[str, Any]]:
    """The game's events as docs/api.md's Event, as ``sight`` allows, oldest first, at most
    :data:`EVENT_LOG_LIMIT`."""
    stream = selectors.game_stream(game)
    rows = (
        Event.objects.filter(game_id=game.id, seq__lte=game.version)
        .select_related("actor")
        .order_by("seq")[:EVENT_LOG_LIMIT]
    )
    return [
        dict(presenters.event_body(event, stream.effects_of(event.seq), sight)) for event in rows
    ]
