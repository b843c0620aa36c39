"""Deadlines of searches: a wall-clock bound on top of the node budget.

Work that must end in time (a pool-fill job, a worker that stops) runs its searches inside
``with deadline(at):``; every search this thread starts there, in either core, looks at
the clock every 1024 steps (128 in the Python core) and raises :class:`Interrupted` once
``time.monotonic()`` passes ``at``. :func:`interrupt` cuts every search of the process,
running or to come (a worker asked to stop). A search cut so proves nothing: its caller
tries it again later, whole. Without a deadline a search is bounded by its budget alone,
and gives the same answer on every machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_local = threading.local()
_interrupted = threading.Event()
#: Called by :func:`interrupt`: the native core's own (``native`` adds it where built).
on_interrupt: list[Callable[[], None]] = []


class Interrupted(Exception):
    """A search passed its deadline, or every search was interrupted."""


def current() -> float:
    """The deadline of this thread's searches (``time.monotonic()`` seconds; 0: none)."""
    return float(getattr(_local, "at", 0.0))


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Searches of this thread inside the block end by ``at`` (``time.monotonic()``
    seconds; ``None``: no deadline of its own, an outer one still holds)."""
    before = current()
    if at is not None:
        _local.at = at if not before else min(at, before)
    try:
        yield
    finally:
        _local.at = before


def interrupt() -> None:
    """Cut every search of this process, running or to come."""
    _interrupted.set()
    for hook in on_interrupt:
        hook()


def interrupted() -> bool:
    """Whether :func:`interrupt` was called."""
    return _interrupted.is_set()


def passed() -> bool:
    """Whether this thread's searches must stop now."""
    if _interrupted.is_set():
        return True
    at = current()
    return bool(at) and time.monotonic() > at
