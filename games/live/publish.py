"""Publishing to live viewers: the one place, run after commit (docs/architecture.md#the-live-path).

Each game has a channel-layer group; each daily challenge's race another, and each race
or arena (a contest) another (``games.live.messages``). A game's message carries the
event's ``seq`` and its frame rendered once per audience (``visibility.Audience``: readers,
staff), as JSON text, so that no spectator's frame is rendered more than once per event. A
race's message only says that its standings changed (with a contest game's new result):
each server process reads or updates them once for all its watchers. Messages leave from
one loop per process, in order (``games.live.outbox``). Channel layers deliver at most
once: feeds fill gaps from the event store, so a failed publish loses nothing.

The write side calls the four ``*_after_commit`` functions inside its transaction.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.db import transaction

from games import metrics
from games.live import backlog, outbox
from games.live.messages import (
    ContestPhase,
    GameEvent,
    StandingsChanged,
    challenge_group,
    contest_group,
    game_group,
)
from games.reads import visibility
from games.store import streams
from games.store.models import Event
from games.store.summary import GameSummary

__all__ = [
    "after_commit",
    "challenge_group",
    "contest_after_commit",
    "contest_group",
    "contest_phase_after_commit",
    "game_group",
    "standings_after_commit",
]


def after_commit(stream: streams.Stream, game: GameSummary, event: Event) -> None:
    """Once the surrounding transaction commits: cache ``stream`` and publish ``event`` with
    ``game`` (the summary after it) to the game's spectators. Frames are rendered after
    commit, not while the game's row is locked."""

    def deliver() -> None:
        metrics.events_appended.labels(event.type).inc()
        streams.remember(stream)
        group = game_group(game.id)
        if not outbox.has_audience(group):
            return  # no frame is rendered for nobody
        effects = stream.effects_of(event.seq)
        texts = {
            audience.value: backlog.event_frame(
                game, event, effects, visibility.audience_sight(audience, game)
            ).text()
            for audience in visibility.Audience
        }
        outbox.submit(group, GameEvent(event.seq, texts).to_message())

    transaction.on_commit(deliver)


def standings_after_commit(date: dt.date | str) -> None:
    """After the surrounding transaction commits, tell the race's watchers that its
    standings changed."""
    message = StandingsChanged().to_message()
    transaction.on_commit(lambda: outbox.submit(challenge_group(date), message))


def contest_after_commit(contest_id: uuid.UUID, *, result: dict[str, Any] | None = None) -> None:
    """After commit, tell a race's or arena's watchers that its standings changed: with one
    game's new ``result`` (``games.projections.contest_results.message``), which each
    process applies to the ranking it holds; without one (a join, a ban), each process
    reads the ranking again."""
    message = StandingsChanged(result).to_message()
    transaction.on_commit(lambda: outbox.submit(contest_group(contest_id), message))


def contest_phase_after_commit(contest_id: uuid.UUID) -> None:
    """After commit, tell a race's or arena's watchers that its phase may have changed (a
    race that ended early): each re-reads it."""
    message = ContestPhase().to_message()
    transaction.on_commit(lambda: outbox.submit(contest_group(contest_id), message))
