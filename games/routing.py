"""Which database a read goes to: the primary, or a streaming replica for reads that may lag.

Like ``games.clock``, this module sits beside the layers and imports none of them. Nothing
here decides whether a read may lag: the server's middleware does, per request
(``scorpion_server.replica``), and says so with :func:`reading_from`; everything else reads
the primary. The ORM asks :class:`Router`; a read written in SQL takes its connection from
:func:`read_connection` instead of ``django.db.connection``.

Within a transaction on the primary every read stays there, so a read-modify-write never
mixes the two; so do the tables of authentication (sessions), whose revocations must hold at
once on every process (API keys are read in SQL on the primary already).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

PRIMARY = "default"
REPLICA = "replica"

_target: contextvars.ContextVar[str] = contextvars.ContextVar("read_target", default=PRIMARY)

#: Models read on the primary whatever the request: a revoked session must not open doors.
_ALWAYS_PRIMARY = frozenset({"sessions.session"})


def read_alias() -> str:
    """The database alias the current read goes to."""
    alias = _target.get()
    if alias != PRIMARY and connections[PRIMARY].in_atomic_block:
        return PRIMARY
    return alias


def read_connection() -> BaseDatabaseWrapper:
    """The connection a read written in SQL uses (``with read_connection().cursor()``)."""
    return connections[read_alias()]


@contextmanager
def reading_from(alias: str) -> Iterator[None]:
    """Within the block, reads that may lag go to ``alias`` (:data:`PRIMARY` or
    :data:`REPLICA`)."""
    token = _target.set(alias)
    try:
        yield
    finally:
        _target.reset(token)


class Router:
    """Django's database router: writes and migrations to the primary, reads to
    :func:`read_alias`."""

    def db_for_read(self, model: Any, **hints: Any) -> str:
        if model._meta.label_lower in _ALWAYS_PRIMARY:
            return PRIMARY
        return read_alias()

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # one database, two copies of it

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == PRIMARY


def lsn(text: str) -> int:
    """A PostgreSQL log position (``16/B374D848``) as a number."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


def primary_position() -> int:
    """The primary's log position now: a replica that has replayed this far has seen every
    transaction committed before."""
    with connections[PRIMARY].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        row = cursor.fetchone()
    return lsn(row[0])


def caught_up_replica(*, wait: float = 10.0) -> str:
    """:data:`REPLICA` if one is configured, reachable and, within ``wait`` seconds, replays
    past the primary's position now (so it holds everything committed so far); else
    :data:`PRIMARY`. For long reads off the request path, such as the monthly exports."""
    if REPLICA not in connections.settings:
        return PRIMARY
    target = primary_position()
    deadline = time.monotonic() + wait
    try:
        while True:
            with connections[REPLICA].cursor() as cursor:
                cursor.execute("SELECT pg_last_wal_replay_lsn()::text")
                row = cursor.fetchone()
            if row is None or row[0] is None or lsn(row[0]) >= target:
                return REPLICA  # NULL: not in recovery, a copy that is not behind
            if time.monotonic() >= deadline:
                return PRIMARY
            time.sleep(0.1)
    except DatabaseError:
        return PRIMARY
    finally:
        connections[REPLICA].close()
