"""Reading a board: a page of its rows, best first, and one player's row, each with its
rank. PostgreSQL ranks: one query a page, from the indexes of ``BoardEntry``.

A board lists the entries of its scope and period whose metric value is present (positive,
or not null), except banned players'. The order: the value (best first), then who reached it
first, then the player's id. The rank is competition ranking: 1 + how many listed players
have a strictly better value, so equal values share a rank (1, 2, 2, 4). Pages follow the
order with a keyset (the last row's value, moment and player), so a row never appears twice
or goes missing between pages because others moved.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import connection

from games.boards.metrics import Metric

_NOT_BANNED = (
    "NOT EXISTS (SELECT 1 FROM games_player p WHERE p.user_id = {t}.player_id AND p.banned)"
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
    metric, written once."""
    v, r = metric.value, metric.reached
    better, worse = (">", "<") if metric.descending else ("<", ">")
    direction = "DESC" if metric.descending else "ASC"
    game = f"e.{metric.game}" if metric.game else "NULL::uuid"
    select = f"""
SELECT 1 + (
        SELECT count(*) FROM {metric.table} b
        WHERE b.scope = e.scope AND b.period = e.period AND b.{v} {metric.present}
          AND b.{v} {better} e.{v} AND {_NOT_BANNED.format(t="b")}
    ) AS rank,
    e.player_id, u.username, e.{v}, e.{r}, {game}
FROM {metric.table} e
JOIN auth_user u ON u.id = e.player_id
WHERE e.scope = %(scope)s AND e.period = %(period)s AND e.{v} {metric.present}
  AND {_NOT_BANNED.format(t="e")}"""
    order = f"\nORDER BY e.{v} {direction}, e.{r} ASC, e.player_id ASC\nLIMIT %(limit)s"
    after = f"""
  AND (e.{v} {worse} %(a_value)s OR (e.{v} = %(a_value)s
       AND (e.{r}, e.player_id) > (%(a_reached)s, %(a_player)s)))"""
    return select + order, select + after + order, select + "\n  AND e.player_id = %(player)s"


def _rows(sql: str, params: dict[str, Any]) -> list[Row]:
    with connection.cursor() as cursor:
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
