"""The work the clock calls for, done by the scheduled job and never by a request.

:func:`schedule_run` is what ``games.jobs`` runs every minute on the job engine: prepare the
daily challenges that are due (today, and tomorrow ahead of midnight), make the arenas of
the configured rotation for this period and the next, seal the races whose start has
come, end the rated daily games left unfinished when their day closed (an abandonment,
``services.abandon_closed_days``), enter the games of the days and contests that are over
into the public log, write the notation of the log's new entries
(``games.writes.public_log``), choose today's puzzle (``games.writes.puzzles``), and close
the guests left idle (``accounts.guests_expire``). Each step is
idempotent and safe on several workers at once, so a late or repeated run changes nothing
more. Reads never do any of it: a day not prepared yet is a 503
``challenge_not_ready``, a rotation's arena appears once the job made it.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from django.conf import settings

from games.dailies import contests, preparer
from games.dailies.models import Contest
from games.writes import accounts, public_log, puzzles, services


@dataclass(frozen=True, slots=True)
class Scheduled:
    """What one run did: the days prepared, the rotation's arenas (made or found), the races
    sealed, the abandoned daily games ended, what entered the public log and how many of its
    entries got their notation, the days whose puzzle was chosen, and the idle guests closed
    or deleted."""

    days: list[dt.date]
    arenas: list[Contest]
    sealed: list[uuid.UUID]
    abandoned: list[uuid.UUID]
    published: public_log.Sealed
    written: int
    puzzle_days: list[dt.date]
    guests: accounts.Expired


def schedule_run() -> Scheduled:
    """Do the clock's due work, once (see the module's docstring)."""
    days = preparer.tick()
    arenas = contests.rotation_arenas(settings.ARENA_ROTATION)
    sealed = contests.seal_due()
    abandoned = services.abandon_closed_days()
    published = public_log.public_log_seal()
    written = public_log.public_log_write()
    puzzle_days = puzzles.puzzle_days_prepare()
    guests = accounts.guests_expire()
    return Scheduled(days, arenas, sealed, abandoned, published, written, puzzle_days, guests)
