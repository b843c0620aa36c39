"""A daily challenge game's standing (``games_standing``): one row per game of a day,
upserted by every event of the game, ranked by ``games.dailies.standings``.

Each change tells the day's watchers, after commit, that the standings changed: each
server process then reads them once for all its watchers (``games.live``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.dailies import suspicion
from games.dailies.models import Standing
from games.live import publish
from games.projections.base import RACE_COLUMNS, Change, Projection, race_fields, upsert_by_game
from games.store import streams
from games.store.append import Fragment
from games.store.summary import GameSummary

#: The columns of ``games_standing`` this projection writes (all but the key).
COLUMNS = ("challenge_id", *RACE_COLUMNS, "flag_fast", "flag_regular", "rhythm_cv")

_UPSERT = upsert_by_game("games_standing", COLUMNS, "s_")


def fields(stream: streams.Stream) -> dict[str, Any]:
    """The standing of a challenge game's stream: its :data:`COLUMNS`."""
    return {"challenge_id": stream.challenge, **race_fields(stream), **suspicion.flags(stream)}


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
