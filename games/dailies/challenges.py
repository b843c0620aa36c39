"""Daily challenges: one ``classic`` deal a UTC day, the same for everyone.

A day's challenge exists as soon as anyone asks for it. Its seed is an HMAC of the date
under ``DAILY_SECRET``, so nobody can compute a deal before the server reveals it, and it
is revealed only once the day is over. Days are UTC: a challenge is open from its date's
midnight to the next one (``games.clock`` tells the time, so tests can cross midnight).
"""

from __future__ import annotations

import datetime as dt

from django.db import IntegrityError, transaction

from games import clock
from games.dailies import secrets
from games.dailies.models import DailyChallenge
from games.errors import ChallengeNotFound

RULES = "classic"
_SEED_LABEL = "scorpion-daily-v1"


def today() -> dt.date:
    """The current UTC day."""
    return clock.now().astimezone(dt.UTC).date()


def secret_seed(date: dt.date) -> int:
    """The day's seed: HMAC-SHA256 of the date under ``DAILY_SECRET``, cut to a JSON-safe
    integer."""
    return secrets.seed(f"{_SEED_LABEL}:{date.isoformat()}")


def parse_date(text: str) -> dt.date:
    """A ``YYYY-MM-DD`` date (``today`` for the current day); :class:`ChallengeNotFound`
    for anything else."""
    if text == "today":
        return today()
    try:
        date = dt.date.fromisoformat(text)
    except ValueError:
        raise ChallengeNotFound() from None
    if len(text) != 10:
        raise ChallengeNotFound()
    return date


def challenge_get(date: dt.date) -> DailyChallenge:
    """The challenge of ``date``, made on first use; :class:`ChallengeNotFound` for a day
    that has not begun."""
    if date > today():
        raise ChallengeNotFound()
    challenge = DailyChallenge.objects.filter(date=date).first()
    if challenge is not None:
        return challenge
    try:
        with transaction.atomic():
            return DailyChallenge.objects.create(
                date=date, rules=RULES, seed=secret_seed(date), created_at=clock.now()
            )
    except IntegrityError:  # someone else asked at the same moment
        return DailyChallenge.objects.get(date=date)


def is_open(date: dt.date | str | None) -> bool:
    """Whether the challenge of ``date`` is still running (``None``: no challenge)."""
    if date is None:
        return False
    if isinstance(date, str):
        date = dt.date.fromisoformat(date)
    return date >= today()


def starts_at(date: dt.date) -> dt.datetime:
    return dt.datetime.combine(date, dt.time(0, 0), tzinfo=dt.UTC)
