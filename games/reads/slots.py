"""The solver's searches inside requests: at most ``SOLVER_REQUEST_SLOTS`` at once per
process, so that hints and quick analyses never hold every HTTP thread.

Each search a request runs is bounded by its settings (a hint by ``HINT_SAMPLES``,
``HINT_SAMPLE_BUDGET`` and ``HINT_TIME_LIMIT``, a quick analysis by
``ANALYSIS_INLINE_NODES``); these slots bound how many run together. A request that finds
none free within ``SOLVER_SLOT_WAIT_MS`` is answered 429 ``solver_busy`` rather than
queued behind them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from games.errors import SolverBusy

_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None


def _semaphore() -> threading.BoundedSemaphore:
    """The process's slots, made again if ``SOLVER_REQUEST_SLOTS`` changed (tests)."""
    global _slots
    size = settings.SOLVER_REQUEST_SLOTS
    with _lock:
        if _slots is None or _slots[0] != size:
            _slots = (size, threading.BoundedSemaphore(size))
        return _slots[1]


@contextmanager
def solver_slot() -> Iterator[None]:
    """Hold one of the process's solver slots while the block searches; :class:`SolverBusy`
    (``Retry-After: 1``) if none frees within ``SOLVER_SLOT_WAIT_MS``."""
    slots = _semaphore()
    if not slots.acquire(timeout=settings.SOLVER_SLOT_WAIT_MS / 1000):
        busy = SolverBusy()
        busy.retry_after = 1
        raise busy
    try:
        yield
    finally:
        slots.release()
