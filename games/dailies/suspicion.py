"""Review flags for daily results: what looks too fast or too regular to be a person.

Computed from a game's stream alone (its times are in its events), so the flags are part of
the ``Standing`` projection: written with every event, in the command's transaction, and
recomputed identically by ``rebuild_projections``. A flag only asks a moderator to look;
it never changes the standings by itself.

- ``fast``: a won game whose time from joining to the winning move is under
  ``SUSPICIOUS_WIN_SECONDS``.
- ``regular``: once there are ``SUSPICIOUS_RHYTHM_MIN_MOVES`` intervals between the player's
  actions, their coefficient of variation (standard deviation over mean) is under
  ``SUSPICIOUS_RHYTHM_CV``. People pause to think and then play a few obvious moves in a
  burst (a variation near 1); a program on a timer plays like a metronome (near 0).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings

from games import engine
from games.dailies.models import Standing
from games.store import streams


def flags(stream: streams.Stream) -> dict[str, Any]:
    """The ``Standing`` review fields of ``stream``: ``flag_fast``, ``flag_regular`` and
    ``rhythm_cv`` (``None`` until there are enough intervals to judge)."""
    won = stream.state.status == engine.WON
    fast = False
    if won and stream.finished_at is not None:
        fast = stream.finished_at - stream.created_at < dt.timedelta(
            seconds=settings.SUSPICIOUS_WIN_SECONDS
        )
    pace = stream.pace
    cv = pace.variation() if pace.intervals >= settings.SUSPICIOUS_RHYTHM_MIN_MOVES else None
    return {
        "flag_fast": fast,
        "flag_regular": cv is not None and cv < settings.SUSPICIOUS_RHYTHM_CV,
        "rhythm_cv": cv,
    }


def reasons(standing: Standing) -> list[str]:
    """Why ``standing`` is flagged, in words a moderator reads (empty when it is not)."""
    found = []
    if standing.flag_fast:
        found.append(
            f"won in {standing.elapsed_ms / 1000:.1f} s "
            f"(under SUSPICIOUS_WIN_SECONDS={settings.SUSPICIOUS_WIN_SECONDS})"
        )
    if standing.flag_regular and standing.rhythm_cv is not None:
        found.append(
            f"move timings too regular: variation {standing.rhythm_cv:.2f} "
            f"(under SUSPICIOUS_RHYTHM_CV={settings.SUSPICIOUS_RHYTHM_CV:g})"
        )
    return found
