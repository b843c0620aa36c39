"""Appending an event to a stream in one statement, guarded by the version it follows.

A command no longer locks its game's row: it runs the engine on the state it holds (the
process's stream cache), then sends one statement that, atomically, updates the ``Game``
row *only if* it is still at the version the command was decided on (and its owner is not
banned, and the idempotency key is unused), inserts the event, and upserts the game's daily
standing (or its race's or arena's result: ``games_contest_result``) and, for the event
that finishes a game, its leaderboard result and entries (``games.boards.projection``). The
row lock PostgreSQL takes for that ``UPDATE`` orders concurrent writers: a writer that lost
the race re-checks the guard on the new row and changes nothing. So a command costs one
round trip when the process knew the game's latest version, and no transaction is left open
while Python runs (docs/architecture.md#the-command-path).

When the guard fails, :func:`why_not` reads in one query what changed: the current version,
whether the owner is banned, and the first command that carried the idempotency key. The
statements are SQL written once (no query building per command); with
``DB_SERVER_SIDE_BINDING`` psycopg prepares them on each pooled connection.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import connection
from psycopg.types.json import Jsonb

from games.boards import projection as boards
from games.dailies import contests

_GAME_COLUMNS = (
    "version",
    "status",
    "blocked",
    "score",
    "moves",
    "undos",
    "reserve",
    "removed",
    "revealed",
    "board",
    "voided",
    "updated_at",
    "finished_at",
)
_STANDING_COLUMNS = (
    "challenge_id",
    "player_id",
    "status",
    "moves",
    "score",
    "sequences",
    "revealed",
    "elapsed_ms",
    "version",
    "hints",
    "voided",
    "joined_at",
    "flag_fast",
    "flag_regular",
    "rhythm_cv",
)

#: Columns of ``games_contest_result``, as the contests layer defines them.
_RESULT_COLUMNS = contests.RESULT_COLUMNS

_HEAD = f"""
WITH head AS (
    UPDATE games_game AS g
    SET {", ".join(f"{column} = %(g_{column})s" for column in _GAME_COLUMNS)}
    WHERE g.id = %(game)s AND g.version = %(after)s
      AND (NOT %(check_ban)s OR NOT EXISTS (
          SELECT 1 FROM games_player AS p WHERE p.user_id = g.owner_id AND p.banned))
      AND (%(key)s::text IS NULL OR NOT EXISTS (
          SELECT 1 FROM games_event AS k WHERE k.game_id = g.id AND k.idempotency_key = %(key)s))
    RETURNING g.id
)"""
_STANDING = f""",
standing AS (
    INSERT INTO games_standing (game_id, {", ".join(_STANDING_COLUMNS)})
    SELECT id, {", ".join(f"%(s_{column})s" for column in _STANDING_COLUMNS)} FROM head
    ON CONFLICT (game_id) DO UPDATE SET
    {", ".join(f"{column} = EXCLUDED.{column}" for column in _STANDING_COLUMNS)}
)"""
_RESULT = f""",
result AS (
    INSERT INTO games_contest_result (game_id, {", ".join(_RESULT_COLUMNS)})
    SELECT id, {", ".join(f"%(r_{column})s" for column in _RESULT_COLUMNS)} FROM head
    ON CONFLICT (game_id) DO UPDATE SET
    {", ".join(f"{column} = EXCLUDED.{column}" for column in _RESULT_COLUMNS)}
)"""
_EVENT = """
INSERT INTO games_event
    (game_id, seq, type, data, schema_version, actor_id, at, idempotency_key, request_hash)
SELECT id, %(after)s + 1, %(type)s, %(data)s, %(schema_version)s, %(actor)s, %(at)s,
       %(key)s, %(request_hash)s
FROM head
RETURNING position"""

# The event that finishes a game also writes its leaderboard result and entries, and says
# whether an entry received it out of finishing order (then it is recomputed).
_EVENT_FINISHING = """,
event AS (
    INSERT INTO games_event
        (game_id, seq, type, data, schema_version, actor_id, at, idempotency_key, request_hash)
    SELECT id, %(after)s + 1, %(type)s, %(data)s, %(schema_version)s, %(actor)s, %(at)s,
           %(key)s, %(request_hash)s
    FROM head
    RETURNING position
)
SELECT position, COALESCE((SELECT bool_or(dirty) FROM board_entries), FALSE) FROM event"""


def _statement(standing: bool, result: bool, finishing: bool) -> str:
    return (
        _HEAD
        + (_STANDING if standing else "")
        + (_RESULT if result else "")
        + (boards.RESULT_SQL + boards.ENTRIES_SQL + _EVENT_FINISHING if finishing else _EVENT)
    )


#: Every statement an append may send, keyed by (standing, contest result, finishing): SQL
#: written once, at import.
STATEMENTS = {
    (standing, result, finishing): _statement(standing, result, finishing)
    for standing in (False, True)
    for result in (False, True)
    for finishing in (False, True)
}

WHY_NOT = """
SELECT g.version,
       EXISTS (SELECT 1 FROM games_player AS p WHERE p.user_id = g.owner_id AND p.banned),
       k.seq, k.request_hash
FROM games_game AS g
LEFT JOIN games_event AS k ON k.game_id = g.id AND k.idempotency_key = %(key)s
WHERE g.id = %(game)s"""


@dataclass(frozen=True, slots=True)
class Appended:
    """The event to append after version ``after`` of game ``game``."""

    game: uuid.UUID
    after: int
    type: str
    data: dict[str, Any]
    schema_version: int
    actor: int
    at: dt.datetime
    key: str | None = None
    request_hash: str | None = None


class Stored(NamedTuple):
    """An appended event's global position, and whether a leaderboard entry received the
    game's result out of finishing order (``games.boards.projection.repair`` fixes it)."""

    position: int
    reordered: bool = False


def append(
    event: Appended,
    *,
    game_row: dict[str, Any],
    standing_row: dict[str, Any] | None,
    check_ban: bool,
    result_row: dict[str, Any] | None = None,
    finishing: dict[str, Any] | None = None,
) -> Stored | None:
    """Append ``event`` and write the game's row (``game_row``: the projected fields), for
    a daily game its standing, for a race's or arena's game its result (``result_row``), and
    for the event that finishes the game its leaderboard result and entries (``finishing``:
    ``games.boards.projection.finishing_params``), in one statement; ``None`` when the guard
    refused: the game has moved on, its owner is banned (with ``check_ban``) or the key was
    used."""
    params: dict[str, Any] = {
        "game": event.game,
        "after": event.after,
        "check_ban": check_ban,
        "key": event.key,
        "type": event.type,
        "data": Jsonb(event.data),
        "schema_version": event.schema_version,
        "actor": event.actor,
        "at": event.at,
        "request_hash": event.request_hash,
    }
    for column in _GAME_COLUMNS:
        value = game_row[column]
        params[f"g_{column}"] = Jsonb(value) if column == "board" else value
    if standing_row is not None:
        for column in _STANDING_COLUMNS:
            params[f"s_{column}"] = standing_row[column]
    if result_row is not None:
        for column in _RESULT_COLUMNS:
            params[f"r_{column}"] = result_row[column]
    if finishing is not None:
        params.update(finishing)
    statement = STATEMENTS[standing_row is not None, result_row is not None, finishing is not None]
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        row = cursor.fetchone()
    if row is None:
        return None
    return Stored(int(row[0]), bool(row[1]) if finishing is not None else False)


class Refusal(NamedTuple):
    """Why a guarded append changed nothing: the game's current version, whether its owner
    is banned, and the ``seq`` and request hash of the event that used the key, if one did."""

    version: int
    banned: bool
    key_seq: int | None
    key_hash: str | None


def why_not(game: uuid.UUID, key: str | None) -> Refusal | None:
    """What the guard saw (``None``: there is no such game), in one query."""
    with connection.cursor() as cursor:
        cursor.execute(WHY_NOT, {"game": game, "key": key})
        row = cursor.fetchone()
    return None if row is None else Refusal(*row)
