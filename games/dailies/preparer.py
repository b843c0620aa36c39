"""Preparing daily challenges ahead, so that no request waits on the solver's search.

:func:`tick` decides from the clock (``games.clock``, so tests can move it) which days
should exist by now, today always and tomorrow from ``DAILY_PREPARE_AHEAD_SECONDS`` before
midnight UTC, and prepares those missing. Each server process runs it in a daemon thread
every ``DAILY_PREPARE_POLL_SECONDS`` (:func:`start`, called by the ASGI application when
``DAILY_PREPARE_IN_BACKGROUND`` is on). Several processes preparing the same day do no
harm: the date is the table's key, and the second insert reads the first row
(``challenges.prepare``).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connections

from games import clock
from games.dailies import challenges

logger = logging.getLogger(__name__)


def due(now: dt.datetime) -> list[dt.date]:
    """The days that should be prepared at ``now``: today, and tomorrow once midnight is
    less than ``DAILY_PREPARE_AHEAD_SECONDS`` away."""
    today = now.astimezone(dt.UTC).date()
    days = [today]
    midnight = challenges.starts_at(today + dt.timedelta(days=1))
    if midnight - now <= dt.timedelta(seconds=settings.DAILY_PREPARE_AHEAD_SECONDS):
        days.append(today + dt.timedelta(days=1))
    return days


def tick() -> list[dt.date]:
    """Prepare the days :func:`due` names that are missing; the days made now."""
    made = []
    for day in due(clock.now()):
        try:
            _, new = challenges.prepare(day)
        except Exception:  # keep the thread alive; the next tick tries again
            logger.exception("could not prepare the daily challenge of %s", day)
            continue
        if new:
            made.append(day)
    return made


_started = threading.Event()


def start() -> bool:
    """Start this process's preparer thread, once; whether it was started now."""
    if not settings.DAILY_PREPARE_IN_BACKGROUND or _started.is_set():
        return False
    _started.set()
    threading.Thread(target=_run, name="daily-preparer", daemon=True).start()
    return True


def _run() -> None:
    while True:
        close_old_connections()
        try:
            tick()
        except Exception:  # the database may be down: log, and try again later
            logger.exception("daily preparer")
        finally:
            connections.close_all()
        threading.Event().wait(settings.DAILY_PREPARE_POLL_SECONDS)
