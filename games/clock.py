"""The one source of "now" for the games app, so tests can move time.

Everything that stamps or compares times (events, daily challenge days) asks
:func:`now`. Tests replace the clock with :func:`frozen` (a context manager) instead of
waiting for midnight.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_source: Callable[[], dt.datetime] | None = None


def now() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    source = _source
    if source is not None:
        return source()
    return dt.datetime.now(dt.UTC)


@contextmanager
def frozen(at: dt.datetime | Callable[[], dt.datetime]) -> Iterator[None]:
    """Within the block :func:`now` answers ``at`` (a fixed time or a callable)."""
    global _source
    if isinstance(at, dt.datetime):
        if at.tzinfo is None:
            raise ValueError("use an aware datetime")
        fixed = at.astimezone(dt.UTC)

        def source() -> dt.datetime:
            return fixed

    else:
        source = at
    with _lock:
        previous, _source = _source, source
    try:
        yield
    finally:
        with _lock:
            _source = previous
