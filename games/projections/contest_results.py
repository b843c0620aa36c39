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

from collections.abc import Sequence
from typing import Any

from games.dailies import arenas, contests
from games.dailies.models import ContestResult
from games.live import publish
from games.projections.base import RACE_COLUMNS, Change, Projection, race_fields, upsert_by_game
from games.store import streams
from games.store.append import Fragment
from games.store.summary import GameSummary

#: The columns of ``games_contest_result`` this projection writes (all but the key).
COLUMNS = ("contest_id", "round", "finished_at", "points", *RACE_COLUMNS)

_UPSERT = upsert_by_game("games_contest_result", COLUMNS, "r_")


def fields(stream: streams.Stream) -> dict[str, Any]:
    """The result of a contest game's stream: its :data:`COLUMNS`."""
    return {
        "contest_id": stream.contest,
        "round": stream.round,
        "finished_at": stream.finished_at,
        "points": arenas.stream_points(stream),
        **race_fields(stream),
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
