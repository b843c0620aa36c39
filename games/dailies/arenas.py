"""Arena points: the documented table by which each deal of an arena scores
(docs/api.md#arena-points). Other layers (the leaderboards) count arena points with
:func:`stream_points` (a game's folded events), or read ``ContestResult.points`` (the same
figure, projected with each event), and never re-implement the table. A player's arena
total is the sum over their games of the arena that were not voided (``contests.Board``).

- a won deal: ``WIN`` (100), plus a speed bonus of ``SPEED_BONUS`` (50) less one point
  for every ``SPEED_STEP_SECONDS`` (15 s) from the deal's start to the winning move, never
  below 0;
- a deal won with hints (one ``hinted`` event or more): ``AIDED_WIN`` (80), no speed bonus;
- a deal not won (playing, lost or resigned): ``SEQUENCE`` (10) for each run removed, the
  position as it stands, hints or not;
- a deal whose result a moderator voided: 0.

So a win always outscores a deal that was not won (at most 3 runs of 4 removed, or 7 of 8
in a two-deck ruleset: 70), an unaided win always outscores a win with hints (as in every
race, docs/api.md#race-standings), and a fast win outscores a slow one. A win with hints
earns no speed bonus: a hint is worth no time. Hints before a deal was lost cost nothing:
only wins are told apart by hints, as the daily standings do.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from games import engine
from games.store import streams

WIN: Final = 100
SPEED_BONUS: Final = 50
SPEED_STEP_SECONDS: Final = 15
AIDED_WIN: Final = 80
SEQUENCE: Final = 10

#: The table as data, for documents and the API.
POINTS_TABLE: Final = {
    "win": WIN,
    "speed_bonus": SPEED_BONUS,
    "speed_step_seconds": SPEED_STEP_SECONDS,
    "aided_win": AIDED_WIN,
    "sequence": SEQUENCE,
}


def points(
    *, status: str, sequences: int, elapsed_ms: int, hints: int = 0, voided: bool = False
) -> int:
    """The points of one deal: its ``status``, the runs removed, the time from the deal's
    start to its last event (to the winning move, for a won deal), and the hints shown to
    the player in it."""
    if voided:
        return 0
    if status == engine.WON:
        if hints:
            return AIDED_WIN
        return WIN + max(0, SPEED_BONUS - elapsed_ms // (SPEED_STEP_SECONDS * 1000))
    return SEQUENCE * sequences


def stream_points(stream: streams.Stream) -> int:
    """The arena points of a game's stream (its events folded): what the game's
    ``ContestResult.points`` holds."""
    end = stream.finished_at or stream.updated_at
    return points(
        status=stream.state.status,
        sequences=len(stream.state.removed),
        elapsed_ms=(end - stream.created_at) // dt.timedelta(milliseconds=1),
        hints=stream.hints,
        voided=stream.voided,
    )
