"""Django's PostgreSQL backend (psycopg 3, with its pool) that fails fast while PostgreSQL is
unreachable, and uses it again as soon as it is back.

With PostgreSQL down, the pool cannot make a connection, and every request would wait
``DB_POOL_TIMEOUT`` for one before its 503; once PostgreSQL is back, the pool's retries may
have backed off for a while. Here each connection the pool makes reports whether it could
connect (:class:`TrackedConnection`). Once an attempt failed, and none succeeded since,
a request does not wait on the pool: it tries to connect itself, one request at a time
(refused at once while PostgreSQL is down, ``DB_CONNECT_TIMEOUT`` at most for a host that
does not answer), and gets its ``OperationalError`` (503 ``unavailable``) if that fails.
If it succeeds and the pool holds no connection, the pool is replaced by a fresh one, which
connects at once.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
from django.db.backends.postgresql import base

#: After a failed attempt, requests fail without trying again for this long.
QUIET_SECONDS = 0.25


class Health:
    """Whether this process's last attempt to connect to PostgreSQL succeeded."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.failed_at = 0.0
        self.connected_at = 0.0

    def connected(self) -> None:
        self.connected_at = time.monotonic()

    def failed(self) -> None:
        self.failed_at = time.monotonic()

    @property
    def unreachable(self) -> bool:
        return self.failed_at > self.connected_at


health = Health()


class TrackedConnection(psycopg.Connection[Any]):
    """A psycopg connection that reports each attempt to connect to :data:`health`."""

    @classmethod
    def connect(cls, *args: Any, **kwargs: Any) -> Any:
        try:
            connection = super().connect(*args, **kwargs)
        except psycopg.OperationalError:
            health.failed()
            raise
        health.connected()
        return connection


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, settings_dict: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(settings_dict, *args, **kwargs)
        pool = settings_dict.get("OPTIONS", {}).get("pool")
        if isinstance(pool, dict):  # the pool's connections report to ``health``
            pool.setdefault("connection_class", TrackedConnection)

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        if self.pool is not None and health.unreachable:
            self._reconnect(conn_params)
        return super().get_new_connection(conn_params)

    def _reconnect(self, conn_params: dict[str, Any]) -> None:
        """Connect once, outside the pool: an ``OperationalError`` if PostgreSQL is still
        unreachable; else a fresh pool, whose connections are made at once."""
        with health.lock:
            if not health.unreachable:
                return  # another request found it back meanwhile
            if time.monotonic() - health.failed_at < QUIET_SECONDS:
                raise psycopg.OperationalError("PostgreSQL is unreachable (it just failed)")
            TrackedConnection.connect(**conn_params).close()
            if self.pool is not None and not self.pool.get_stats().get("pool_available"):
                self.close_pool()  # it holds nothing, and its retries may be backing off
