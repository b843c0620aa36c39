"""What live viewers of a game receive: frames rendered for one viewer.

The WebSocket consumer receives published frames from the channel layer; it comes here
(the event store) only to open a feed and to fill gaps: the snapshot, the events after a
resume point, the events a channel layer dropped.
"""

from __future__ import annotations

import uuid
from typing import Any

from games.reads import presenters, selectors
from games.store import streams
from games.store.models import Event, Game


def open_game(game_id: uuid.UUID | str, viewer: Any) -> Game:
    """The game ``viewer`` wants to watch, if allowed (errors as ``selectors.game_get``)."""
    return selectors.game_get(game_id=game_id, viewer=viewer)


def current_version(game_id: uuid.UUID) -> int:
    """The game's latest ``seq`` (its projection's version)."""
    version: int = Game.objects.values_list("version", flat=True).get(id=game_id)
    return version


def snapshot(game: Game, viewer: Any, *, version: int | None = None) -> dict[str, Any]:
    """``{"type": "snapshot", "game": …}`` now, or as the game was at ``version``."""
    if version is None or version == game.version:
        stream = selectors.game_stream(game)
    else:
        stream = streams.at_version(game.id, version)
    return {"type": "snapshot", "game": _game_body(game, stream, viewer, game.owner.username)}


def event_frames(game: Game, viewer: Any, *, after: int, upto: int) -> list[dict[str, Any]]:
    """``{"type": "event", …}`` frames for every stored event with ``after < seq <= upto``,
    each with the game as it was right after that event."""
    if upto <= after:
        return []
    events = list(
        Event.objects.filter(game_id=game.id, seq__lte=upto).select_related("actor").order_by("seq")
    )
    owner = game.owner.username
    frames: list[dict[str, Any]] = []
    if after:
        stream = streams.fold(events[:after])
    else:  # the frames start with ``created`` itself
        stream = streams.start(events[0])
        effects = stream.effects_of(1)
        frames.append(
            event_frame(stream, events[0], effects, viewer=viewer, owner=owner, game=game)
        )
    for step, event, effects in streams.steps(stream, events[max(after, 1) :]):
        frames.append(event_frame(step, event, effects, viewer=viewer, owner=owner, game=game))
    return frames


def event_frame(
    stream: streams.Stream,
    event: Event,
    effects: dict[str, Any],
    *,
    viewer: Any,
    owner: str,
    game: Game | None = None,
) -> dict[str, Any]:
    """The frame of ``event`` (with its ``effects``), ``stream`` the game right after it.
    Visibility follows ``game`` (the game as it is now) when given, else ``stream``'s."""
    current = game if game is not None else presenters.stream_game(stream)
    return {
        "type": "event",
        "event": presenters.event_json(
            event,
            effects,
            by=presenters.actor_name(event),
            reveal=selectors.may_reveal(current, viewer),
        ),
        "game": _game_body(current, stream, viewer, owner),
    }


def _game_body(current: Game, stream: streams.Stream, viewer: Any, owner: str) -> dict[str, Any]:
    """The game of ``stream`` (any version), shown as ``current`` allows ``viewer``."""
    return presenters.game_json(
        presenters.stream_game(stream),
        owner=owner,
        reveal=selectors.may_reveal(current, viewer),
        stream=stream,
    )
