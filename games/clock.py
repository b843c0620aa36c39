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


#: PostgreSQL's largest time zone offset (Python allows up to 23:59).
_LARGEST_OFFSET = dt.timedelta(hours=15, minutes=59, seconds=59)


def storable(at: dt.datetime) -> bool:
    """Whether PostgreSQL can store or compare ``at`` as a ``timestamptz``: an offset it
    accepts, and a day of the calendar once in UTC (year 1 at +14:00 is year 0 there)."""
    offset = at.utcoffset()
    if offset is None:
        return True
    if abs(offset) > _LARGEST_OFFSET:
        return False
    try:
        at.astimezone(dt.UTC)
    except OverflowError:
        return False
    return True
