"""Rights that end at once, on every open socket (docs/architecture.md#rights-on-sockets).

A socket opened with credentials (a ticket, or the session cookie) shows what its account's
rights allow: staff see a playing game's hidden cards, an owner their private games. A
password change, a revoked key, a deactivation, a ban or a change of staff status ends those
rights, whichever way it is made (the API, the admin, a management command, an operator's
SQL): PostgreSQL's triggers notify the channel ``scorpion_rights`` when such a change
commits (migration ``0021_rights_notify``), and each process listens.

- **Holding.** A socket :func:`hold`\\ s a :class:`Grant` for its account (and the key or
  session it came with) once the process listens, and only then reads the rights it will
  show, in one query (``games.reads.accounts.socket_rights``). A change committed after
  that read is notified after it, and finds the grant; one committed before it is in it.
- **Losing.** A notification naming the grant's account, key or session revokes it at
  once: the grant is marked, so the socket sends no frame from then on, and its ``lost``
  coroutine closes it (``api.consumers``: an ``error`` frame ``rights_changed``, then 4001;
  the client reconnects with the rights that remain).
- **Missing nothing.** PostgreSQL notifies only those listening. When the listener connects
  (again), and every ``RIGHTS_SWEEP_SECONDS`` after, it reads the rights of every grant of
  the process in three queries and revokes those that changed; a grant whose read began
  while the listener was reconnecting is refused. So a notification lost with a dropped
  connection costs at most that wait, and a listener that cannot connect lets no socket
  open with credentials (4503).

One listening connection per process (per event loop: tests run several), open while a
socket holds a grant and for a minute after the last.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError, connections

from games import metrics
from games.reads import accounts
from games.reads.accounts import Rights

logger = logging.getLogger(__name__)

#: The channel the triggers notify (``games/migrations/0021_rights_notify.py``).
CHANNEL = "scorpion_rights"
#: Seconds between two attempts to connect the listener.
RETRY_SECONDS = 1.0
#: Seconds the listener stays once no socket holds a grant, so that sockets opened one
#: after another do not each wait for a new connection.
LINGER_SECONDS = 60.0

#: What a socket calls when its rights end: close it.
Lost = Callable[[], Awaitable[None]]


class RightsUnavailable(Exception):
    """The process cannot watch rights now (PostgreSQL out of reach): no socket may open
    with credentials until it can."""


def session_digest(session_key: str) -> str:
    """How a session's notification names it: the MD5 of its key (as PostgreSQL's
    ``md5()`` writes it), so that the key itself is not sent around."""
    return hashlib.md5(session_key.encode(), usedforsecurity=False).hexdigest()


@dataclass(eq=False)
class Grant:
    """One socket's hold on its account's rights: the account, the key (``None`` unless
    a ticket of a key opened it) or session it came with, and the rights it was opened
    with once they are read."""

    user_id: int
    key_id: int | None
    session_key: str | None
    lost: Lost
    #: The listener's connection the grant was held under (:attr:`_Watch.generation`).
    generation: int
    rights: Rights | None = None
    #: Set the moment the rights end: the socket sends nothing more.
    revoked: bool = False
    session: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.session = None if self.session_key is None else session_digest(self.session_key)


async def hold(
    *, user_id: int, key_id: int | None, session_key: str | None, lost: Lost
) -> tuple[Grant, Rights] | None:
    """Hold the rights of account ``user_id`` for a socket opening with the key ``key_id``
    or the session ``session_key`` (or neither: a ticket asked with the session cookie):
    the grant and the rights to show, or ``None`` if they ended already (an inactive
    account, the key or session gone). ``lost`` is awaited once if they end later.
    :class:`RightsUnavailable` if the process cannot listen for that."""
    watch = _watch()
    watch.holding += 1
    started = time.perf_counter()
    try:
        await watch.ready()
        grant = Grant(user_id, key_id, session_key, lost, watch.generation)
        watch.add(grant)
        try:
            rights = await database_sync_to_async(accounts.socket_rights)(
                user_id=user_id, key_id=key_id, session_key=session_key
            )
        except BaseException as error:
            watch.discard(grant)
            if isinstance(error, DatabaseError | psycopg.Error):
                raise RightsUnavailable() from error
            raise
        if rights is None or grant.revoked or not watch.current(grant):
            metrics.rights_revoked.labels("opening").inc()
            watch.discard(grant)
            return None
        grant.rights = rights
        return grant, rights
    finally:
        metrics.rights_hold_seconds.observe(time.perf_counter() - started)
        watch.holding -= 1
        if watch.idle():
            watch.idle_since = time.monotonic()


def release(grant: Grant) -> None:
    """The socket closed: let its grant go (the listener stops a while after the last)."""
    _watch().release(grant)


class _Watch:
    """One event loop's grants, and the listener that revokes them."""

    def __init__(self) -> None:
        self.grants: set[Grant] = set()
        self.by_user: dict[int, set[Grant]] = {}
        self.by_key: dict[int, set[Grant]] = {}
        self.by_session: dict[str, set[Grant]] = {}
        #: Sockets between :func:`hold`'s start and its grant (the listener stays).
        self.holding = 0
        self.listening = asyncio.Event()
        #: How many times the listener connected: a grant held under an earlier
        #: connection may have missed a notification, until the next sweep.
        self.generation = 0
        self.listener: asyncio.Task[None] | None = None
        self.connection: psycopg.AsyncConnection[Any] | None = None
        self.closing: set[asyncio.Task[None]] = set()
        #: When the last grant went (the listener stops :data:`LINGER_SECONDS` after).
        self.idle_since = time.monotonic()

    # --- the grants --------------------------------------------------------------------

    def add(self, grant: Grant) -> None:
        self.grants.add(grant)
        self.by_user.setdefault(grant.user_id, set()).add(grant)
        if grant.key_id is not None:
            self.by_key.setdefault(grant.key_id, set()).add(grant)
        if grant.session is not None:
            self.by_session.setdefault(grant.session, set()).add(grant)

    def discard(self, grant: Grant) -> None:
        self.grants.discard(grant)
        _drop(self.by_user, grant.user_id, grant)
        if grant.key_id is not None:
            _drop(self.by_key, grant.key_id, grant)
        if grant.session is not None:
            _drop(self.by_session, grant.session, grant)

    def release(self, grant: Grant) -> None:
        self.discard(grant)
        if self.idle():
            self.idle_since = time.monotonic()

    def idle(self) -> bool:
        """Whether no socket holds a grant nor is holding one."""
        return not self.grants and not self.holding

    def current(self, grant: Grant) -> bool:
        """Whether the listener has listened without a break since ``grant`` was held."""
        return self.listening.is_set() and grant.generation == self.generation

    def revoke(self, grant: Grant, how: str) -> None:
        """``grant``'s rights ended: the socket sends nothing more, and is closed (unless it
        is still opening: :func:`hold` then refuses it)."""
        if grant.revoked:
            return
        grant.revoked = True
        self.discard(grant)
        if grant.rights is None:
            return
        metrics.rights_revoked.labels(how).inc()
        task = asyncio.ensure_future(_close(grant))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    def notified(self, payload: str) -> None:
        """A notification: revoke every grant of the account, key or session it names."""
        kind, _, value = payload.partition(":")
        found: set[Grant] = set()
        if kind == "u" and value.isdigit():
            found = self.by_user.get(int(value), set())
        elif kind == "k" and value.isdigit():
            found = self.by_key.get(int(value), set())
        elif kind == "s":
            found = self.by_session.get(value, set())
        for grant in list(found):
            self.revoke(grant, "notify")

    # --- the listener ------------------------------------------------------------------

    async def ready(self) -> None:
        """Return once the listener listens (starting it if needed);
        :class:`RightsUnavailable` if it cannot within ``DB_CONNECT_TIMEOUT`` seconds."""
        if self.listener is None or self.listener.done():
            self.idle_since = time.monotonic()
            self.listener = asyncio.ensure_future(self._listen_forever())
        if self.listening.is_set():
            return
        try:
            await asyncio.wait_for(self.listening.wait(), settings.DB_CONNECT_TIMEOUT)
        except TimeoutError:
            raise RightsUnavailable() from None

    async def _listen_forever(self) -> None:
        while True:
            try:
                connection = await psycopg.AsyncConnection.connect(
                    **listen_parameters(), autocommit=True
                )
            except psycopg.Error as error:
                logger.warning("rights: cannot listen for ended rights: %r", error)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self.connection = connection
            try:
                async with connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    self.generation += 1
                    self.listening.set()
                    metrics.rights_listening.set(1)
                    while True:
                        # What changed before LISTEN, and anything a notification missed.
                        await asyncio.wait_for(self._sweep(connection), settings.DB_CONNECT_TIMEOUT)
                        sweep = min(settings.RIGHTS_SWEEP_SECONDS, LINGER_SECONDS)
                        async for notify in connection.notifies(timeout=sweep):
                            self.notified(notify.payload)
                        if self.idle() and time.monotonic() - self.idle_since >= LINGER_SECONDS:
                            # Nobody to watch for a while: stop listening. At once, so that
                            # a socket opening from now on starts a listener of its own.
                            self.listening.clear()
                            self.listener = None
                            return
            except (psycopg.Error, OSError, TimeoutError) as error:
                logger.warning("rights: the listening connection failed: %r", error)
            finally:
                if self.listener is None or self.listener is asyncio.current_task():
                    self.listening.clear()
                    metrics.rights_listening.set(0)
                    self.connection = None
            await asyncio.sleep(RETRY_SECONDS)

    async def _sweep(self, connection: psycopg.AsyncConnection[Any]) -> None:
        """Read the rights of every grant with rights, and revoke those that ended."""
        held = [grant for grant in self.grants if grant.rights is not None]
        if not held:
            await connection.execute("SELECT 1")  # the connection is alive
            return
        users = sorted({grant.user_id for grant in held})
        keys = sorted({grant.key_id for grant in held if grant.key_id is not None})
        sessions = sorted({grant.session_key for grant in held if grant.session_key})
        async with connection.cursor() as cursor:
            await cursor.execute(accounts.RIGHTS_SQL, [users])
            now = {row[0]: Rights(*row) for row in await cursor.fetchall()}
            alive_keys: set[int] = set()
            if keys:
                await cursor.execute(accounts.KEYS_SQL, [keys])
                alive_keys = {row[0] for row in await cursor.fetchall()}
            alive_sessions: set[str] = set()
            if sessions:
                await cursor.execute(accounts.SESSIONS_SQL, [sessions])
                alive_sessions = {row[0] for row in await cursor.fetchall()}
        for grant in held:
            if (
                now.get(grant.user_id) != grant.rights
                or (grant.key_id is not None and grant.key_id not in alive_keys)
                or (grant.session_key is not None and grant.session_key not in alive_sessions)
            ):
                self.revoke(grant, "sweep")

    def abandon(self) -> None:
        """This watch's loop is gone (tests run one per test): close its connection."""
        connection, self.connection = self.connection, None
        if connection is not None and not connection.closed:
            connection.pgconn.finish()


async def _close(grant: Grant) -> None:
    try:
        await grant.lost()
    except Exception:
        logger.warning("rights: could not close a socket whose rights ended", exc_info=True)


def _drop(index: dict[Any, set[Grant]], key: Any, grant: Grant) -> None:
    grants = index.get(key)
    if grants is not None:
        grants.discard(grant)
        if not grants:
            del index[key]


def listen_parameters() -> dict[str, Any]:
    """How the listener connects: ``DATABASE_LISTEN_URL`` if set (PostgreSQL itself, or a
    pooler in session mode: a pooler in transaction mode cannot ``LISTEN``), else the
    ``default`` database as Django connects to it."""
    if settings.DATABASE_LISTEN_URL:
        return {"conninfo": settings.DATABASE_LISTEN_URL}
    parameters = dict(connections["default"].get_connection_params())
    parameters.pop("cursor_factory", None)  # Django's is a synchronous cursor
    return parameters


_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Watch] = weakref.WeakKeyDictionary()


def _watch() -> _Watch:
    """The running loop's watch (the watches of closed loops are abandoned)."""
    loop = asyncio.get_running_loop()
    watch = _watches.get(loop)
    if watch is None:
        for other, old in list(_watches.items()):
            if other.is_closed():
                old.abandon()
                del _watches[other]
        watch = _watches[loop] = _Watch()
    return watch
