"""The state of a game: an immutable value, rebuilt by folding actions over a deal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import Card, card_code, suit_code
from .deals import check_deal
from .rules import Ruleset

PLAYING: Final = "playing"
WON: Final = "won"
LOST: Final = "lost"
RESIGNED: Final = "resigned"
STATUSES: Final = (PLAYING, WON, LOST, RESIGNED)

Columns = tuple[tuple[Card, ...], ...]
#: What identifies a position for the repetition rule: columns, face-down counts,
#: cards left in the reserve and the cells.
Position = tuple[Columns, tuple[int, ...], int, tuple[Card | None, ...]]


@dataclass(frozen=True, slots=True)
class Effects:
    """What an action caused: the score change, cards turned up, runs removed.

    Columns are numbered from 1. ``undid`` is the ply (see :attr:`State.ply`) of the
    action an undo reverted.
    """

    points: int = 0
    flipped: tuple[tuple[int, Card], ...] = ()
    removed: tuple[tuple[int, int], ...] = ()
    undid: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The effects as the API shows them (cards turned up are public from now on)."""
        out: dict[str, Any] = {
            "points": self.points,
            "flipped": [{"column": c, "card": card_code(card)} for c, card in self.flipped],
            "removed": [{"column": c, "suit": suit_code(suit)} for c, suit in self.removed],
        }
        if self.undid is not None:
            out["undid"] = self.undid
        return out


@dataclass(slots=True, eq=False)
class State:
    """A position and everything the rules need to go on from it.

    A value: nothing changes a state once made (not frozen only because frozen dataclasses
    are slow to build, and replay builds one per action); :func:`games.engine.apply`
    returns a new one. ``columns`` hold
    cards bottom to top and the first ``down[c]`` cards of column ``c`` are face-down.
    """

    rules: Ruleset
    deal: tuple[Card, ...]
    columns: Columns
    down: tuple[int, ...]
    reserve: tuple[Card, ...]
    cells: tuple[Card | None, ...]
    #: Suits of the removed runs, in the order they left.
    removed: tuple[int, ...]
    score: int
    #: Moves and deals ever applied (undo and restart do not lower it).
    moves: int
    undos: int
    status: str
    #: Engine actions applied since the deal, every kind counted.
    ply: int
    #: The state before the last move or deal still in effect, and that action's ply.
    previous: tuple[State, int] | None
    #: How many undos the ruleset's depth still allows.
    undo_budget: int
    #: Positions on the current line of play (only for rulesets with the repetition rule).
    seen: frozenset[Position]
    #: The ``blocked`` flag once computed (a cache, not part of the value); see
    #: :func:`games.engine.is_blocked`.
    blocked_cache: bool | None = field(default=None, compare=False, repr=False)

    def position(self) -> Position:
        """What the repetition rule compares."""
        return (self.columns, self.down, len(self.reserve), self.cells)

    def same_as(self, other: State) -> bool:
        """Whether both states agree on everything a player or the rules can observe."""
        return (
            self.rules == other.rules
            and self.deal == other.deal
            and self.columns == other.columns
            and self.down == other.down
            and self.reserve == other.reserve
            and self.cells == other.cells
            and self.removed == other.removed
            and self.score == other.score
            and self.moves == other.moves
            and self.undos == other.undos
            and self.status == other.status
            and self.undo_budget == other.undo_budget
        )

    def card_at(self, column: int, index: int) -> Card | None:
        """The face-up card at ``index`` of ``column`` (1-based), or ``None``."""
        if not 1 <= column <= len(self.columns):
            return None
        cards = self.columns[column - 1]
        if not self.down[column - 1] <= index < len(cards):
            return None
        return cards[index]


def new_game(rules: Ruleset, deal: Sequence[Card]) -> State:
    """The initial state of ``deal`` (layout order) under ``rules``.

    Raises :class:`games.engine.DealError` unless the deal is a complete deck.
    """
    return layout(rules, check_deal(rules, deal))


def layout(rules: Ruleset, cards: tuple[Card, ...]) -> State:
    """The initial state of a deal already checked by :func:`check_deal`."""
    columns = []
    at = 0
    for down, up in rules.layout:
        columns.append(cards[at : at + down + up])
        at += down + up
    rest = cards[at:]
    return position(
        rules,
        columns=columns,
        down=[down for down, _ in rules.layout],
        reserve=rest if not rules.cells else (),
        cells=tuple(rest) if rules.cells else (),
        deal=cards,
    )


def position(
    rules: Ruleset,
    *,
    columns: Sequence[Sequence[Card]],
    down: Sequence[int],
    reserve: Sequence[Card] = (),
    cells: Sequence[Card | None] = (),
    removed: Sequence[int] = (),
    deal: Sequence[Card] = (),
) -> State:
    """A playing state with exactly these cards where they are, nothing played yet.

    ``deal`` is what a restart goes back to (the initial deal for :func:`new_game`).
    """
    state = State(
        rules=rules,
        deal=tuple(deal),
        columns=tuple(tuple(cards) for cards in columns),
        down=tuple(down),
        reserve=tuple(reserve),
        cells=tuple(cells),
        removed=tuple(removed),
        score=0,
        moves=0,
        undos=0,
        status=PLAYING,
        ply=0,
        previous=None,
        undo_budget=0,
        seen=frozenset(),
    )
    if rules.repeats_are_not_moves:
        state.seen = frozenset((state.position(),))
    return state
