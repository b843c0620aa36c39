"""Reading a board: a page of its rows, best first, and one player's row, each with its
rank. PostgreSQL ranks: one query a page, from the indexes of ``BoardEntry``.

A board lists the entries of its scope and period whose metric value is present (positive,
or not null), except those of banned players and closed accounts. The order: the
value (best first), then who reached it first, then the player's id. The rank is
competition ranking: 1 + how many listed players have a strictly better value, so equal
values share a rank (1, 2, 2, 4), computed for a whole page from two index-range counts
(not one a row). Pages follow the order with a keyset (the last row's value, moment and
player), so a row never appears twice or goes missing between pages because others moved.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from dataclasses import dataclass
from typing import Any

from games import routing
from games.boards.metrics import Metric

#: Who is listed: neither banned nor a closed account (few: a small partial index,
#: ``account_closed``). Guests have no entries at all (``games.projections.leaderboards``).
_LISTED = (
    "NOT EXISTS (SELECT 1 FROM games_player p WHERE p.user_id = {t}.player_id AND p.banned)"
    " AND NOT EXISTS (SELECT 1 FROM games_account a WHERE a.user_id = {t}.player_id"
    " AND a.closed_at IS NOT NULL AND NOT a.guest)"
)


@dataclass(frozen=True, slots=True)
class Row:
    """A player's row on a board."""

    rank: int
    player_id: int
    player: str
    value: int
    reached: dt.datetime
    game: uuid.UUID | None


@dataclass(frozen=True, slots=True)
class Position:
    """Where a row stands in a board's order: a page starts after it."""

    value: int
    reached: dt.datetime
    player_id: int


@functools.cache
def _sql(metric: Metric) -> tuple[str, str, str]:
    """The page query, the page-after-a-position query and the one-player query of a
    metric, written once.

    A page's ranks cost two index-range counts, whatever its length: ``better``, the listed
    rows strictly better than the page's first value, and ``level``, those equal to it.
    A row with the first value ranks ``1 + better``; any other row ``better + level -
    first + rank()``, where ``first`` counts the page's rows with the first value and
    ``rank()`` is the row's rank within the page (every row between the first value and
    its own lies on the page, the order being contiguous).
    """
    v, r = metric.value, metric.reached
    better, worse = (">", "<") if metric.descending else ("<", ">")
    direction = "DESC" if metric.descending else "ASC"
    game = f"e.{metric.game}" if metric.game else "NULL::uuid"
    listed = f"""
FROM {metric.table} e
JOIN auth_user u ON u.id = e.player_id
WHERE e.scope = %(scope)s AND e.period = %(period)s AND e.{v} {metric.present}
  AND {_LISTED.format(t="e")}"""
    order = f"ORDER BY e.{v} {direction}, e.{r} ASC, e.player_id ASC"
    after = f"""
  AND (e.{v} {worse} %(a_value)s OR (e.{v} = %(a_value)s
       AND (e.{r}, e.player_id) > (%(a_reached)s, %(a_player)s)))"""

    def paged(condition: str) -> str:
        return f"""
WITH page AS (
    SELECT e.player_id, u.username, e.{v} AS value, e.{r} AS reached, {game} AS game
    {listed}{condition}
    {order}
    LIMIT %(limit)s
), head AS (
    SELECT value FROM page ORDER BY value {direction} LIMIT 1
), above AS (
    SELECT count(*) FILTER (WHERE b.{v} {better} head.value) AS better,
           count(*) FILTER (WHERE b.{v} = head.value) AS level
    FROM {metric.table} b, head
    WHERE b.scope = %(scope)s AND b.period = %(period)s AND b.{v} {metric.present}
      AND (b.{v} {better} head.value OR b.{v} = head.value)
      AND {_LISTED.format(t="b")}
)
SELECT CASE WHEN p.value = head.value THEN 1 + above.better
            ELSE above.better + above.level
                 - count(*) FILTER (WHERE p.value = head.value) OVER ()
                 + rank() OVER (ORDER BY p.value {direction}) END,
       p.player_id, p.username, p.value, p.reached, p.game
FROM page p, head, above
ORDER BY p.value {direction}, p.reached ASC, p.player_id ASC"""

    one = f"""
SELECT 1 + (
        SELECT count(*) FROM {metric.table} b
        WHERE b.scope = e.scope AND b.period = e.period AND b.{v} {metric.present}
          AND b.{v} {better} e.{v} AND {_LISTED.format(t="b")}
    ),
    e.player_id, u.username, e.{v}, e.{r}, {game}
{listed}
  AND e.player_id = %(player)s"""
    return paged(""), paged(after), one


def _rows(sql: str, params: dict[str, Any]) -> list[Row]:
    with routing.read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        return [Row(*row) for row in cursor.fetchall()]


def page(
    metric: Metric, scope: str, period: str, *, after: Position | None, limit: int
) -> tuple[list[Row], bool]:
    """Up to ``limit`` rows of the board after ``after`` (from the top without it), and
    whether more follow."""
    first, following, _ = _sql(metric)
    params: dict[str, Any] = {"scope": scope, "period": period, "limit": limit + 1}
    if after is not None:
        params.update(a_value=after.value, a_reached=after.reached, a_player=after.player_id)
    rows = _rows(following if after is not None else first, params)
    return rows[:limit], len(rows) > limit


def own(metric: Metric, scope: str, period: str, player_id: int) -> Row | None:
    """``player_id``'s row on the board, or ``None`` when they are not on it."""
    _, _, one = _sql(metric)
    rows = _rows(one, {"scope": scope, "period": period, "player": player_id})
    return rows[0] if rows else None
