"""Appending an event to a stream in one statement, with every projection's part of it.

A writer runs the engine on the state it holds (the process's stream cache), then sends one
statement made of common table expressions: ``head`` writes the ``Game`` row, the stream's
head (an ``INSERT`` for a new game; for an append, an ``UPDATE`` guarded by :data:`GUARD`:
*only if* the row is still at the version the command was decided on, its owner is not
banned and the idempotency key is unused); each projection adds its own part reading the
game's id ``FROM head`` (:class:`Fragment`, ``games.projections``); the event is inserted
``FROM head`` last. A guard that refuses leaves ``head`` empty, so nothing at all is
written. The row lock PostgreSQL takes for the ``UPDATE`` orders concurrent writers: a
writer that lost the race re-checks the guard on the new row and changes nothing. So a
command costs one round trip when the process knew the game's latest version, and no
transaction is left open while Python runs (docs/architecture.md#the-command-path).

When the guard fails, :func:`why_not` reads in one query what changed: the current version,
whether the owner is banned, and the first command that carried the idempotency key. The
statement for each set of fragments is composed once and kept; with
``DB_SERVER_SIDE_BINDING`` psycopg prepares it on each pooled connection.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db import connection
from psycopg.types.json import Jsonb

from games.store.models import Event

#: The condition on ``games_game AS g`` under which an append may follow version
#: ``%(after)s``: the head's ``UPDATE`` ends with it.
GUARD = """g.id = %(game)s AND g.version = %(after)s
      AND (NOT %(check_ban)s OR NOT EXISTS (
          SELECT 1 FROM games_player AS p WHERE p.user_id = g.owner_id AND p.banned))
      AND (%(key)s::text IS NULL OR NOT EXISTS (
          SELECT 1 FROM games_event AS k WHERE k.game_id = g.id AND k.idempotency_key = %(key)s))"""

_EVENT = """event AS (
    INSERT INTO games_event
        (game_id, seq, type, data, schema_version, actor_id, at, idempotency_key, request_hash)
    SELECT id, %(after)s + 1, %(type)s, %(data)s, %(schema_version)s, %(actor)s, %(at)s,
           %(key)s, %(request_hash)s
    FROM head{gates}
    RETURNING position
)"""
#: A gate: the event's row is made only once the fragment's rows were all read, so the
#: locks that fragment takes are held before the event's position is drawn.
_GATE = "\n    CROSS JOIN (SELECT count(*) FROM {name}) AS {name}_gate"

WHY_NOT = """
SELECT g.version,
       EXISTS (SELECT 1 FROM games_player AS p WHERE p.user_id = g.owner_id AND p.banned),
       k.seq, k.request_hash
FROM games_game AS g
LEFT JOIN games_event AS k ON k.game_id = g.id AND k.idempotency_key = %(key)s
WHERE g.id = %(game)s"""


@dataclass(frozen=True, slots=True)
class Fragment:
    """One projection's part of the append statement: the common table expression ``name``
    (its body ``sql``, which takes the game's id ``FROM head``) and its parameters, named
    with a prefix of the projection's own.

    ``flag``, when given, is an SQL boolean over that expression, returned with the event's
    position: it tells its projection that a follow-up is due (a leaderboard entry reached
    out of order, say). The first fragment of every statement is ``head``: the ``Game`` row.

    ``returns``, when given, is an SQL value over that expression returned with the position
    too (``Stored.returned``: a rating's change, computed under its row's lock). ``gate``:
    the event's position is drawn only after this expression has been read whole, so the
    row locks it takes order the events: of two writers of one row, the one that locked it
    first has the smaller position (docs/architecture.md#projections).
    """

    name: str
    sql: str
    params: Mapping[str, Any] = field(default_factory=dict)
    flag: str | None = None
    returns: str | None = None
    gate: bool = False


class Stored(NamedTuple):
    """An appended event's global position, the fragments whose flag came back true, and
    the values the fragments with ``returns`` returned, by name."""

    position: int
    flagged: frozenset[str] = frozenset()
    returned: Mapping[str, Any] = {}


_STATEMENTS: dict[tuple[str, ...], str] = {}


def statement(fragments: Sequence[Fragment]) -> str:
    """The one statement that writes ``fragments`` and then the event (composed once per
    set of fragments: their SQL is written once, at import, by their projections)."""
    key = tuple(
        f"{fragment.sql}{fragment.gate}{fragment.flag}{fragment.returns}" for fragment in fragments
    )
    text = _STATEMENTS.get(key)
    if text is None:
        if not fragments or fragments[0].name != "head":
            raise ValueError("the first fragment of an append is the game's row, 'head'")
        parts = [f"{fragment.name} AS (\n{fragment.sql}\n)" for fragment in fragments]
        flags = [f"COALESCE(({fragment.flag}), FALSE)" for fragment in fragments if fragment.flag]
        returns = [f"({fragment.returns})" for fragment in fragments if fragment.returns]
        gates = "".join(_GATE.format(name=fragment.name) for fragment in fragments if fragment.gate)
        text = _STATEMENTS[key] = (
            "WITH "
            + ",\n".join([*parts, _EVENT.format(gates=gates)])
            + "\nSELECT "
            + ", ".join(["position", *flags, *returns])
            + " FROM event"
        )
    return text


def append(event: Event, fragments: Sequence[Fragment], *, check_ban: bool) -> Stored | None:
    """Insert ``event`` (not saved yet: it follows version ``event.seq - 1``) with
    ``fragments`` (the game's row first) in one statement; ``None`` when the guard refused:
    the game has moved on, its owner is banned (with ``check_ban``) or the key was used."""
    params: dict[str, Any] = {
        "game": event.game_id,
        "after": event.seq - 1,
        "check_ban": check_ban,
        "key": event.idempotency_key,
        "type": event.type,
        "data": Jsonb(event.data),
        "schema_version": event.schema_version,
        "actor": event.actor_id,
        "at": event.at,
        "request_hash": event.request_hash,
    }
    for fragment in fragments:
        params.update(fragment.params)
    with connection.cursor() as cursor:
        cursor.execute(statement(fragments), params)
        row = cursor.fetchone()
    if row is None:
        return None
    flagged = [fragment.name for fragment in fragments if fragment.flag]
    returning = [fragment.name for fragment in fragments if fragment.returns]
    flags, values = row[1 : 1 + len(flagged)], row[1 + len(flagged) :]
    return Stored(
        int(row[0]),
        frozenset(name for name, up in zip(flagged, flags, strict=True) if up),
        dict(zip(returning, values, strict=True)),
    )


def replayed(game: uuid.UUID, fragments: Sequence[Fragment]) -> None:
    """Run ``fragments`` (no ``head`` among them) for ``game`` as the rebuild replays an
    event: the same SQL as the append's, ``head`` being the game's id alone and no event
    inserted."""
    params: dict[str, Any] = {"game": game}
    for fragment in fragments:
        params.update(fragment.params)
    parts = [f"{fragment.name} AS (\n{fragment.sql}\n)" for fragment in fragments]
    # A gate is read whole, as the append's event insert reads it (a query that nothing
    # reads would not run at all).
    gates = [f"(SELECT count(*) FROM {fragment.name})" for fragment in fragments if fragment.gate]
    text = (
        "WITH head AS (SELECT %(game)s::uuid AS id),\n"
        + ",\n".join(parts)
        + "\nSELECT "
        + ", ".join(["1", *gates])
    )
    with connection.cursor() as cursor:
        cursor.execute(text, params)


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
