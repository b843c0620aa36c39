"""The public JSON shapes of API.md (Game, Event), built from read models and events.

What a reader may see is decided by ``selectors.may_reveal`` and applied here only: while
a game's hidden information is protected, its seed, its deal, face-down cards and the
reserve stay on the server (the projection's board is already the player's view); once it
may be revealed, every card is shown, read from the stream when the projection holds only
the masked board.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import engine
from games.dailies import challenges
from games.dailies.models import DailyChallenge, Standing
from games.reads import selectors
from games.store import streams
from games.store.models import Event, Game
from games.store.summary import game_fields


def timestamp(value: dt.datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds and a ``Z``."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def game_for(
    game: Game, viewer: Any, *, owner: str | None = None, stream: streams.Stream | None = None
) -> dict[str, Any]:
    """The Game of API.md as ``viewer`` may see it. ``stream``, when at hand, saves a load
    if every card is to be shown."""
    return game_json(
        game,
        owner=owner if owner is not None else game.owner.get_username(),
        reveal=selectors.may_reveal(game, viewer),
        stream=stream,
    )


def game_json(
    game: Game, *, owner: str, reveal: bool = False, stream: streams.Stream | None = None
) -> dict[str, Any]:
    """The Game of API.md; ``reveal`` shows the seed and every card (decided by
    ``selectors.may_reveal``, never by the caller's wish)."""
    board: dict[str, Any] = game.board
    if reveal and "reserve_cards" not in board:
        if stream is None:
            stream = streams.load(game.id, game.version)
        board = engine.player_view(stream.state, reveal=True)
    body: dict[str, Any] = {
        "id": str(game.id),
        "rules": game.rules,
        "seed": game.seed if reveal else None,
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
    if reveal:
        body["reserve_cards"] = board["reserve_cards"]
    body["challenge"] = str(game.challenge) if game.challenge is not None else None
    body["created_at"] = timestamp(game.created_at)
    body["finished_at"] = timestamp(game.finished_at)
    return body


def stream_game(stream: streams.Stream) -> Game:
    """An unsaved ``Game`` holding the projection of ``stream`` (to render it)."""
    return Game(id=stream.game_id, **game_fields(stream))


def event_json(
    event: Event, effects: dict[str, Any], *, by: str | None, reveal: bool
) -> dict[str, Any]:
    """The Event of API.md. ``created`` shows its seed and deal only with ``reveal``."""
    data = event.data
    if event.type == streams.CREATED:
        data = {
            "rules": data["rules"],
            "seed": data.get("seed") if reveal else None,
            "deal": data.get("deal") if reveal else None,
            "public": data.get("public", True),
            "challenge": data.get("challenge"),
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


def actor_name(event: Event) -> str | None:
    """The username of whoever caused ``event``."""
    return event.actor.get_username() if event.actor is not None else None


def challenge_json(challenge: DailyChallenge) -> dict[str, Any]:
    """The challenge as API.md shows it: the seed only once the day is over."""
    open_now = challenges.is_open(challenge.date)
    return {
        "date": challenge.date.isoformat(),
        "rules": challenge.rules,
        "starts_at": timestamp(challenges.starts_at(challenge.date)),
        "ends_at": timestamp(challenges.starts_at(challenge.date + dt.timedelta(days=1))),
        "participants": Standing.objects.filter(challenge=challenge).count(),
        "status": "open" if open_now else "closed",
        "seed": None if open_now else challenge.seed,
    }
