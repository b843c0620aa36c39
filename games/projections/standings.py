"""A daily challenge game's standing (``games_standing``): one row per game of a day,
upserted by every event of the game, ranked by ``games.dailies.standings``.

Each change tells the day's watchers, after commit, that the standings changed: each
server process then reads them once for all its watchers (``games.live``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from games.dailies import suspicion
from games.dailies.models import Standing
from games.live import publish
from games.projections.base import Change, Projection
from games.store import streams
from games.store.append import Fragment
from games.store.summary import GameSummary

#: The columns of ``games_standing`` this projection writes (all but the key).
COLUMNS = (
    "challenge_id",
    "player_id",
    "status",
    "moves",
    "score",
    "sequences",
    "revealed",
    "elapsed_ms",
    "version",
    "hints",
    "voided",
    "joined_at",
    "flag_fast",
    "flag_regular",
    "rhythm_cv",
)

_UPSERT = f"""INSERT INTO games_standing (game_id, {", ".join(COLUMNS)})
SELECT id, {", ".join(f"%(s_{column})s" for column in COLUMNS)} FROM head
ON CONFLICT (game_id) DO UPDATE SET
{", ".join(f"{column} = EXCLUDED.{column}" for column in COLUMNS)}"""


def fields(stream: streams.Stream) -> dict[str, Any]:
    """The standing of a challenge game's stream: its :data:`COLUMNS`."""
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
        "hints": stream.hints,
        "voided": stream.voided,
        "joined_at": stream.created_at,
        **suspicion.flags(stream),
    }


class Standings(Projection):
    name = "standing"

    def fragments(self, change: Change) -> Sequence[Fragment]:
        if change.after.challenge is None:
            return ()
        row = fields(change.after)
        return (Fragment("standing", _UPSERT, {f"s_{c}": row[c] for c in COLUMNS}),)

    def publish(self, change: Change) -> None:
        if change.after.challenge is not None:
            publish.standings_after_commit(change.after.challenge)

    def clear(self) -> None:
        Standing.objects.all().delete()

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        if stream.challenge is not None:
            Standing.objects.create(game_id=stream.game_id, **fields(stream))
