"""What the moderators' replay shows: a game's board at any version, and its event log.

Staff may see every card, face-down ones included (they are marked, not hidden), except on
a daily challenge that is still open: its deal is everyone's race, so the admin masks it
like the API does for players until a moderator explicitly reveals it (``games.admin``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import engine
from games.dailies import challenges as dailies
from games.engine.cards import SUITS
from games.reads import presenters
from games.store import streams
from games.store.models import Event, Game

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


def is_secret(game: Game) -> bool:
    """Whether ``game``'s hidden cards and seed are the secret of an open daily challenge."""
    return game.challenge is not None and dailies.is_open(game.challenge)


def board(state: engine.State, *, reveal: bool) -> Board:
    """The board of ``state``: every card with ``reveal``, else face-down cards and the
    reserve masked (still counted and marked face-down)."""
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


def event_log(game: Game, *, reveal: bool) -> list[dict[str, Any]]:
    """The game's events as API.md's Event (``by`` the actor's username; the ``created``
    event's seed and deal only with ``reveal``), oldest first, at most
    :data:`EVENT_LOG_LIMIT`."""
    stream = streams.load(game.id, game.version)
    events = (
        Event.objects.filter(game_id=game.id, seq__lte=game.version)
        .select_related("actor")
        .order_by("seq")[:EVENT_LOG_LIMIT]
    )
    return [
        presenters.event_json(
            event, stream.effects_of(event.seq), by=presenters.actor_name(event), reveal=reveal
        )
        for event in events
    ]
