"""Costly work, fair to all: every solver search a request runs goes through :func:`run`.

The solver (hints, quick analyses, a puzzle position missing from its tree, and whatever
comes next) must not take the server's CPU
from everyone else's requests, and no caller may take more than their share. So a search
that a request asks for is bounded twice:

1. **Per caller** (an account, or an anonymous caller's address: ``api.views.callers
   .requester``), across every server process (counted in the shared cache): one at a time
   (one more while it runs is 429 ``solver_busy``), and at most ``SOLVER_RATE`` (past it,
   429 ``solver_throttled`` with ``Retry-After`` until the next may pass). A caller's turn
   lasts until the search ends, even if the request stopped waiting for it.
2. **Per process**: the search runs in a pool of ``SOLVER_PROCESSES`` processes, at a lower
   CPU priority (``SOLVER_NICE``), never on a thread of the server: a thread only waits.
   Besides those running, ``SOLVER_QUEUE`` searches may wait their turn; one more is 503
   ``solver_overloaded`` at once, and so is an answer that does not come within
   ``SOLVER_WAIT_MS`` (the search still ends in its process, bounded by its own budget).
   Nothing queues without bound, and at most ``SOLVER_PROCESSES + SOLVER_QUEUE`` of the
   server's ``HTTP_THREADS`` ever wait on the solver.

The pool's processes are started afresh (``spawn``), never forked from the server, whose
threads may hold locks, and import ``games.reads.solver_process`` (standard library only)
and what their tasks need: a task is a top-level function of ``games.engine``, pure (no
Django, no database), its arguments and result picklable. They start with the server
(:func:`warm`, from ``scorpion_server.asgi``), live as long as it does and no longer
(``solver_process``), and at its exit the pool lets its running searches end (each is
bounded: a hint by ``HINT_TIME_LIMIT``). A process that dies (a crash in the native core)
fails the searches it had (503), and the pool is made again.

For whoever adds solver work to a request (a puzzle's check, say)::

    from games.reads import solver_work

    found = solver_work.run(hints.hint, rules, view, caller=caller, samples=128)

Work that may take longer than a request should wait is a job on the ``solver`` queue
instead (``games.jobs``), as long analyses are.
"""

from __future__ import annotations

import contextlib
import logging
import math
import multiprocessing
import os
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache

from games import metrics, rates
from games.errors import SolverBusy, SolverOverloaded, SolverThrottled
from games.reads import solver_process

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: What a solver process imports when it starts: the engine the searches run.
ENGINE = (
    "games.engine.hint",
    "games.engine.analysis",
    "games.engine.puzzles",
    "games.engine.finish",
)
#: How long a caller's turn is kept if their server process dies before ending it.
TURN_SECONDS = 60
_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def run(task: Callable[..., T], /, *args: Any, caller: str, **kwargs: Any) -> T:
    """``task(*args, **kwargs)`` computed in this process's solver pool for ``caller``
    (``account:<id>`` or ``address:<ip>``), once the caller's and the process's bounds let
    it: :class:`SolverBusy` or :class:`SolverThrottled` (429) past the caller's,
    :class:`SolverOverloaded` (503) past the process's or after ``SOLVER_WAIT_MS``. What
    ``task`` raises is raised here."""
    turn = _take_turn(caller)
    try:
        pool = _current()
        if not pool.places.acquire(blocking=False):
            metrics.solver_requests.labels("overloaded").inc()
            raise SolverOverloaded()
        try:
            _count_rate(caller)
            future = _submit(pool, task, args, kwargs)
        except BaseException:
            pool.places.release()
            raise
    except BaseException:
        turn.end()
        raise

    done = threading.Lock()

    def ended(_: object = None) -> None:
        """The search ended: its place and the caller's turn are free (once)."""
        if done.acquire(blocking=False):
            pool.places.release()
            turn.end()

    # A search the request stops waiting for keeps both until it ends.
    future.add_done_callback(ended)
    try:
        result = future.result(timeout=settings.SOLVER_WAIT_MS / 1000)
    except TimeoutError:
        future.cancel()  # if it is still waiting; a running search ends on its own
        metrics.solver_requests.labels("late").inc()
        raise SolverOverloaded() from None
    except BrokenProcessPool:
        _replace(pool)
        metrics.solver_requests.labels("crashed").inc()
        raise SolverOverloaded() from None
    except BaseException:
        ended()
        raise
    ended()  # before the answer: the caller's next request finds the turn free
    metrics.solver_requests.labels("ok").inc()
    return result


def warm() -> None:
    """Start the pool's processes now rather than for the first request (each takes a
    fraction of a second to start and import the engine)."""
    pool = _current()
    for _ in range(pool.size):
        pool.executor.submit(os.getpid)


# --- the caller's bounds -----------------------------------------------------------------


class _Turn:
    """A caller's one search at a time, held in the cache until the search ends."""

    def __init__(self, key: str | None, token: str = "") -> None:
        self.key = key
        self.token = token

    def end(self) -> None:
        key, self.key = self.key, None
        if key is None:
            return
        with contextlib.suppress(Exception):  # an unreachable cache: the turn expires
            if cache.get(key) == self.token:
                cache.delete(key)


def _take_turn(caller: str) -> _Turn:
    key, token = f"solver-turn:{caller}", uuid.uuid4().hex
    try:
        taken = cache.add(key, token, timeout=TURN_SECONDS)
    except Exception as error:  # the cache is down: the process's bound still holds
        logger.warning("solver work: cache unavailable, caller %s not bounded: %r", caller, error)
        return _Turn(None)
    if not taken:
        metrics.solver_requests.labels("busy").inc()
        busy = SolverBusy()
        busy.retry_after = 1
        raise busy
    return _Turn(key, token)


def _count_rate(caller: str) -> None:
    """Count one search against ``SOLVER_RATE``; :class:`SolverThrottled` past it."""
    rate = settings.SOLVER_RATE
    if not rate:
        return
    count, _, period = rate.partition("/")
    try:
        allowed, wait = rates.hit(f"solver-rate:{caller}", int(count), _PERIODS[period])
    except Exception as error:  # the cache is down: let it through
        logger.warning("solver work: cache unavailable, rate of %s not counted: %r", caller, error)
        return
    if not allowed:
        metrics.solver_requests.labels("throttled").inc()
        throttled = SolverThrottled()
        throttled.retry_after = max(1, math.ceil(wait))
        raise throttled


# --- the process's pool ------------------------------------------------------------------


class _Pool:
    """``size`` solver processes at ``nice``, and ``size + queue`` places for searches."""

    def __init__(self, size: int, queue: int, nice: int) -> None:
        self.key = (size, queue, nice)
        self.size = size
        self.executor = ProcessPoolExecutor(
            max_workers=size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=solver_process.start,
            initargs=(nice, os.getpid(), ENGINE),
        )
        self.places = threading.BoundedSemaphore(size + queue)


_lock = threading.Lock()
_pool: _Pool | None = None


def _current() -> _Pool:
    """The process's pool, made on first use (and again if its settings changed: tests)."""
    global _pool
    key = (settings.SOLVER_PROCESSES, settings.SOLVER_QUEUE, settings.SOLVER_NICE)
    with _lock:
        if _pool is None or _pool.key != key:
            old, _pool = _pool, _Pool(*key)
            if old is not None:
                old.executor.shutdown(wait=False, cancel_futures=True)
        return _pool


def _replace(pool: _Pool) -> None:
    """``pool`` broke (a process died): the next search gets a new one."""
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    logger.warning("solver work: a solver process died; the pool is made again")
    pool.executor.shutdown(wait=False, cancel_futures=True)


def _submit(pool: _Pool, task: Callable[..., T], args: Any, kwargs: Any) -> Future[T]:
    try:
        return pool.executor.submit(task, *args, **kwargs)
    except (BrokenProcessPool, RuntimeError):  # broken, or shut down by a replacement
        _replace(pool)
        metrics.solver_requests.labels("crashed").inc()
        raise SolverOverloaded() from None
