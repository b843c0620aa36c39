"""The game summary: one frozen value per version of a game, computed from its stream alone.

A command builds it once (:meth:`GameSummary.of`); the ``Game`` row is written from it
(``games.projections.game_row``), and the REST body and the WebSocket frame are rendered from it by
``games.reads.presenters``, with no ORM object in between. Reading a game turns its row
back into the same value (:meth:`GameSummary.from_row`), so a read never replays.

The summary holds every card, face-down ones and the reserve included: it never leaves the
server as it is. What a viewer may see of it is decided by ``games.reads.visibility`` alone
and applied by the presenters (docs/architecture.md#visibility).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from games import engine
from games.engine.cards import suit_code
from games.store import streams
from games.store.models import Game


@dataclass(frozen=True, slots=True)
class Board:
    """Every card of a position: columns bottom to top with how many of each column's bottom
    cards lie face down, the cells (``three_blind_mice``) and the reserve in dealing order."""

    columns: tuple[tuple[str, ...], ...]
    down: tuple[int, ...]
    cells: tuple[str | None, ...] | None
    reserve: tuple[str, ...]

    @classmethod
    def of(cls, state: engine.State) -> Board:
        return cls(
            columns=tuple(
                tuple(engine.card_code(card) for card in cards) for cards in state.columns
            ),
            down=tuple(state.down),
            cells=(
                tuple(None if card is None else engine.card_code(card) for card in state.cells)
                if state.rules.cells
                else None
            ),
            reserve=tuple(engine.card_code(card) for card in state.reserve),
        )

    def to_json(self) -> dict[str, Any]:
        board: dict[str, Any] = {
            "columns": [list(cards) for cards in self.columns],
            "down": list(self.down),
            "reserve": list(self.reserve),
        }
        if self.cells is not None:
            board["cells"] = list(self.cells)
        return board

    @classmethod
    def from_json(cls, board: dict[str, Any]) -> Board:
        cells = board.get("cells")
        return cls(
            columns=tuple(tuple(cards) for cards in board["columns"]),
            down=tuple(board["down"]),
            cells=None if cells is None else tuple(cells),
            reserve=tuple(board["reserve"]),
        )


@dataclass(frozen=True, slots=True)
class RatedResult:
    """What a scored rated game did to the ratings (docs/ratings.md): its score, the
    player's rating, deviation and volatility before and after, the deal's rating and
    deviation before and after, and whether each change counts now (``counted``: the game
    is not voided; ``deal_counted``: nor restored while its player was banned)."""

    score: float
    player_before: float
    player_after: float
    player_rd: float
    deal_before: float
    deal_after: float
    deal_rd: float
    counted: bool
    deal_counted: bool


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game as of ``version``: what its ``Game`` row holds, plus its owner's username."""

    id: uuid.UUID
    owner_id: int
    owner: str
    rules: str
    seed: int | None
    public: bool
    version: int
    status: str
    blocked: bool
    score: int
    moves: int
    undos: int
    #: Suit letters of the removed runs, in order.
    removed: str
    #: Face-down cards of the deal turned up in this position.
    revealed: int
    board: Board
    #: The daily challenge this game races in, if any.
    challenge: dt.date | None
    voided: bool
    created_at: dt.datetime
    updated_at: dt.datetime
    finished_at: dt.datetime | None
    #: The race or arena this game is deal number ``round`` of, if any.
    contest: uuid.UUID | None = None
    round: int | None = None
    #: A rated game, and once it is scored what that did to the ratings (read beside the
    #: row, or returned by the statement that scored it: never from the stream alone).
    rated: bool = False
    rating: RatedResult | None = None

    @property
    def finished(self) -> bool:
        """Won, lost or resigned: no action is accepted any more."""
        return self.status != engine.PLAYING

    @property
    def reserve(self) -> int:
        """How many cards the reserve still holds."""
        return len(self.board.reserve)

    @classmethod
    def of(cls, stream: streams.Stream, *, owner: str) -> GameSummary:
        """The summary of ``stream``, whose owner's username is ``owner``."""
        state = stream.state
        return cls(
            id=stream.game_id,
            owner_id=stream.owner_id,
            owner=owner,
            rules=stream.rules.name,
            seed=stream.seed,
            public=stream.public,
            version=stream.version,
            status=state.status,
            blocked=engine.is_blocked(state),
            score=state.score,
            moves=state.moves,
            undos=state.undos,
            removed="".join(suit_code(suit) for suit in state.removed),
            revealed=sum(down for down, _ in stream.rules.layout) - sum(state.down),
            board=Board.of(state),
            challenge=None if stream.challenge is None else dt.date.fromisoformat(stream.challenge),
            voided=stream.voided,
            created_at=stream.created_at,
            updated_at=stream.updated_at,
            finished_at=stream.finished_at,
            contest=None if stream.contest is None else uuid.UUID(stream.contest),
            round=stream.round,
            rated=stream.rated,
        )

    @classmethod
    def from_row(cls, game: Game) -> GameSummary:
        """The summary a ``Game`` row holds (read it with its owner: ``select_related``)."""
        return cls(
            id=game.id,
            owner_id=game.owner_id,
            owner=game.owner.get_username(),
            rules=game.rules,
            seed=game.seed,
            public=game.public,
            version=game.version,
            status=game.status,
            blocked=game.blocked,
            score=game.score,
            moves=game.moves,
            undos=game.undos,
            removed=game.removed,
            revealed=game.revealed,
            board=Board.from_json(game.board),
            challenge=game.challenge,
            voided=game.voided,
            created_at=game.created_at,
            updated_at=game.updated_at,
            finished_at=game.finished_at,
            contest=game.contest,
            round=game.round,
            rated=game.rated,
        )
