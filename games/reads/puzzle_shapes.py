"""The JSON bodies of the puzzle paths (docs/api.md#puzzles), each defined once, here, as
``games.reads.shapes`` defines the others (the OpenAPI document is made from them)."""

# No ``from __future__ import annotations`` here: TypedDict needs its annotations evaluated
# to know which keys are NotRequired.
from typing import Annotated, Any, NotRequired, TypedDict

from games.engine.puzzles import THEMES
from games.reads.shapes import (
    RULES,
    ActionBody,
    Card,
    Choices,
    Date,
    Doc,
    EffectsBody,
    Format,
    Timestamp,
)

Theme = Annotated[str, Choices(THEMES)]
MODES = Choices(("rated", "daily", "streak"))
ATTEMPT_STATUSES = Choices(("playing", "solved", "failed"))


class PuzzlePositionBody(TypedDict):
    """The puzzle's position as the player sees it: while the attempt is played, face-down
    cards are null and the reserve a count; once it ends, every card."""

    status: Annotated[str, Choices(("playing", "won", "lost"))]
    blocked: bool
    reserve: Annotated[int, Doc("cards in the reserve")]
    removed: Annotated[list[str], Doc("suits of the runs gone, in order")]
    columns: Annotated[
        list[list[Card | None]], Doc("each column bottom to top; a face-down card is null")
    ]
    down: Annotated[list[int], Doc("how many cards of each column are face down")]
    cells: NotRequired[Annotated[list[Card | None], Doc("three_blind_mice only")]]
    reserve_cards: NotRequired[
        Annotated[list[Card], Doc("the reserve's cards, once the attempt has ended")]
    ]


class PuzzleRatingBody(TypedDict):
    """What an ended rated attempt did to the player's puzzle rating."""

    before: float
    after: float
    change: Annotated[float, Doc("after - before (show it rounded: +12)")]
    rd: Annotated[float, Doc("the player's rating deviation after it")]
    provisional: Annotated[bool, Doc("RD >= 110")]
    puzzle_before: float
    puzzle_after: float


class ReasonBody(TypedDict):
    """Why the losing move loses, in words (``detail``, in the request's language) and as
    data: ``code`` is blocked, under_it, above_it, covered, king_no_column, buried, stuck,
    searched or gave_up."""

    code: str
    detail: str
    card: NotRequired[Card]
    needs: NotRequired[Card]
    cover: NotRequired[Card]
    column: NotRequired[int]
    at: NotRequired[Annotated[int, Doc("the column of the card that covers `needs`")]]
    nodes: NotRequired[Annotated[int, Doc("searched: the positions the solver tried")]]
    hidden: NotRequired[
        Annotated[
            list[Card],
            Doc(
                "when the move wins as the cards lie but not in every way they could: the "
                "unseen cards of a way it loses, face-down places column by column, then "
                "the reserve"
            ),
        ]
    ]


class PuzzleInfoBody(TypedDict):
    """The puzzle being played: what it asks, and once the attempt has ended, its answer."""

    id: str
    rules: Annotated[str, RULES]
    rating: Annotated[float, Doc("its rating now")]
    length: Annotated[int, Doc("at most this many moves to find")]
    plays: Annotated[int, Doc("attempts that have ended")]
    themes: Annotated[list[Theme] | None, Doc("null until the attempt ends")]
    solution: Annotated[
        list[ActionBody] | None, Doc("null until the attempt ends: the solver's line")
    ]
    win_in: Annotated[int | None, Doc("the line's length when it ends in the win")]
    game: Annotated[
        str | None,
        Format("uuid"),
        Doc("null until the attempt ends: the public game it was found in"),
    ]
    version: Annotated[int | None, Doc("the version of that game whose position it is")]
    challenge: Annotated[Date | None, Doc("or the daily challenge whose line it was found in")]
    played: Annotated[
        ActionBody | None,
        Doc("null until the attempt ends: what the game played there"),
    ]
    mistake: Annotated[bool | None, Doc("whether that move lost (null until the end)")]


class StreakBody(TypedDict):
    """A run of Streak: puzzles of rising rating, unrated, until the first mistake."""

    id: Annotated[str, Format("uuid")]
    status: Annotated[str, Choices(("running", "ended"))]
    solved: Annotated[int, Doc("puzzles solved in it")]
    best: Annotated[int, Doc("the player's best streak, this one included")]
    started_at: Timestamp
    ended_at: Timestamp | None


class AttemptBody(TypedDict):
    """A player's attempt at a puzzle (docs/api.md#puzzles)."""

    id: Annotated[str, Format("uuid")]
    mode: Annotated[str, MODES]
    status: Annotated[str, ATTEMPT_STATUSES]
    rated: Annotated[bool, Doc("rated and daily attempts move both ratings")]
    puzzle: PuzzleInfoBody
    position: PuzzlePositionBody
    moves: Annotated[list[ActionBody], Doc("the winning moves played, in order")]
    legal: Annotated[list[ActionBody], Doc("the legal moves now (none once the attempt has ended)")]
    wrong: Annotated[ActionBody | None, Doc("the losing move that ended it")]
    answers: Annotated[
        list[ActionBody] | None,
        Doc("once it has failed: the winning moves of the position where it failed"),
    ]
    reason: Annotated[ReasonBody | None, Doc("why it failed")]
    rating: Annotated[PuzzleRatingBody | None, Doc("the rating change, once a rated one ends")]
    streak: NotRequired[StreakBody]
    started_at: Timestamp
    ended_at: Timestamp | None


class PuzzleMoveEventBody(TypedDict):
    """The move judged, as an event of the board: its data and what it did."""

    type: Annotated[str, Choices(("moved", "dealt"))]
    data: Annotated[dict[str, Any], Doc("moved: {from, index, to} or {cell, to}; dealt: {}")]
    effects: EffectsBody


class PuzzleMoveBody(TypedDict):
    """A judged move: ``right`` (it wins: the attempt goes on, or ends solved) or ``wrong``
    (it loses: the attempt ends failed, with the reason)."""

    verdict: Annotated[str, Choices(("right", "wrong"))]
    event: PuzzleMoveEventBody
    attempt: AttemptBody


class StreakPlayBody(TypedDict):
    """The caller's streak and its puzzle now (null once the streak has ended)."""

    streak: StreakBody
    attempt: AttemptBody | None


class StreakRecordBody(TypedDict):
    """The caller's streak running (null if none) and their best."""

    current: StreakBody | None
    best: int


class PuzzleDayBody(TypedDict):
    """The puzzle of a day, and the caller's attempt at it (null until they start it)."""

    date: Date
    rules: Annotated[str, RULES]
    rating: float
    plays: int
    attempt: AttemptBody | None


class ThemeStatBody(TypedDict):
    """How a player does on one theme: their ended attempts at puzzles that carry it."""

    theme: Theme
    attempts: int
    solved: int
    failed: int
    failure: Annotated[float, Doc("failed / attempts")]


class PuzzleDashboardBody(TypedDict):
    """A player's puzzles at a glance: their rating, their best streak, and each theme they
    met, the most failed share first (docs/api.md#puzzles)."""

    player: str
    rating: float
    rd: float
    provisional: bool
    rated: Annotated[int, Doc("rated attempts that ended")]
    solved: int
    failed: int
    best_streak: int
    themes: list[ThemeStatBody]


class ThemeBody(TypedDict):
    id: Theme
    name: Annotated[str, Doc("in the request's language")]
    description: Annotated[str, Doc("in the request's language")]


class ThemesBody(TypedDict):
    results: list[ThemeBody]


class PuzzleExportBody(TypedDict):
    """A month's export of the puzzles (docs/api.md#puzzle-exports)."""

    month: Annotated[str, Doc("YYYY-MM")]
    puzzles: int
    bytes: int
    sha256: Annotated[str, Doc("of the file, in hex")]
    url: Annotated[str, Doc("the file: CSV, gzip-compressed")]
    checksum_url: Annotated[str, Doc("its sha256sum line")]


class PuzzleExportListBody(TypedDict):
    results: list[PuzzleExportBody]
