"""Preparing daily challenges ahead, so that no request waits on the solver's search.

:func:`tick` decides from the clock (``games.clock``, so tests can move it) which days
should exist by now, today always and tomorrow from ``DAILY_PREPARE_AHEAD_SECONDS`` before
midnight UTC, and prepares those missing. The scheduled job runs it every minute
(``games.jobs``), and ``manage.py prepare_challenges`` makes days ahead by hand. Several
workers preparing the same day do no harm: a worker skips a day whose advisory lock another
holds (it is being prepared there), and in any case the date is the table's key, and a
second insert reads the first row (``challenges.prepare``).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings

from games import clock
from games.dailies import challenges
from games.dailies.models import DailyChallenge
from games.store import locks

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
    """Prepare the days :func:`due` names that are missing; the days made now.

    A day another process is preparing (it holds the day's advisory lock) is left to it,
    so that several server processes do not all search at once."""
    made = []
    for day in due(clock.now()):
        if DailyChallenge.objects.filter(date=day).exists():
            continue
        with locks.session_lock(lock_id(day)) as mine:
            if not mine:
                continue
            try:
                _, new = challenges.prepare(day)
            except Exception:  # the other days still get their turn; the next tick retries
                logger.exception("could not prepare the daily challenge of %s", day)
                continue
        if new:
            made.append(day)
    return made


#: The advisory lock key space of days being prepared (``lock_key + the day's ordinal``).
LOCK_KEY = 0x5C0_0000_0000


def lock_id(day: dt.date) -> int:
    """The PostgreSQL advisory lock that whoever prepares ``day`` holds."""
    return LOCK_KEY + day.toordinal()
