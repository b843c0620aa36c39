"""Commit order: the public log, and every event, read in an order no later commit changes.

A sequence number (``games_event.position``, ``games_public_log.id``) is taken when a row is
inserted, not when its transaction commits: a writer that took 7 may commit after the one
that took 8, so a reader that saw 8 and resumes "after 8" never sees 7. Locking the table
for every writer would fix it and serialise every command. Instead every row carries the
id of the transaction that wrote it (``xid8``, ``pg_current_xact_id()``, a column default)
and readers read only the rows whose transaction id is below the **high-water mark**
``pg_snapshot_xmin(pg_current_snapshot())``: the oldest transaction still running when the
reader's snapshot was taken. Every transaction below it has ended, so the rows below it
are final (committed, or never there), and every transaction that can still commit will
have an id at or above it. Rows are ordered by ``(xid, id)``; a reader's cursor is the last
``(xid, id)`` it read, and the next read starts after it: nothing that can commit later
sorts before it. The cost is latency, never loss: a transaction left open anywhere in the
cluster holds the mark back until it ends (docs/architecture.md#the-public-log).

:func:`entries` pages the public log (``games_public_log``: one row per game that became
open to everyone, written by ``games.projections.public_log`` and
``games.writes.public_log``); :func:`events_in_commit_order` reads every event the same way
(for any read model that must fold games in the order they happened, such as ratings).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import struct
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from games import routing
from games.store import notation
from games.store.models import Event, PublicLogEntry, Xid8Field
from games.store.notation import stored

#: The high-water mark: rows of transactions below it are final.
HORIZON = "pg_snapshot_xmin(pg_current_snapshot())"

#: Inserts a game's entry, its transaction id by the column's default (``games.projections
#: .public_log`` adds it to the append statement as a fragment reading ``FROM head``).
INSERT_FROM_HEAD = """INSERT INTO games_public_log (game_id, published_at)
SELECT id, %(p_published_at)s FROM head
ON CONFLICT (game_id) DO NOTHING
RETURNING id"""

_PACK = struct.Struct(">QQ")


class BadCursor(ValueError):
    """A cursor this server did not make."""


@dataclass(frozen=True, order=True, slots=True)
class Cursor:
    """A place in commit order: the transaction id and the row id of the last row read."""

    xid: int
    id: int

    def encode(self) -> str:
        """The cursor as clients see it: 22 URL-safe characters, opaque."""
        return base64.urlsafe_b64encode(_PACK.pack(self.xid, self.id)).rstrip(b"=").decode()

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """The cursor ``text`` encodes; :class:`BadCursor` for any text :meth:`encode` does
        not make (whether it names a row is :func:`known`'s to say)."""
        if len(text) != 22 or not text.isascii():
            raise BadCursor(text)
        try:
            raw = base64.urlsafe_b64decode(text + "==")
        except (binascii.Error, ValueError):
            raise BadCursor(text) from None
        cursor = cls(*_PACK.unpack(raw))
        if cursor.encode() != text:  # the padding bits of the last character are set
            raise BadCursor(text)
        return cursor


@dataclass(frozen=True, slots=True)
class Entry:
    """A row of the public log: where it is, the game, when the game became open to
    everyone, and its notation as of ``version`` (``None`` until written), which PostgreSQL
    hands over as a JSON string (``notation_json``), ready for a page to pass through.
    ``head`` is the entry's JSON object as PostgreSQL writes it (``{"cursor", "game",
    "published_at"``, without its closing brace)."""

    cursor: Cursor
    game_id: uuid.UUID
    published_at: dt.datetime
    version: int | None
    notation_json: str | None
    head: str

    @property
    def notation(self) -> str | None:
        """The stored notation."""
        return None if self.notation_json is None else str(json.loads(self.notation_json))


#: The entry's columns; the text cast is named apart ("ORDER BY xid" would otherwise sort by
#: the text). The JSON is :attr:`Entry.head`: the cursor as :meth:`Cursor.encode` writes it,
#: the time as ``games.reads.presenters.timestamp`` does.
_COLUMNS = """xid::text AS xid_text, id, game_id, published_at, version,
    to_json(notation)::text,
    '{"cursor":"' || rtrim(translate(encode(
        int8send(xid::text::bigint) || int8send(id), 'base64'), '+/', '-_'), '=')
    || '","game":"' || game_id || '","published_at":"'
    || to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'"""


def _entry(row: Sequence[Any]) -> Entry:
    xid, id_, game_id, published_at, version, text, head = row
    return Entry(Cursor(int(xid), id_), game_id, published_at, version, text, head)


def entries(after: Cursor | None, limit: int) -> list[Entry]:
    """Up to ``limit`` entries of the public log after ``after`` (from the start for
    ``None``), in the log's order, only below the high-water mark: a later read never finds
    an entry that sorts before one read here. :class:`BadCursor` when ``after`` names no
    entry (checked in the same query)."""
    where, params = _after(after)
    known = "" if after is None else ", EXISTS (SELECT 1 FROM named)"
    named = (
        ""
        if after is None
        else "WITH named AS (SELECT 1 FROM games_public_log"
        " WHERE id = %(a_id)s AND xid = %(a_xid)s::xid8) "
    )
    with routing.read_connection().cursor() as cursor:
        cursor.execute(
            f"{named}SELECT {_COLUMNS}{known} FROM games_public_log"
            f" WHERE xid < {HORIZON}{where} ORDER BY xid, id LIMIT %(limit)s",
            {**params, "limit": limit},
        )
        rows = cursor.fetchall()
    if after is not None:
        if rows and not rows[0][-1]:
            raise BadCursor(after.encode())
        if not rows and not known_cursor(after):
            raise BadCursor(after.encode())
        rows = [row[:-1] for row in rows]
    return [_entry(row) for row in rows]


def known_cursor(cursor: Cursor) -> bool:
    """Whether ``cursor`` names an entry of the log: every cursor the server hands out does."""
    with routing.read_connection().cursor() as db:
        db.execute(
            "SELECT 1 FROM games_public_log WHERE id = %(id)s AND xid = %(xid)s::xid8",
            {"id": cursor.id, "xid": str(cursor.xid)},
        )
        return db.fetchone() is not None


def published_between(start: dt.datetime, end: dt.datetime) -> Iterator[Published]:
    """The game and stored notation of every entry published in ``[start, end)``, in the
    log's order, below the high-water mark, streamed from a server-side cursor (never held
    whole)."""
    rows = (
        PublicLogEntry.objects.filter(
            published_at__gte=start, published_at__lt=end, xid__lt=RawSQL(HORIZON, ())
        )
        .order_by("xid", "id")
        .values_list("game_id", "notation")
    )
    for game_id, text in rows.iterator(chunk_size=2000):
        yield Published(game_id, text)


class Published(NamedTuple):
    """A game of the log and its stored notation (``None`` until written)."""

    game_id: uuid.UUID
    notation: str | None


def horizon() -> int:
    """The high-water mark now."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {HORIZON}::text")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


def snapshot_end() -> int:
    """The first transaction id not begun yet: once :func:`horizon` reaches it, every
    transaction running now has ended."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


def events_json(game_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Each game's stored events as a JSON array, ``[{"seq", "type", "data", "by", "at"}]``
    in ``seq`` order, built by PostgreSQL in one query, ``by`` the pseudonym of whoever
    caused the event (the public record names nobody). ``data`` is passed through as stored:
    ``games.store.events.decode`` accepts only exactly what an event's class writes, so that
    is what the API shows of it too. The events hold hidden cards: only for games of the
    public log."""
    if not game_ids:
        return {}
    with routing.read_connection().cursor() as cursor:
        cursor.execute(_EVENTS_JSON, {"games": list(game_ids)})
        return dict(cursor.fetchall())


_EVENTS_JSON = """
SELECT e.game_id,
       json_agg(json_build_object(
           'seq', e.seq, 'type', e.type, 'data', e.data, 'by', u.pseudonym,
           'at', to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       ) ORDER BY e.seq)::text
FROM games_event AS e LEFT JOIN games_account AS u ON u.user_id = e.actor_id
WHERE e.game_id = ANY(%(games)s)
GROUP BY e.game_id"""


def write(game_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, tuple[int, str]]:
    """The notation of each game of ``game_ids`` now, with its version: what an entry
    holds, its players named by their pseudonyms (an account's closure changes no entry).
    The text names the deal: only for games the public log holds."""
    ids = list(game_ids)
    if not ids:
        return {}
    rows = (
        Event.objects.filter(game_id__in=ids)
        .select_related("actor__account")
        .order_by("game_id", "seq")
        .iterator(chunk_size=4000)
    )
    written = {}
    for transcript in stored.transcripts(rows, pseudonymous=True):
        assert transcript.game_id is not None
        written[transcript.game_id] = (len(transcript.entries), notation.write(transcript))
    return written


# --- every event in commit order --------------------------------------------------------------


def events_in_commit_order(after: Cursor | None = None, *, chunk: int = 2000) -> Iterator[Event]:
    """Every event of every game after ``after``, in commit order (``(xid, position)``; the
    events older than the ``xid`` column first, by position), below the high-water mark,
    streamed (``chunk`` rows at a time); each event's own place is :func:`event_cursor`.
    Within a game this is ``seq`` order (its writers queue on the game's row). Events hold
    hidden cards: for read models that keep none of them, never to show as they are."""
    rows = Event.objects.select_related("actor").annotate(
        committed=Coalesce("xid", RawSQL("'0'::xid8", (), output_field=Xid8Field()))
    )
    rows = rows.filter(Q(xid__isnull=True) | Q(xid__lt=RawSQL(HORIZON, ())))
    if after is not None:
        xid = RawSQL("%s::xid8", (str(after.xid),), output_field=Xid8Field())
        rows = rows.filter(Q(committed__gt=xid) | Q(committed=xid, position__gt=after.id))
    yield from rows.order_by("committed", "position").iterator(chunk_size=chunk)


def event_cursor(event: Event) -> Cursor:
    """An event's place in commit order, to resume :func:`events_in_commit_order` after it."""
    return Cursor(event.xid or 0, event.position)


def _after(after: Cursor | None) -> tuple[str, dict[str, Any]]:
    if after is None:
        return "", {}
    return " AND (xid, id) > (%(a_xid)s::xid8, %(a_id)s)", {
        "a_xid": str(after.xid),
        "a_id": after.id,
    }
