"""The public log's work off the command path, done by the scheduled job: the games of the
days and contests that are over enter the log, and every entry gets its notation written.

A command writes a finished public game's entry itself (``games.projections.public_log``);
a game of a daily challenge, a race or an arena becomes everyone's only when that is over,
with all its other games, and :func:`public_log_seal` enters them: in one transaction per
run, ordered by day or contest, then by when each game began. A day or contest is marked
done only once it has been over for :data:`SETTLE`, and until then each run enters again
whatever is missing, so a game whose creation was decided just before the end and committed
just after it is not left out. :func:`public_log_write` stores each entry's notation (the
game as of then), so that pages and exports pass text through instead of replaying games;
a reader writes, without storing, the few the job has not reached yet.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from django.db import connection, transaction

from games import clock
from games.dailies.models import Contest, DailyChallenge
from games.reads import visibility
from games.store import log
from games.store.models import PublicLogEntry

#: How long a day or contest stays looked at again after it is over.
SETTLE = dt.timedelta(minutes=5)

_DAYS = """INSERT INTO games_public_log (game_id, published_at)
SELECT g.id, (g.challenge + 1)::timestamp AT TIME ZONE 'UTC'
FROM games_game AS g
WHERE g.challenge = ANY(%(days)s)
  AND NOT EXISTS (SELECT 1 FROM games_public_log AS l WHERE l.game_id = g.id)
ORDER BY g.challenge, g.created_at, g.id
ON CONFLICT (game_id) DO NOTHING"""

_CONTESTS = """INSERT INTO games_public_log (game_id, published_at)
SELECT g.id, COALESCE(c.finished_at, c.ends_at)
FROM games_game AS g JOIN games_contest AS c ON c.id = g.contest
WHERE g.contest = ANY(%(contests)s)
  AND NOT EXISTS (SELECT 1 FROM games_public_log AS l WHERE l.game_id = g.id)
ORDER BY COALESCE(c.finished_at, c.ends_at), c.id, g.created_at, g.id
ON CONFLICT (game_id) DO NOTHING"""

_WRITE = """UPDATE games_public_log AS l SET version = w.version, notation = w.notation
FROM (SELECT unnest(%(ids)s::bigint[]) AS id, unnest(%(versions)s::integer[]) AS version,
             unnest(%(texts)s::text[]) AS notation) AS w
WHERE l.id = w.id"""


@dataclass(frozen=True, slots=True)
class Sealed:
    """What one run entered: the games, and the days and contests marked done."""

    games: int
    days: int
    contests: int


def public_log_seal() -> Sealed:
    """Enter into the public log every game of the days and contests that are over and not
    marked done (``visibility.days_published``, ``visibility.contests_published``); mark
    done those over for :data:`SETTLE`. Idempotent; one transaction."""
    now = clock.now()
    with transaction.atomic():
        days = list(
            DailyChallenge.objects.filter(visibility.days_published(now), published_at=None)
            .order_by("date")
            .values_list("date", flat=True)
        )
        contests = list(
            Contest.objects.filter(visibility.contests_published(now), published_at=None)
            .order_by("ends_at", "id")
            .values_list("id", "ends_at", "finished_at")
        )
        entered = 0
        with connection.cursor() as cursor:
            if days:
                cursor.execute(_DAYS, {"days": days})
                entered += cursor.rowcount
            if contests:
                cursor.execute(_CONTESTS, {"contests": [id_ for id_, _, _ in contests]})
                entered += cursor.rowcount
        settled_days = [day for day in days if _day_end(day) + SETTLE <= now]
        settled = [id_ for id_, ends, finished in contests if (finished or ends) + SETTLE <= now]
        DailyChallenge.objects.filter(date__in=settled_days).update(published_at=now)
        Contest.objects.filter(id__in=settled).update(published_at=now)
    return Sealed(entered, len(settled_days), len(settled))


def _day_end(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


def public_log_write(*, batch: int = 200, budget: float = 20.0) -> int:
    """Write the notation of the entries that have none yet, ``batch`` at a time in the
    log's order, for at most ``budget`` seconds; how many were written."""
    written = 0
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        rows = list(
            PublicLogEntry.objects.filter(notation=None)
            .order_by("id")
            .values_list("id", "game_id")[:batch]
        )
        if not rows:
            break
        texts = log.write(game_id for _, game_id in rows)
        ids = [id_ for id_, game_id in rows if game_id in texts]
        with connection.cursor() as cursor:
            cursor.execute(
                _WRITE,
                {
                    "ids": ids,
                    "versions": [texts[game_id][0] for _, game_id in rows if game_id in texts],
                    "texts": [texts[game_id][1] for _, game_id in rows if game_id in texts],
                },
            )
        written += len(ids)
    return written
