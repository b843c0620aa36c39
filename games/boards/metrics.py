"""What the leaderboards are: their scopes, their periods, and the registry of metrics.

A board is a scope (``daily``, or a ruleset's name), a metric and a period. Every scope
has every period: ``all`` (all time), a calendar month (``YYYY-MM``) and an ISO week
(``YYYY-Www``), in UTC. A result belongs to the periods that contain its finishing moment.

A metric is a column of ``BoardEntry`` ranked one way, with the moment it was reached as
the first tie-break (who got there first) and the player's id as the last. Adding a board
is one :class:`Metric` in :data:`METRICS` plus the column it ranks, in ``BoardEntry`` or in
any relation of the same shape: ``arena_points`` (:data:`ARENA_POINTS`) ranks a view over
the arenas' results (docs/architecture.md#leaderboards).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from games import engine

DAILY = "daily"
ALL = "all"
PERIODS = ("all", "month", "week")

_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def scopes() -> tuple[str, ...]:
    """Every scope: the daily challenges, then each ruleset."""
    return (DAILY, *engine.RULESETS)


def scopes_of(rules: str, day: dt.date | None) -> tuple[str, ...]:
    """The scopes a result counts in: its ruleset's, and the dailies' for a daily game."""
    return (rules, DAILY) if day is not None else (rules,)


def month_key(at: dt.datetime | dt.date) -> str:
    return f"{at.year:04d}-{at.month:02d}"


def week_key(at: dt.datetime | dt.date) -> str:
    year, week, _ = at.isocalendar()
    return f"{year:04d}-W{week:02d}"


def periods_of(at: dt.datetime) -> tuple[str, str, str]:
    """The period keys a result finished at ``at`` belongs to: all time, its UTC month and
    its UTC ISO week."""
    utc = at.astimezone(dt.UTC)
    return (ALL, month_key(utc), week_key(utc))


def period_key(period: str, at: str | None, now: dt.datetime) -> str:
    """The key of the ``period`` (``all``, ``month``, ``week``) named by ``at``: a key of
    that period (``2026-11``, ``2026-W48``), a day (``YYYY-MM-DD``) within it, or ``None``
    for the current one. :class:`ValueError` for anything else, and for a period that ends
    past the calendar's last day."""
    if period == ALL:
        if at not in (None, "", ALL):
            raise ValueError(at)
        return ALL
    if period not in PERIODS:
        raise ValueError(period)
    if at is None or at == "":
        day = now.astimezone(dt.UTC).date()
    elif len(at) == 10:
        day = dt.date.fromisoformat(at)
    elif period == "month" and (match := _MONTH.match(at)):
        day = dt.date(int(match[1]), int(match[2]), 1)
    elif period == "week" and (match := _WEEK.match(at)):
        day = dt.date.fromisocalendar(int(match[1]), int(match[2]), 1)
    else:
        raise ValueError(at)
    key = month_key(day) if period == "month" else week_key(day)
    try:  # December 9999 and the weeks that end past it have no end the calendar can name
        bounds(key)
    except OverflowError:
        raise ValueError(at) from None
    return key


def bounds(key: str) -> tuple[dt.datetime | None, dt.datetime | None]:
    """``[start, end)`` of a period key, in UTC (``None, None`` for all time)."""
    if key == ALL:
        return None, None
    if match := _MONTH.match(key):
        year, month = int(match[1]), int(match[2])
        start = dt.date(year, month, 1)
        end = dt.date(year + month // 12, month % 12 + 1, 1)
    else:
        match = _WEEK.match(key)
        assert match is not None, key
        start = dt.date.fromisocalendar(int(match[1]), int(match[2]), 1)
        end = start + dt.timedelta(days=7)
    return _midnight(start), _midnight(end)


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=dt.UTC)


@dataclass(frozen=True, slots=True)
class Metric:
    """One kind of board: ``value`` (a ``BoardEntry`` column) ranked high-first when
    ``descending``, ties ordered by ``reached`` (the column of when it was reached, earliest
    first); a player is on the board when their value is positive (``descending``) or not
    null (otherwise). ``game`` names the column of the game that made the value, if any."""

    name: str
    value: str
    reached: str
    descending: bool
    #: What the value counts, for the API document.
    unit: str
    game: str | None = None
    #: Which scopes have this board (all of them by default).
    applies: Callable[[str], bool] = lambda scope: True
    #: The table of the entries: any table with ``scope``, ``period`` and ``player_id``
    #: columns (unique together) besides ``value`` and ``reached`` will do, so a metric
    #: kept by another projection (the arenas') ranks and pages like these.
    table: str = "games_board_entry"

    @property
    def present(self) -> str:
        """SQL: the condition on the value column that puts a player on the board."""
        return "> 0" if self.descending else "IS NOT NULL"


WINS = Metric("wins", "wins", "wins_at", True, "won games")
BEST_TIME = Metric(
    "best_time",
    "best_ms",
    "best_at",
    False,
    "milliseconds from the first action to the winning one, of the fastest win",
    game="best_game",
)
STREAK = Metric(
    "streak",
    "streak",
    "streak_at",
    True,
    "the longest run of consecutive wins (daily: of consecutive UTC days won)",
)

#: Every board metric, by name.
METRICS: dict[str, Metric] = {metric.name: metric for metric in (WINS, BEST_TIME, STREAK)}


def register(metric: Metric) -> Metric:
    """Add a board metric: one more relation of per-player, per-period values ranks, pages
    and shows the caller's row like the others (docs/architecture.md#leaderboards)."""
    METRICS[metric.name] = metric
    return metric


#: The arenas' relation of ``arena_points``: the view ``games_arena_points`` (migration
#: ``0012_arena_points_board``) sums ``ContestResult.points`` of the arenas' games, voided
#: ones left out, per player, ruleset and period, so it never drifts from the results.
ARENA_POINTS_VIEW = "games_arena_points"

#: Arena points (``games.dailies.arenas``), summed over every arena of a ruleset; not for
#: ``daily`` (no arena races the daily deal). A game counts in the periods of its finish,
#: or of its last event while it is still playing; ties: who reached the total first.
ARENA_POINTS = register(
    Metric(
        "arena_points",
        "points",
        "points_at",
        True,
        "arena points: the sum of the points of the player's arena deals (not voided)",
        applies=lambda scope: scope != DAILY,
        table=ARENA_POINTS_VIEW,
    )
)

#: The ratings' relation of ``rating``: the view ``games_rating_board`` (migrations
#: ``0015_ratings``, ``0018_rating_board_periods``) of each ruleset's ratings that are not
#: provisional (RD below 110), rounded as shown: all time, the ratings now; a week or a
#: month, the players with a rating change in it, at their last change of it.
RATING_VIEW = "games_rating_board"

#: A ruleset's Glicko-2 ratings (docs/ratings.md); not for ``daily`` (the dailies are rated
#: in their ruleset's pool). Ties: who reached the rating first (their last change).
RATING = register(
    Metric(
        "rating",
        "rating",
        "rated_at",
        True,
        "the player's rating in the ruleset, rounded, non-provisional players only; in a"
        " week or month, the players rated in it, as their last change of it left them",
        applies=lambda scope: scope != DAILY,
        table=RATING_VIEW,
    )
)
