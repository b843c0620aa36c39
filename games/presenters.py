"""The public JSON shapes of API.md (Game, Event), built from read models and events.

One place decides what a viewer may see: while a game is playing its seed, its deal,
face-down cards and the reserve stay on the server (the projection's board is already the
player's view); a finished game shows everything. Staff may ask for everything anytime.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import streams
from games.models import Event, Game


def timestamp(value: dt.datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds and a ``Z``."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def game_json(game: Game, *, owner: str, reveal: bool = False) -> dict[str, Any]:
    """The Game of API.md. ``reveal`` (staff only) shows the seed of a playing game."""
    board = game.board
    shown = game.finished or reveal
    body: dict[str, Any] = {
        "id": str(game.id),
        "rules": game.rules,
        "seed": game.seed if shown else None,
        "owner": owner,
        "public": game.public,
        "version": game.version,
        "status": game.status,
        "blocked": game.blocked,
        "score": game.score,
        "moves": game.moves,
        "undos": game.undos,
        "reserve": game.reserve,
        "removed": list(game.removed),
        "columns": board["columns"],
    }
    if "cells" in board:
        body["cells"] = board["cells"]
    if "reserve_cards" in board:
        body["reserve_cards"] = board["reserve_cards"]
    body["challenge"] = None
    body["created_at"] = timestamp(game.created_at)
    body["finished_at"] = timestamp(game.finished_at)
    return body


def stream_game(stream: streams.Stream) -> Game:
    """An unsaved ``Game`` holding the projection of ``stream`` (to render it)."""
    from games.projections import game_fields

    return Game(id=stream.game_id, **game_fields(stream))


def event_json(
    event: Event, effects: dict[str, Any], *, by: str | None, finished: bool
) -> dict[str, Any]:
    """The Event of API.md. ``created`` shows its seed and deal only once ``finished``."""
    data = event.data
    if event.type == streams.CREATED:
        data = {
            "rules": data["rules"],
            "seed": data.get("seed") if finished else None,
            "deal": data.get("deal") if finished else None,
            "public": data.get("public", True),
            "engine": data.get("engine"),
        }
    return {
        "seq": event.seq,
        "type": event.type,
        "data": data,
        "by": by,
        "at": timestamp(event.at),
        "effects": effects,
    }
