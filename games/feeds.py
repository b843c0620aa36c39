"""What live viewers of a game receive: frames rendered for one viewer.

The WebSocket consumer receives published frames from the channel layer; it comes here
(the event store) only to open a feed and to fill gaps: the snapshot, the events after a
resume point, the events a channel layer dropped.
"""

from __future__ import annotations

import uuid
from typing import Any

from games import engine, presenters, selectors, streams
from games.models import Game


def open_game(game_id: uuid.UUID | str, viewer: Any) -> Game:
    """The game ``viewer`` wants to watch, if allowed (errors as ``selectors.game_get``)."""
    return selectors.game_get(game_id=game_id, viewer=viewer)


def current_version(game_id: uuid.UUID) -> int:
    """The game's latest ``seq`` (its projection's version)."""
    version: int = Game.objects.values_list("version", flat=True).get(id=game_id)
    return version


def game_frame_body(stream: streams.Stream, owner: str, viewer: Any) -> dict[str, Any]:
    """The Game of ``stream`` as ``viewer`` may see it (staff see hidden cards)."""
    game = presenters.stream_game(stream)
    reveal = selectors.is_staff(viewer)
    body = presenters.game_json(game, owner=owner, reveal=reveal)
    if reveal and not stream.finished:
        view = engine.player_view(stream.state, reveal=True)
        body["columns"] = view["columns"]
        body["reserve_cards"] = view["reserve_cards"]
        if "cells" in view:
            body["cells"] = view["cells"]
    return body


def snapshot(game: Game, viewer: Any, *, version: int | None = None) -> dict[str, Any]:
    """``{"type": "snapshot", "game": …}`` now, or as the game was at ``version``."""
    if version is None or version == game.version:
        stream = selectors.game_stream(game)
    else:
        stream = streams.at_version(game.id, version)
    return {"type": "snapshot", "game": game_frame_body(stream, game.owner.username, viewer)}


def event_frames(game: Game, viewer: Any, *, after: int, upto: int) -> list[dict[str, Any]]:
    """``{"type": "event", …}`` frames for every stored event with ``after < seq <= upto``,
    each with the game as it was right after that event."""
    if upto <= after:
        return []
    from games.models import Event

    events = list(
        Event.objects.filter(game_id=game.id, seq__lte=upto).select_related("actor").order_by("seq")
    )
    frames: list[dict[str, Any]] = []
    stream: streams.Stream | None = None
    owner = game.owner.username
    for event in events:
        stream = streams.start(event) if stream is None else streams.advance(stream, event)
        if event.seq <= after:
            continue
        frames.append(event_frame(stream, event, owner=owner, viewer=viewer))
    return frames


def event_frame(stream: streams.Stream, event: Any, *, owner: str, viewer: Any) -> dict[str, Any]:
    """The frame of ``event``, with ``stream`` the game right after it."""
    return {
        "type": "event",
        "event": presenters.event_json(
            event,
            stream.effects_of(event.seq),
            by=event.actor.get_username() if event.actor is not None else None,
            finished=stream.finished,
        ),
        "game": game_frame_body(stream, owner, viewer),
    }
