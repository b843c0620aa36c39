"""The JSON bodies of the public API (docs/api.md), each defined once, here.

The presenters build these (mypy checks every key and type), and the OpenAPI document is
generated from the same definitions (``api.schema.serializer_for``), so the schema describes
exactly the body that is sent. ``Annotated`` metadata carries what the document says beyond
the type: a description (:class:`Doc`) and the allowed values (:class:`Choices`).
"""

# No ``from __future__ import annotations`` here: TypedDict needs its annotations evaluated
# to know which keys are NotRequired.
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired, TypedDict

from games import engine
from games.boards import metrics
from games.pools.certify import DIFFICULTY_LABELS
from games.store import events


@dataclass(frozen=True, slots=True)
class Doc:
    """The description of a field in the API document."""

    text: str


@dataclass(frozen=True, slots=True)
class Format:
    """The format of a string field: ``date-time``, ``date`` or ``uuid``."""

    name: str


@dataclass(frozen=True, slots=True)
class Choices:
    """The only values a string field takes."""

    values: tuple[str, ...]

    @classmethod
    def of(cls, values: Iterable[str]) -> "Choices":
        return cls(tuple(values))


RULES = Choices.of(engine.RULESETS)
STATUSES = Choices.of(engine.STATUSES)

Card = Annotated[str, Doc("a card code: rank (A 2-9 T J Q K) and suit (S H D C)")]
Timestamp = Annotated[str, Format("date-time"), Doc("ISO 8601, UTC, with milliseconds")]
Date = Annotated[str, Format("date"), Doc("a UTC day, YYYY-MM-DD")]


class FlippedBody(TypedDict):
    column: int
    card: Card


class RemovedBody(TypedDict):
    column: int
    suit: Annotated[str, Choices(("S", "H", "D", "C"))]


class EffectsBody(TypedDict):
    """What an event did: derived on replay, never stored."""

    points: Annotated[int, Doc("the change of score")]
    flipped: list[FlippedBody]
    removed: list[RemovedBody]
    undid: NotRequired[Annotated[int, Doc("undone: the seq of the action it undid")]]


class CertifiedBody(TypedDict):
    """How hard a deal of the winnable pool is: shown before play, since it names no card."""

    difficulty: Annotated[float, Doc("0 (easiest) to 1 (hardest): docs/solvability.md#difficulty")]
    label: Annotated[str, Choices.of(DIFFICULTY_LABELS)]


class DealRatingBody(TypedDict):
    """A rated deal's rating before and after a game (docs/api.md#ratings)."""

    before: float
    after: float
    rd: Annotated[float, Doc("the deal's rating deviation after the game")]


class GameRatingBody(TypedDict):
    """What a scored rated game did to the ratings (docs/api.md#ratings)."""

    score: Annotated[float, Doc("1: won without a hint; 0: lost, resigned, restarted or aided")]
    before: Annotated[float, Doc("the player's rating before the game")]
    after: Annotated[float, Doc("the player's rating after the game")]
    change: Annotated[float, Doc("after - before (show it rounded: +12)")]
    rd: Annotated[float, Doc("the player's rating deviation after the game")]
    provisional: Annotated[bool, Doc("the rating after the game is provisional (RD >= 110)")]
    counted: Annotated[bool, Doc("false once a moderator voided the game: its change was undone")]
    deal: Annotated[
        DealRatingBody | None,
        Doc("the deal's rating; null until the game is over and its deal may be shown"),
    ]


class GameBody(TypedDict):
    """A game as one viewer may see it (docs/api.md#game-object)."""

    id: Annotated[str, Format("uuid")]
    rules: Annotated[str, RULES]
    seed: Annotated[
        int | None,
        Doc("null while hidden information is protected, and for games made from a deal"),
    ]
    owner: str
    public: bool
    version: Annotated[int, Doc("the seq of the game's last event")]
    status: Annotated[str, STATUSES]
    blocked: bool
    score: int
    moves: Annotated[int, Doc("moves and deals ever applied (undo does not lower it)")]
    undos: int
    reserve: Annotated[int, Doc("cards still in the reserve")]
    removed: Annotated[list[str], Doc("suits of removed sequences, in order")]
    columns: Annotated[
        list[list[Card | None]], Doc("each column bottom to top; a face-down card is null")
    ]
    cells: NotRequired[
        Annotated[list[Card | None], Doc("three_blind_mice only; an emptied cell is null")]
    ]
    reserve_cards: NotRequired[
        Annotated[list[Card], Doc("the reserve's cards, when hidden information is shown")]
    ]
    challenge: Annotated[Date | None, Doc("the daily challenge's date, if any")]
    contest: NotRequired[
        Annotated[str, Format("uuid"), Doc("the race or arena this game is a deal of")]
    ]
    round: NotRequired[Annotated[int, Doc("which deal of its race or arena: 1, 2, …")]]
    certified: NotRequired[
        Annotated[
            CertifiedBody,
            Doc("a game dealt from the winnable pool: how hard its deal is"),
        ]
    ]
    rated: Annotated[bool, Doc("a rated game: the player against the deal (docs/ratings.md)")]
    rating: NotRequired[
        Annotated[
            GameRatingBody,
            Doc(
                "a rated game once scored (finished or restarted): its change of rating; "
                "absent before, and in lists"
            ),
        ]
    ]
    created_at: Timestamp
    finished_at: Timestamp | None


class EventBody(TypedDict):
    """One event of a game's stream (docs/api.md#event-object)."""

    seq: int
    type: Annotated[str, Choices(events.TYPES)]
    data: Annotated[
        dict[str, Any],
        Doc(
            "created: {rules, seed, deal, public, challenge, engine} (seed and deal null "
            "while hidden information is protected); moved: {from, index, to} or {cell, to}; "
            "result_voided, result_restored: {reason}; others: {}"
        ),
    ]
    by: Annotated[str | None, Doc("who caused it: the player, or a moderator")]
    at: Timestamp
    effects: EffectsBody
    card: NotRequired[
        Annotated[Card, Doc("moved, in /events pages: the face-up card the move took")]
    ]


class ChallengeBody(TypedDict):
    """A day's race (docs/api.md#daily-challenges)."""

    date: Date
    rules: Annotated[str, RULES]
    starts_at: Timestamp
    ends_at: Timestamp
    participants: int
    status: Annotated[str, Choices(("open", "closed"))]
    seed: Annotated[int | None, Doc("null until the day ends")]
    solution: Annotated[
        list[dict[str, Any]] | None,
        Doc(
            "null until the day ends: a winning line of commands from the deal, found by "
            "the solver and replayed when the day was made (null for a day made before "
            "deals were certified)"
        ),
    ]
    difficulty: Annotated[
        str | None,
        Choices(("easy", "medium", "hard", "expert")),
        Doc("null until the day ends: the solver's search effort, banded (docs/api.md)"),
    ]


class DayResultBody(TypedDict):
    """The caller's own result on a day: their standing, and their game."""

    game: Annotated[str, Format("uuid")]
    status: Annotated[str, STATUSES]
    moves: int
    score: int
    sequences: int
    elapsed_ms: Annotated[int, Doc("as in the standings")]
    hints: int


class ChallengeDayBody(TypedDict):
    """A day of the archive (docs/api.md#the-archive)."""

    date: Date
    rules: Annotated[str, RULES]
    status: Annotated[str, Choices(("open", "closed"))]
    participants: int
    difficulty: Annotated[
        str | None, Choices(("easy", "medium", "hard", "expert")), Doc("null while open")
    ]
    mine: Annotated[DayResultBody | None, Doc("the caller's result; null if they did not join")]


class ChallengeMonthBody(TypedDict):
    month: Annotated[str, Doc("YYYY-MM")]
    results: Annotated[list[ChallengeDayBody], Doc("the month's days that have a challenge")]


class SolutionStepBody(TypedDict):
    """A closed day's position after the first ``step`` commands of its solution."""

    date: Date
    step: Annotated[int, Doc("0 (the deal) to steps")]
    steps: Annotated[int, Doc("how many commands the solution has")]
    action: Annotated[dict[str, Any] | None, Doc("the command that led here (null at 0)")]
    status: Annotated[str, STATUSES]
    score: int
    moves: int
    reserve: int
    removed: list[str]
    columns: Annotated[list[list[Card]], Doc("every card, face up: the day is over")]
    cells: NotRequired[list[Card | None]]
    reserve_cards: list[Card]


class StandingBody(TypedDict):
    rank: int
    player: str
    status: Annotated[str, STATUSES]
    moves: int
    score: int
    sequences: int
    revealed: Annotated[int, Doc("face-down cards turned up")]
    elapsed_ms: Annotated[int, Doc("from joining to the last event (to the win)")]
    hints: Annotated[int, Doc("hints the player was shown during the race")]
    game: Annotated[
        str | None,
        Format("uuid"),
        Doc(
            "the player's game, where the caller may read it (everyone's once the day is over; "
            "one's own and, to staff, every one while it runs); else null"
        ),
    ]
    started_at: Annotated[
        Timestamp, Doc("when the player joined: a playing entry's clock runs from it")
    ]


BEST_TIME = Doc(
    "the fastest counted win, timed as the leaderboards time it: from the game's first "
    "action to the winning one, in milliseconds; null with no win"
)
BEST_GAME = Doc("the game of best_time_ms, when the caller may read it; else null")
WIN_RATE = "won / finished, 4 decimals (a game in play is not counted); 0.0 with none finished"


class RulesetRecordBody(TypedDict):
    """A player's record in one ruleset (docs/api.md#players)."""

    rules: Annotated[str, RULES]
    played: Annotated[int, Doc("games started in this ruleset, playing ones included")]
    finished: Annotated[int, Doc("games over: won, lost or resigned")]
    won: int
    win_rate: Annotated[float, Doc(WIN_RATE)]
    best_time_ms: Annotated[int | None, BEST_TIME]
    best_game: Annotated[str | None, Format("uuid"), BEST_GAME]
    streak: Annotated[int, Doc("the run of wins ending at the last finished game")]
    best_streak: Annotated[int, Doc("the longest run of consecutive wins")]


class DailyRecordBody(TypedDict):
    """A player's record in the daily challenges."""

    played: Annotated[int, Doc("days joined")]
    finished: Annotated[int, Doc("days whose game is over")]
    won: Annotated[int, Doc("days won")]
    win_rate: Annotated[float, Doc("won / finished, 4 decimals; 0.0 with no day finished")]
    best_time_ms: Annotated[int | None, BEST_TIME]
    best_game: Annotated[str | None, Format("uuid"), BEST_GAME]


class PlayerBody(TypedDict):
    username: str
    played: int
    finished: Annotated[int, Doc("games over: won, lost or resigned")]
    won: int
    win_rate: Annotated[float, Doc(WIN_RATE)]
    streak: Annotated[int, Doc("consecutive UTC days with a won daily challenge, to today")]
    best_streak: int
    best_time_ms: Annotated[int | None, BEST_TIME]
    best_game: Annotated[str | None, Format("uuid"), BEST_GAME]
    daily: DailyRecordBody
    rulesets: Annotated[
        list[RulesetRecordBody], Doc("one entry per ruleset played, in the order of /rules")
    ]


class StakesBody(TypedDict):
    """What a rated game would change of the caller's rating (docs/api.md#ratings)."""

    rules: Annotated[str, RULES]
    rated: Annotated[bool, Doc("whether the game is rated (a closed day's is not)")]
    rating: Annotated[float, Doc("the caller's rating now (1500 before any rated game)")]
    provisional: bool
    win: Annotated[float | None, Doc("the change a win would make; null when not rated")]
    loss: Annotated[float | None, Doc("the change a loss would make (negative)")]


class HardestWinBody(TypedDict):
    """The hardest deal a player won in a ruleset, by the solver's difficulty."""

    difficulty: Annotated[float, Doc("0 (easiest) to 1 (hardest): docs/solvability.md")]
    label: Annotated[str, Doc("its band: easy, medium, hard...")]
    game: Annotated[str | None, Format("uuid"), Doc("the game, when the caller may read it")]


class RulesetStatsBody(TypedDict):
    """A player's statistics in one ruleset (docs/api.md#players)."""

    username: str
    rules: Annotated[str, RULES]
    played: Annotated[int, Doc("games started, playing ones included")]
    finished: Annotated[int, Doc("games over: won, lost or resigned")]
    won: int
    win_rate: Annotated[float, Doc(WIN_RATE)]
    streak: Annotated[int, Doc("the run of wins ending at the last finished game")]
    best_streak: Annotated[int, Doc("the longest run of consecutive wins")]
    average_time_ms: Annotated[int | None, Doc("the mean time of the counted wins; null with none")]
    best_time_ms: Annotated[int | None, BEST_TIME]
    hardest_win: Annotated[
        HardestWinBody | None,
        Doc("the won deal of the highest difficulty (pool deals, closed dailies); null with none"),
    ]


#: A legal action, as ``/moves`` lists it and ``/hint`` recommends it.
ActionBody = TypedDict(
    "ActionBody",
    {
        "type": Annotated[str, Choices(("move", "deal"))],
        "from": NotRequired[int],
        "index": NotRequired[int],
        "cell": NotRequired[int],
        "to": NotRequired[int],
        "card": NotRequired[Card],
    },
)


class FinishBody(TypedDict):
    """The finish of a game whose every card is seen (docs/api.md#finish)."""

    version: Annotated[int, Doc("the game's version the line starts from")]
    verdict: Annotated[
        str,
        Choices(("won", "lost", "unknown")),
        Doc("won: line wins; lost: nothing wins; unknown: not decided within the budget"),
    ]
    line: Annotated[
        list[ActionBody], Doc("the actions that win, in order, each a command; empty unless won")
    ]


class HintBody(TypedDict):
    """A hint computed from the player's view only (docs/api.md#hint)."""

    move: Annotated[ActionBody | None, Doc("the recommended action, or null")]
    wins: Annotated[int, Doc("sampled completions of the unseen cards in which it wins")]
    samples: Annotated[int, Doc("completions sampled (0 for a finished game)")]
    source: Annotated[
        str,
        Choices(("solver", "heuristic", "none")),
        Doc(
            "solver: won in some sample; heuristic: no sample won, the action leaving the "
            "fewest samples proved lost (ties: the one-move heuristic's choice)"
        ),
    ]
    version: Annotated[int, Doc("the game's version after the hint (a race records it)")]
    recorded: Annotated[bool, Doc("this request recorded a hinted event (a race game)")]


class AnalysisBody(TypedDict):
    """The post-game analysis of a finished game, with full information (docs/api.md#analysis)."""

    game: Annotated[str, Format("uuid")]
    version: Annotated[int, Doc("the version analysed")]
    winnable: Annotated[bool | None, Doc("the deal could be won (null: undecided)")]
    lost_at: Annotated[
        int | None, Doc("the first version after which the game could no longer be won")
    ]
    last_winnable: Annotated[int | None, Doc("the last version that could still be won")]
    line: Annotated[
        list[dict[str, Any]] | None, Doc("a winning line of commands from last_winnable")
    ]
    decided: Annotated[bool, Doc("false when the search's budget left a verdict open")]
    nodes: Annotated[int, Doc("positions the solver searched")]
    computed_at: Timestamp


class AnalysisPendingBody(TypedDict):
    """An analysis a job is computing: ask the same URL again (docs/api.md#analysis)."""

    status: Annotated[str, Choices(("pending",))]
    game: Annotated[str, Format("uuid")]
    retry_after: Annotated[int, Doc("seconds to wait before asking again (as Retry-After)")]


class MovesBody(TypedDict):
    moves: list[ActionBody]


class GamePageBody(TypedDict):
    results: list[GameBody]
    next: Annotated[str | None, Doc("the URL of the next page, or null")]


class LiveGamesBody(TypedDict):
    """The public games being played now (docs/api.md#live-games)."""

    results: list[GameBody]


class TvBody(TypedDict):
    """The game worth watching now (docs/api.md#tv)."""

    game: Annotated[GameBody | None, Doc("null when no public game is being played")]


class EventPageBody(TypedDict):
    results: list[EventBody]
    next: Annotated[str | None, Doc("the URL of the next page, or null")]


class CommandResultBody(TypedDict):
    """A command's answer: the event it appended (or, for a retried key, had appended) and
    the game after it."""

    event: EventBody
    game: GameBody


class StandingsBody(TypedDict):
    results: list[StandingBody]


class RegisteredBody(TypedDict):
    username: str
    token: str


class TokenBody(TypedDict):
    token: str


class EmailConfirmedBody(TypedDict):
    """An account's email address, confirmed."""

    username: str
    email: str


class KeyBody(TypedDict):
    """One API key of the account (never the key itself)."""

    id: Annotated[int, Doc("revoke it with DELETE /auth/keys/{id}")]
    name: Annotated[str, Doc("what it is for: given at sign-in, else the client that signed in")]
    prefix: Annotated[str, Doc("the key's first 8 characters")]
    current: Annotated[bool, Doc("whether this request was made with this key")]
    created_at: Timestamp
    last_used_at: Annotated[str, Format("date-time"), Doc("to the minute: written once a minute")]
    expires_at: Annotated[
        str | None,
        Format("date-time"),
        Doc("when it expires unless used before (each use moves it on); null: never"),
    ]
    last_address: Annotated[str | None, Doc("the client address of its last use")]
    last_user_agent: Annotated[str, Doc("the User-Agent of its last use (200 characters)")]


class KeysBody(TypedDict):
    results: Annotated[list[KeyBody], Doc("the account's keys, most recently used first")]


class MeBody(TypedDict):
    """Who the credentials of the request belong to."""

    username: str
    guest: Annotated[bool, Doc("a guest: playing with no account yet (docs/api.md#guests)")]
    email: Annotated[
        str | None, Doc("the account's confirmed email address, for password resets; null: none")
    ]
    staff: bool
    banned: bool
    joined_at: Timestamp
    key: Annotated[KeyBody | None, Doc("the key of this request; null with the session cookie")]
    record: Annotated[PlayerBody, Doc("the account's public record, as GET /players/{username}")]


class PreferencesBody(TypedDict):
    """How the player likes the client (docs/api.md#preferences)."""

    card_size: Annotated[str, Doc("large (as large as the window allows), medium or small")]
    theme: Annotated[str, Doc("light, dark or contrast (high contrast)")]
    sound: Annotated[bool, Doc("sounds on moves, completed suits and wins")]
    animations: Annotated[bool, Doc("cards slide and fly; off: they jump")]
    auto_finish: Annotated[
        bool, Doc("once nothing is hidden and the solver knows the win, play it to the end")
    ]


class WsTicketBody(TypedDict):
    ticket: Annotated[str, Doc("add ?ticket=<ticket> to one WebSocket URL")]
    expires_in: Annotated[int, Doc("seconds it stays valid; it opens one connection")]


class LayoutColumnBody(TypedDict):
    face_down: int
    face_up: int


class RulesetBody(TypedDict):
    """A ruleset's parameters (docs/rules.md#rulesets)."""

    name: Annotated[str, RULES]
    title: str
    decks: int
    columns: int
    layout: list[LayoutColumnBody]
    reserve: int
    reserve_to: list[int]
    cells: int
    build: Annotated[str, Choices(("same_suit", "any_suit"))]
    empty_column: Annotated[str, Choices(("king", "any"))]
    whole_column_to_empty: bool
    sequences: Annotated[str, Choices(("destination", "all", "stay"))]
    sequences_to_win: int
    deal: Annotated[str, Choices(("any_time", "when_stuck"))]
    undo_depth: Annotated[int | None, Doc("null: unlimited")]
    lose_when_blocked: bool
    description: Annotated[str, Doc("what sets the ruleset apart, in the request's language")]
    descriptions: Annotated[
        dict[str, str], Doc("the description in every language the API speaks: en, it, es, pt")
    ]


class RulesBody(TypedDict):
    results: list[RulesetBody]
    default: Annotated[str, RULES]


SCOPES = Choices.of(metrics.scopes())
METRICS = Choices.of(metrics.METRICS)
PERIODS = Choices.of(metrics.PERIODS)


class BoardRowBody(TypedDict):
    """A player's row on a leaderboard (docs/api.md#leaderboards)."""

    rank: Annotated[int, Doc("1 + how many listed players have a strictly better value")]
    player: str
    value: Annotated[
        int,
        Doc(
            "wins: won games; best_time: milliseconds; streak: the run's length; "
            "arena_points: the sum of the points of the player's arena deals; "
            "rating: the Glicko-2 rating, rounded"
        ),
    ]
    reached_at: Annotated[Timestamp, Doc("when the player reached this value (breaks ties)")]
    game: Annotated[
        str | None,
        Format("uuid"),
        Doc("best_time: the winning game, when the caller may read it; else null"),
    ]


class LeaderboardBody(TypedDict):
    """A page of one board, best first, and the caller's own row."""

    scope: Annotated[str, SCOPES]
    metric: Annotated[str, METRICS]
    period: Annotated[str, PERIODS]
    key: Annotated[str, Doc("the period shown: all, YYYY-MM or YYYY-Www (UTC)")]
    starts_at: Annotated[Timestamp | None, Doc("the period's start; null for all time")]
    ends_at: Annotated[Timestamp | None, Doc("the period's end (excluded); null for all time")]
    results: list[BoardRowBody]
    next: Annotated[str | None, Doc("the URL of the next page, or null")]
    me: Annotated[
        BoardRowBody | None,
        Doc("the caller's row with its rank, wherever it stands; null when not on the board"),
    ]


class BoardsBody(TypedDict):
    """Which leaderboards exist: every scope has every period of each of its metrics."""

    scopes: list[Annotated[str, SCOPES]]
    metrics: list[Annotated[str, METRICS]]
    periods: list[Annotated[str, PERIODS]]


class RatingBody(TypedDict):
    """A player's rating in one ruleset's pool (docs/api.md#ratings)."""

    rules: Annotated[str, RULES]
    rating: Annotated[float, Doc("Glicko-2 rating (show it rounded)")]
    rd: Annotated[float, Doc("rating deviation")]
    volatility: float
    provisional: Annotated[bool, Doc("RD >= 110: not listed on the rating board")]
    games: Annotated[int, Doc("rated games that count (not voided)")]


class RatingsBody(TypedDict):
    """A player's rating in each ruleset they played rated, in the order of /rules."""

    player: str
    ratings: list[RatingBody]


class RatingPointBody(TypedDict):
    """One row of a player's rating history."""

    n: Annotated[int, Doc("1, 2, 3… per player and ruleset, in the order of the changes")]
    kind: Annotated[str, Choices(("game", "void", "restore"))]
    game: Annotated[str, Format("uuid"), Doc("the rated game")]
    at: Timestamp
    rating: Annotated[float, Doc("the rating after this change")]
    rd: float


class RatingHistoryBody(TypedDict):
    """A player's rating in one ruleset, with a page of its history, newest first."""

    player: str
    rules: Annotated[str, RULES]
    rating: float
    rd: float
    volatility: float
    provisional: bool
    games: int
    history: list[RatingPointBody]
    next: Annotated[str | None, Doc("the URL of the history's next (older) page, or null")]


class ErrorBody(TypedDict):
    """Every error: a stable ``code``, a localised ``detail``, and fields named by status
    (docs/api.md#errors)."""

    code: str
    detail: str
    fields: NotRequired[
        Annotated[
            dict[str, list[str]],
            Doc("400: messages by request field (non_field_errors for the whole body)"),
        ]
    ]
    version: NotRequired[Annotated[int, Doc("409: the game's current version")]]
    request_id: NotRequired[
        Annotated[str, Doc("the request's id, as in the X-Request-ID header of the answer")]
    ]


PHASES = Choices(("scheduled", "running", "finished"))


class RaceBody(TypedDict):
    """A race between friends (docs/api.md#races)."""

    id: Annotated[str, Format("uuid")]
    code: Annotated[str, Doc("the short code to join by")]
    title: str
    rules: Annotated[str, RULES]
    deals: Annotated[int, Doc("1 to 5")]
    public: Annotated[bool, Doc("listed for everyone (a private race is joined by link or code)")]
    creator: str | None
    starts_at: Timestamp
    ends_at: Annotated[str, Format("date-time"), Doc("the start plus the time limit")]
    time_limit: Annotated[int, Doc("seconds")]
    status: Annotated[str, PHASES]
    finished_at: Annotated[
        str | None, Format("date-time"), Doc("when the results became final, once they are")
    ]
    racers: int
    seeds: Annotated[list[int] | None, Doc("the deals' seeds, in order: null until finished")]
    server_time: Annotated[str, Format("date-time"), Doc("the server's clock now")]


class ArenaBody(TypedDict):
    """An arena: the rotation's, staff's or a player's (docs/api.md#arenas)."""

    id: Annotated[str, Format("uuid")]
    code: Annotated[str | None, Doc("a player's arena: the short code to share; else null")]
    title: str
    rules: Annotated[str, RULES]
    public: Annotated[bool, Doc("listed for everyone (a private arena is reached by its code)")]
    creator: Annotated[str | None, Doc("the player who made it; null for the server's")]
    starts_at: Timestamp
    ends_at: Timestamp
    status: Annotated[str, PHASES]
    players: int
    seeds: Annotated[
        list[int] | None, Doc("the seeds of the deals played, in order: null until finished")
    ]
    points: Annotated[dict[str, int], Doc("the points table (docs/api.md#arena-points)")]
    server_time: Annotated[str, Format("date-time"), Doc("the server's clock now")]


class RaceStandingBody(TypedDict):
    """A racer's totals over their deals, ranked by most deals won, then most won without a
    hint, then the earliest last win (docs/api.md#race-standings)."""

    rank: int
    player: str
    won: Annotated[int, Doc("deals won")]
    unaided: Annotated[int, Doc("of the deals won, those won without a hint (more rank first)")]
    finished: Annotated[int, Doc("deals finished (won, lost or resigned)")]
    sequences: int
    revealed: int
    score: int
    moves: int
    elapsed_ms: Annotated[
        int | None, Doc("from the race's start to the racer's last win; null with no win")
    ]
    hints: Annotated[int, Doc("hints the racer was shown, over all their deals")]
    games: Annotated[
        list[Annotated[str, Format("uuid")]] | None,
        Doc(
            "the player's games in the order they were dealt, where the caller may read them "
            "(everyone's once it is finished; one's own and, to staff, every one while it "
            "runs); else null"
        ),
    ]


class ArenaStandingBody(TypedDict):
    """A player's totals over their deals of an arena, ranked by most points (a win with
    hints scores less), then most wins (docs/api.md#arena-standings)."""

    rank: int
    player: str
    points: int
    played: Annotated[int, Doc("deals dealt to the player")]
    won: int
    sequences: int
    hints: Annotated[int, Doc("hints the player was shown, over all their deals")]
    games: Annotated[
        list[Annotated[str, Format("uuid")]] | None,
        Doc(
            "the player's games in the order they were dealt, where the caller may read them "
            "(everyone's once it is finished; one's own and, to staff, every one while it "
            "runs); else null"
        ),
    ]


class RaceStandingsBody(TypedDict):
    status: Annotated[str, PHASES]
    results: list[RaceStandingBody]


class ArenaStandingsBody(TypedDict):
    status: Annotated[str, PHASES]
    results: list[ArenaStandingBody]


class RacePageBody(TypedDict):
    results: list[RaceBody]
    next: Annotated[str | None, Doc("the URL of the next page, or null")]


class ArenaPageBody(TypedDict):
    results: list[ArenaBody]
    next: Annotated[str | None, Doc("the URL of the next page, or null")]


class GameListBody(TypedDict):
    results: list[GameBody]


class LoggedEventBody(TypedDict):
    """One stored event of a game of the public log, whole (no effects: replay derives
    them)."""

    seq: int
    type: Annotated[str, Choices(events.TYPES)]
    data: dict[str, Any]
    by: Annotated[str | None, Doc("who appended it (null for an event of a removed actor)")]
    at: Timestamp


class LogEntryBody(TypedDict):
    """A game of the public log (docs/api.md#the-public-log): where it is in the log, and
    the game in the notation or as its events, hidden cards included (it is everyone's)."""

    cursor: Annotated[str, Doc("this entry's place: the after of the next read")]
    game: Annotated[str, Format("uuid")]
    published_at: Timestamp
    notation: NotRequired[Annotated[str, Doc("format=scorpion: the game (docs/notation.md)")]]
    events: NotRequired[
        Annotated[list[LoggedEventBody], Doc("format=json: the game's events, in seq order")]
    ]


class LogPageBody(TypedDict):
    results: list[LogEntryBody]
    next: Annotated[
        str | None,
        Doc("the after of the next read: the last entry's cursor (the one sent when none)"),
    ]


class ExportBody(TypedDict):
    """A month's export of the public log (docs/api.md#monthly-exports)."""

    month: Annotated[str, Doc("YYYY-MM")]
    games: int
    bytes: int
    sha256: Annotated[str, Doc("of the file, in hex")]
    url: Annotated[str, Doc("the file, gzip-compressed notation")]
    checksum_url: Annotated[str, Doc("its sha256sum line")]


class ExportListBody(TypedDict):
    results: list[ExportBody]
