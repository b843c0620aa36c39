"""Reads that may lag, served by a streaming replica (``DATABASE_REPLICA_URL``).

:class:`ReplicaReadsMiddleware` decides, for each ``GET`` or ``HEAD``, whether its reads go
to the replica (``games.routing``): they do unless the replica is down or lags more than
``REPLICA_MAX_LAG`` seconds, or the client wrote something the replica has not replayed yet.

Read-your-writes by log position: after a write (any other method, answered below 500) by
a client with credentials (the ``Authorization`` header, the session cookie), the primary's
log position is kept in the cache (Redis, shared by the processes) under a digest of those
credentials; that client's reads go to the replica only once it has replayed past it. A
client that never wrote, or whose writes the replica has seen, reads the replica. The
reasons for positions rather than sticky reads are in docs/operations.md#a-read-replica.

A replica that answers 400, 401, 403, 404 or any 5xx gets the request again, on the
primary: a link to a game created a moment ago, a key made by a registration the replica has
not replayed, a replica that failed in the middle of a request. ``GET`` requests are safe
to repeat (tests/api/test_get_is_safe.py).

:class:`Monitor` is one thread per process that, every ``REPLICA_CHECK_SECONDS``, reads the
primary's log position and the replica's replayed one on connections of its own; the lag is
how long ago the primary first stood past what the replica has replayed (0 while it has
replayed everything). Requests never wait for it; it exports the lag and whether the
replica is used at ``/metrics``, beside the reads served by each side.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import threading
import time
from collections.abc import Callable

import psycopg
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpRequest, HttpResponseBase

from games import metrics, routing
from scorpion_server.env import url_of_database

logger = logging.getLogger("scorpion.replica")

#: Paths always read on the primary: sign-in and keys, the admin, the probes.
PRIMARY_PATHS = ("/admin/", "/api/v1/auth/", "/healthz", "/readyz", "/metrics")
#: Answers from the replica that are asked again of the primary.
RETRIED = frozenset({400, 401, 403, 404})
#: How long a writer's log position is kept: far past any lag the replica is used with.
POSITION_SECONDS = 600


class Monitor:
    """The replica's state as this process last saw it (a thread of its own)."""

    def __init__(self, primary_url: str, replica_url: str, *, max_lag: float, every: float):
        self.primary_url, self.replica_url = primary_url, replica_url
        self.max_lag, self.every = max_lag, every
        self.up = False
        self.lag = float("inf")
        self.replayed = 0
        self.checked_at = 0.0
        self._samples: collections.deque[tuple[float, int]] = collections.deque()
        self._connections: dict[str, psycopg.Connection[tuple[object, ...]]] = {}
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="replica", daemon=True)
                self._thread.start()

    def usable(self, position: int = 0) -> bool:
        """Whether reads may go to the replica (for a client whose last write is at
        ``position``): up, checked lately, within the lag, and replayed past it."""
        fresh = time.monotonic() - self.checked_at < max(3 * self.every, 1.0)
        return self.up and fresh and self.lag <= self.max_lag and self.replayed >= position

    def suspect(self) -> None:
        """A request failed on the replica: skip it until a check finds it well."""
        self.up = False
        self._wake.set()

    def _run(self) -> None:
        while True:
            try:
                self.check()
            except Exception as error:  # noqa: BLE001  # any failure: the replica is skipped
                if self.up or self.checked_at == 0.0:
                    logger.warning("replica skipped: %r", error)
                self.up = False
                self.checked_at = time.monotonic()
                metrics.replica_up.set(0)
                for connection in self._connections.values():
                    connection.close()
                self._connections.clear()
            self._wake.wait(self.every)
            self._wake.clear()

    def _query(self, which: str, sql: str) -> object:
        connection = self._connections.get(which)
        if connection is None or connection.closed:
            url = self.primary_url if which == "primary" else self.replica_url
            # Never prepared: DATABASE_URL may be a pooler in transaction mode, whose next
            # server session may hold another client's statement of the same name.
            connection = psycopg.connect(
                url,
                autocommit=True,
                connect_timeout=settings.DB_CONNECT_TIMEOUT,
                prepare_threshold=None,
            )
            self._connections[which] = connection
        row = connection.execute(sql).fetchone()
        return None if row is None else row[0]

    def check(self) -> None:
        """Read both positions once; update the lag."""
        primary = routing.lsn(str(self._query("primary", "SELECT pg_current_wal_lsn()::text")))
        now = time.monotonic()
        self._samples.append((now, primary))
        window = max(60.0, 4 * self.max_lag)
        while self._samples and self._samples[0][0] < now - window:
            self._samples.popleft()
        replayed = self._query("replica", "SELECT pg_last_wal_replay_lsn()::text")
        # NULL: the replica is not in recovery (a promoted copy): nothing to wait for.
        self.replayed = primary if replayed is None else routing.lsn(str(replayed))
        behind = [at for at, position in self._samples if position > self.replayed]
        self.lag = time.monotonic() - behind[0] if behind else 0.0
        if not self.up:
            logger.info("replica used (lag %.2f s)", self.lag)
        self.up = True
        self.checked_at = time.monotonic()
        metrics.replica_up.set(1 if self.lag <= self.max_lag else 0)
        metrics.replica_lag.set(self.lag)


_monitor: Monitor | None = None
_monitor_lock = threading.Lock()


def monitor() -> Monitor | None:
    """This process's :class:`Monitor` (started on first use), or ``None`` without a replica."""
    global _monitor
    if routing.REPLICA not in settings.DATABASES:
        return None
    with _monitor_lock:
        if _monitor is None:
            _monitor = Monitor(
                url_of_database(settings.DATABASES[routing.PRIMARY]),
                url_of_database(settings.DATABASES[routing.REPLICA]),
                max_lag=settings.REPLICA_MAX_LAG,
                every=settings.REPLICA_CHECK_SECONDS,
            )
            _monitor.start()
        return _monitor


def _writer(request: HttpRequest) -> str | None:
    """A digest of the credentials ``request`` carries, or ``None`` without any."""
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    session = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    if not authorization and not session:
        return None
    digest = hashlib.sha256(f"{authorization}\x00{session}".encode()).hexdigest()[:32]
    return f"replica-position:{digest}"


class ReplicaReadsMiddleware:
    """Sends each request's reads to the replica or the primary (see the module)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        found = monitor()
        if found is None:
            raise MiddlewareNotUsed()
        self.monitor = found
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        writer = _writer(request)
        if request.method not in ("GET", "HEAD"):
            response = self.get_response(request)
            if writer is not None and response.status_code < 500:
                self._remember(writer)
            return response
        if request.path.startswith(PRIMARY_PATHS) or not self._may_lag(writer):
            metrics.replica_reads["primary"].inc()
            return self.get_response(request)
        with routing.reading_from(routing.REPLICA):
            response = self.get_response(request)
        status = response.status_code
        if status not in RETRIED and status < 500:
            metrics.replica_reads["replica"].inc()
            return response
        if status >= 500:
            self.monitor.suspect()
        metrics.replica_reads["retried"].inc()
        return self.get_response(request)

    def _may_lag(self, writer: str | None) -> bool:
        if writer is None:
            return self.monitor.usable()
        try:
            position = cache.get(writer, 0)
        except Exception:  # noqa: BLE001  # no cache, no knowing: the primary
            return False
        return self.monitor.usable(position)

    def _remember(self, writer: str) -> None:
        try:
            cache.set(writer, routing.primary_position(), POSITION_SECONDS)
        except Exception as error:  # noqa: BLE001  # the write is done; its reads may lag
            logger.warning("replica: could not keep a writer's position: %r", error)
