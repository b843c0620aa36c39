"""A game's frames read from the event store, rendered as a viewer's sight allows.

Spectators receive published frames through the channel layer (``games.live.spectators``);
they come here only to open a feed and to fill gaps: the snapshot, the events after a
resume point, the events a channel layer dropped. The sight of each frame is the viewer's
sight of the game *as it is now* (``visibility.sight``): a finished game shows its whole
history.
"""

from __future__ import annotations

import uuid
from typing import Any

from games.live.frames import Event as EventFrame
from games.live.frames import Snapshot
from games.reads import presenters, ratings, selectors
from games.reads.selectors import Seen
from games.reads.visibility import Sight, Viewer
from games.store import streams
from games.store.models import Event, Game
from games.store.summary import GameSummary


def current(game_id: uuid.UUID | str, viewer: Viewer) -> Seen:
    """The game as it is now, with ``viewer``'s sight of it now, if they may watch it
    (errors as ``selectors.game_get``)."""
    return selectors.game_get(game_id=game_id, viewer=viewer)


def snapshot(seen: Seen, *, version: int | None = None) -> Snapshot:
    """The snapshot frame now, or as the game was at ``version`` (the first version for 0:
    a feed resumed from the start)."""
    game, sight = seen
    if version is not None and version < game.version:
        game = selectors.game_at_version(game=game, version=max(version, 1))
    return Snapshot(presenters.game_body(game, sight))


def event_frames(seen: Seen, *, after: int, upto: int) -> list[EventFrame]:
    """The event frames of every stored event with ``after < seq <= upto``, each with the
    game as it was right after that event."""
    game, sight = seen
    if upto <= after:
        return []
    rows = list(
        Event.objects.filter(game_id=game.id, seq__lte=upto).select_related("actor").order_by("seq")
    )
    frames: list[EventFrame] = []
    if after:
        stream = streams.fold(rows[:after])
    else:  # the frames start with ``created`` itself
        stream = streams.start(rows[0])
        first = GameSummary.of(stream, owner=game.owner)
        frames.append(event_frame(first, rows[0], stream.effects_of(1), sight))
    for step, event, effects in streams.steps(stream, rows[max(after, 1) :]):
        summary = GameSummary.of(step, owner=game.owner)
        if step.scored == event.seq:  # the event that scored a rated game: its change
            summary = ratings.with_rating(summary)
        frames.append(event_frame(summary, event, effects, sight))
    return frames


def event_frame(
    game: GameSummary, event: Event, effects: dict[str, Any], sight: Sight
) -> EventFrame:
    """The frame of ``event`` (with its ``effects``), ``game`` the summary right after it."""
    return EventFrame(
        presenters.event_body(event, effects, sight), presenters.game_body(game, sight)
    )


def versions(game_ids: list[uuid.UUID]) -> dict[uuid.UUID, int]:
    """The current version of each of these games, in one query."""
    return dict(Game.objects.filter(id__in=game_ids).values_list("id", "version"))
