"""The public log's entry of a game that finishing made open to everyone
(``games_public_log``, ``games.store.log``).

The event that finishes a public game of no contest inserts the game's entry in the same
statement: one more common table expression, on that event only, so the command stays one
round trip. The entry's transaction id is the statement's own, which is what orders the log
by commit. The games of a day, a race or an arena enter when it is over, all at once, from
the scheduled job (``games.writes.public_log``). An entry is never withdrawn: a rebuild
writes the entries that are missing and leaves the others as they are. A moderation act on
a game of the log clears its stored notation, which the job writes again.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from games.projections.base import Change, Projection
from games.reads import visibility
from games.store import events, log, streams
from games.store.append import Fragment
from games.store.summary import GameSummary

_REPLAY = """INSERT INTO games_public_log (game_id, published_at) VALUES (%(game)s, %(at)s)
ON CONFLICT (game_id) DO NOTHING"""
_REWRITE = "UPDATE games_public_log SET notation = NULL, version = NULL WHERE game_id = %(game)s"


class PublicLog(Projection):
    name = "published"

    def fragments(self, change: Change) -> Sequence[Fragment]:
        if not (change.finishing and visibility.published_by_finishing(change.summary)):
            return ()
        at = change.summary.finished_at
        return (Fragment("published", log.INSERT_FROM_HEAD, {"p_published_at": at}),)

    def settle(self, change: Change, flagged: bool) -> None:
        if change.event.type in (events.ResultVoided.TYPE, events.ResultRestored.TYPE):
            with connection.cursor() as cursor:
                cursor.execute(_REWRITE, {"game": change.summary.id})

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        if visibility.published_by_finishing(summary):
            with connection.cursor() as cursor:
                cursor.execute(_REPLAY, {"game": summary.id, "at": summary.finished_at})
