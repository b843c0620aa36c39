"""The evidence of each finished rated or contest game, measured by a background job
(``games.ratings.evidence``: docs/ratings.md#suspicion-flags).

:func:`evidence_defer` queues the job in the transaction of the event that finishes such a
game, so the job exists exactly when the game's end does; :func:`evidence_record` is the
job's work, safe to run twice (it writes the game's one row again, the same).
"""

from __future__ import annotations

import contextlib
import uuid

from django.db import transaction
from procrastinate.contrib.django import app
from procrastinate.exceptions import AlreadyEnqueued

from games import clock
from games.ratings import evidence
from games.ratings.models import GameEvidence
from games.store.models import Game

#: The job's task and queue: the solver's, with the rest of the solver's work.
TASK = "assess_game"
QUEUE = "solver"


def evidence_defer(game_id: uuid.UUID) -> None:
    """Queue the assessment of ``game_id`` (once: a second while it waits is dropped)."""
    lock = f"assess:{game_id}"
    # A savepoint: a refused insert must not abort the transaction that finishes the game.
    with contextlib.suppress(AlreadyEnqueued), transaction.atomic():
        app.configure_task(TASK, queue=QUEUE, queueing_lock=lock).defer(game_id=str(game_id))


def evidence_record(game_id: uuid.UUID) -> GameEvidence:
    """Measure ``game_id`` and keep its evidence and its flags (its one row)."""
    game = Game.objects.get(id=game_id)
    found = evidence.assess(game_id)
    kind = "contest" if game.contest else "daily" if game.challenge else "rated"
    row, _ = GameEvidence.objects.update_or_create(
        game_id=game_id,
        defaults={
            "player_id": game.owner_id,
            "rules": game.rules,
            "kind": kind,
            "won": found.won,
            "positions": found.positions,
            "matched": found.matched,
            "match": found.match,
            "intervals": found.intervals,
            "median_seconds": found.median_seconds,
            "mean_seconds": found.mean_seconds,
            "variation": found.variation,
            "difficulty": found.difficulty,
            "hints": found.hints,
            "reasons": list(found.reasons),
            "flagged": found.flagged,
            "assessed_at": clock.now(),
        },
    )
    return row
