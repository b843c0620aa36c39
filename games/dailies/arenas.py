"""Arena points: the documented table by which each deal of an arena scores
(docs/api.md#arena-points). Other layers (the leaderboards) count arena points with
:func:`arena_points` (a game's summary) or :func:`stream_points` (its folded events), or read
``ContestResult.points`` (the same figure, projected with each event), and never
re-implement the table. A player's arena total is the sum over their games of the arena
that were not voided (``contests.Board``).

- a won deal: ``WIN`` (100), plus a speed bonus of ``SPEED_BONUS`` (50) less one point
  for every ``SPEED_STEP_SECONDS`` (15 s) from the deal's start to the winning move, never
  below 0;
- a deal not won (playing, lost or resigned): ``SEQUENCE`` (10) for each run removed, the
  position as it stands;
- a deal whose result a moderator voided: 0.

So a win always outscores a deal that was not won (at most 4 × 10, or 8 × 10 in a
two-deck ruleset), and a fast win outscores a slow one.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from games import engine
from games.store import streams
from games.store.summary import GameSummary

WIN: Final = 100
SPEED_BONUS: Final = 50
SPEED_STEP_SECONDS: Final = 15
SEQUENCE: Final = 10

#: The table as data, for documents and the API.
POINTS_TABLE: Final = {
    "win": WIN,
    "speed_bonus": SPEED_BONUS,
    "speed_step_seconds": SPEED_STEP_SECONDS,
    "sequence": SEQUENCE,
}


def points(*, status: str, sequences: int, elapsed_ms: int, voided: bool = False) -> int:
    """The points of one deal: its ``status``, the runs removed, and the time from the
    deal's start to its last event (to the winning move, for a won deal)."""
    if voided:
        return 0
    if status == engine.WON:
        return WIN + max(0, SPEED_BONUS - elapsed_ms // (SPEED_STEP_SECONDS * 1000))
    return SEQUENCE * sequences


def arena_points(game: GameSummary) -> int:
    """The arena points of a game of an arena deal (any game: the table reads only its
    status, runs removed, times and whether its result was voided)."""
    end = game.finished_at or game.updated_at
    return points(
        status=game.status,
        sequences=len(game.removed),
        elapsed_ms=(end - game.created_at) // dt.timedelta(milliseconds=1),
        voided=game.voided,
    )


def stream_points(stream: streams.Stream) -> int:
    """The arena points of a game's stream (its events folded): what the game's
    ``ContestResult.points`` holds, for projections that fold events themselves."""
    end = stream.finished_at or stream.updated_at
    return points(
        status=stream.state.status,
        sequences=len(stream.state.removed),
        elapsed_ms=(end - stream.created_at) // dt.timedelta(milliseconds=1),
        voided=stream.voided,
    )
