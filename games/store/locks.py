"""Session-level advisory locks: one worker at a time on a piece of long work (preparing a
day, filling a pool), released when the work ends or its process dies.

Held on the thread's Django connection; but behind a pooler in transaction mode
(``DB_POOLER=transaction``) consecutive statements may run on different server sessions, so
the lock is taken on a connection of its own to ``DATABASE_LISTEN_URL`` (PostgreSQL itself)
and released by closing it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.conf import settings
from django.db import connection


@contextmanager
def session_lock(key: int) -> Iterator[bool]:
    """Try the advisory lock ``key`` for the block; whether this process got it."""
    if settings.DB_POOLER == "transaction":
        with psycopg.connect(settings.DATABASE_LISTEN_URL, autocommit=True) as direct:
            row = direct.execute("SELECT pg_try_advisory_lock(%s)", [key]).fetchone()
            yield bool(row and row[0])
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        (mine,) = cursor.fetchone()
    try:
        yield bool(mine)
    finally:
        if mine:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
