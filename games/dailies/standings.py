"""Daily challenge standings: a projection kept in the same transaction as each event,
ranked by PostgreSQL and pushed to the race's watchers after every change.

Ranking (API.md): won games first, by least ``elapsed_ms`` then fewest moves; then the
rest by most sequences, most revealed cards, highest score; ties by who joined first.
Voided results and banned players are left out. The whole ranked list is built as JSON by
one query. A change is announced to the race's watchers after commit; each server process
then reads the standings once for all its watchers, with a ``revision`` (the sum of every
entry's game version), so a watcher never swaps newer standings for older ones.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction

from games.dailies import suspicion
from games.dailies.models import Standing
from games.store import streams

logger = logging.getLogger(__name__)

_RANKED = """
SELECT COALESCE(SUM(s.version), 0) AS revision,
       COALESCE(json_agg(json_build_object(
           'rank', r.rank, 'player', r.player, 'status', r.status, 'moves', r.moves,
           'score', r.score, 'sequences', r.sequences, 'revealed', r.revealed,
           'elapsed_ms', r.elapsed_ms) ORDER BY r.rank)
         FILTER (WHERE r.rank IS NOT NULL), '[]'::json)::text AS results
FROM games_standing s
LEFT JOIN (
    SELECT s.game_id, u.username AS player, s.status, s.moves, s.score, s.sequences,
           s.revealed, s.elapsed_ms,
           row_number() OVER (ORDER BY
               (s.status = 'won') DESC,
               CASE WHEN s.status = 'won' THEN s.elapsed_ms END ASC,
               CASE WHEN s.status = 'won' THEN s.moves END ASC,
               s.sequences DESC, s.revealed DESC, s.score DESC,
               s.joined_at ASC, s.game_id ASC) AS rank
    FROM games_standing s
    JOIN auth_user u ON u.id = s.player_id
    LEFT JOIN games_player p ON p.user_id = s.player_id
    WHERE s.challenge_id = %(day)s AND NOT s.voided AND NOT COALESCE(p.banned, FALSE)
) r ON r.game_id = s.game_id
WHERE s.challenge_id = %(day)s
"""


def challenge_group(date: dt.date | str) -> str:
    """The channel-layer group of a challenge's watchers."""
    return f"challenge.{date}"


def standing_fields(stream: streams.Stream) -> dict[str, Any]:
    """The ``Standing`` row of a challenge game's stream."""
    state = stream.state
    end = stream.finished_at or stream.updated_at
    return {
        "challenge_id": stream.challenge,
        "player_id": stream.owner_id,
        "status": state.status,
        "moves": state.moves,
        "score": state.score,
        "sequences": len(state.removed),
        "revealed": sum(down for down, _ in stream.rules.layout) - sum(state.down),
        "elapsed_ms": (end - stream.created_at) // dt.timedelta(milliseconds=1),
        "version": stream.version,
        "voided": stream.voided,
        "joined_at": stream.created_at,
        **suspicion.flags(stream),
    }


def save_standing(stream: streams.Stream) -> None:
    """Write the standing of a challenge game (inside the caller's transaction)."""
    if stream.challenge is None:
        return
    fields = standing_fields(stream)
    if not Standing.objects.filter(game_id=stream.game_id).update(**fields):
        Standing.objects.create(game_id=stream.game_id, **fields)


def ranked(date: dt.date | str) -> tuple[int, str]:
    """``(revision, JSON text of the ranked results)`` of a challenge, in one query."""
    with connection.cursor() as cursor:
        cursor.execute(_RANKED, {"day": str(date)})
        revision, results = cursor.fetchone()
    return int(revision), results


def frame(date: dt.date | str) -> tuple[int, str]:
    """``(revision, the standings frame as JSON text)``."""
    revision, results = ranked(date)
    return revision, f'{{"type": "standings", "results": {results}}}'


def results(date: dt.date | str) -> list[dict[str, Any]]:
    """The ranked standings as a list (for the REST API)."""
    entries: list[dict[str, Any]] = json.loads(ranked(date)[1])
    return entries


def push_after_commit(date: dt.date | str) -> None:
    """After the surrounding transaction commits, tell the race's watchers that the
    standings changed (they read them once per process: ``api.consumers.StandingsFeed``)."""
    transaction.on_commit(lambda: announce(date))


def announce(date: dt.date | str) -> None:
    """Announce a change of the race's standings (a failure is logged: watchers catch up on
    the next change or ping)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(challenge_group(date), {"type": "standings.changed"})
    except Exception:
        logger.exception("could not announce a change of the standings of %s", date)
