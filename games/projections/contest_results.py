"""A race's or arena's game result (``games_contest_result``): one row per game of a
contest, upserted by every event of the game; the contest's ranking is
``games.dailies.contests.Board``, and an arena's points come from
``games.dailies.arenas``.

After commit each change carries the game's new result to the contest's watchers
(:func:`message`), which every process applies to the ranking it holds without a read. The
event that finishes a race's last deal ends the race early (``contests.finish_if_done``),
announced after the deal's own result.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from games.dailies import arenas, contests
from games.dailies.models import ContestResult
from games.live import publish
from games.projections.base import Change, Projection
from games.store import streams
from games.store.append import Fragment
from games.store.summary import GameSummary

#: The columns of ``games_contest_result`` this projection writes (all but the key).
COLUMNS = (
    "contest_id",
    "player_id",
    "round",
    "status",
    "moves",
    "score",
    "sequences",
    "revealed",
    "elapsed_ms",
    "finished_at",
    "points",
    "version",
    "hints",
    "voided",
    "joined_at",
)

_UPSERT = f"""INSERT INTO games_contest_result (game_id, {", ".join(COLUMNS)})
SELECT id, {", ".join(f"%(r_{column})s" for column in COLUMNS)} FROM head
ON CONFLICT (game_id) DO UPDATE SET
{", ".join(f"{column} = EXCLUDED.{column}" for column in COLUMNS)}"""


def fields(stream: streams.Stream) -> dict[str, Any]:
    """The result of a contest game's stream: its :data:`COLUMNS`."""
    state = stream.state
    end = stream.finished_at or stream.updated_at
    return {
        "contest_id": stream.contest,
        "player_id": stream.owner_id,
        "round": stream.round,
        "status": state.status,
        "moves": state.moves,
        "score": state.score,
        "sequences": len(state.removed),
        "revealed": sum(down for down, _ in stream.rules.layout) - sum(state.down),
        "elapsed_ms": (end - stream.created_at) // dt.timedelta(milliseconds=1),
        "finished_at": stream.finished_at,
        "points": arenas.stream_points(stream),
        "version": stream.version,
        "hints": stream.hints,
        "voided": stream.voided,
        "joined_at": stream.created_at,
    }


def message(stream: streams.Stream) -> dict[str, Any]:
    """A contest game's result as the live path carries it (JSON and msgpack safe): what
    ``contests.Board.apply`` takes, so that a process's watchers get the change without a
    read."""
    row = fields(stream)
    finished = row["finished_at"]
    return {
        "game": str(stream.game_id),
        "player": row["player_id"],
        "round": row["round"],
        "status": row["status"],
        "moves": row["moves"],
        "score": row["score"],
        "sequences": row["sequences"],
        "revealed": row["revealed"],
        "finished_ms": None if finished is None else int(finished.timestamp() * 1000),
        "points": row["points"],
        "version": row["version"],
        "hints": row["hints"],
        "voided": row["voided"],
    }


class ContestResults(Projection):
    name = "result"

    def fragments(self, change: Change) -> Sequence[Fragment]:
        if change.after.contest is None:
            return ()
        row = fields(change.after)
        return (Fragment("result", _UPSERT, {f"r_{c}": row[c] for c in COLUMNS}),)

    def publish(self, change: Change) -> None:
        contest = change.summary.contest
        if contest is not None:
            publish.contest_after_commit(contest, result=message(change.after))

    def settle(self, change: Change, flagged: bool) -> None:
        contest = change.summary.contest
        if contest is not None and change.finishing and contests.finish_if_done(contest):
            publish.contest_phase_after_commit(contest)

    def clear(self) -> None:
        ContestResult.objects.all().delete()

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        if stream.contest is not None:
            ContestResult.objects.create(game_id=stream.game_id, **fields(stream))
