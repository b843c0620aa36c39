"""The game summary: what a game's ``Game`` row holds, computed from its stream alone."""

from __future__ import annotations

from typing import Any

from games import engine
from games.store import streams

#: Fields of ``Game`` that the projection owns (all but the key).
PROJECTED_FIELDS = (
    "owner_id",
    "rules",
    "seed",
    "public",
    "version",
    "status",
    "blocked",
    "score",
    "moves",
    "undos",
    "reserve",
    "removed",
    "revealed",
    "board",
    "challenge",
    "voided",
    "created_at",
    "updated_at",
    "finished_at",
)


def game_fields(stream: streams.Stream) -> dict[str, Any]:
    """The ``Game`` row's projected fields for ``stream``."""
    state = stream.state
    # A daily challenge's deal is everyone's: even a finished game of it stays masked here
    # (the day's end, not the game's, reveals it; presenters then read the stream).
    view = engine.player_view(state, reveal=stream.finished and stream.challenge is None)
    initially_down = sum(down for down, _ in stream.rules.layout)
    return {
        "owner_id": stream.owner_id,
        "rules": stream.rules.name,
        "seed": stream.seed,
        "public": stream.public,
        "version": stream.version,
        "status": state.status,
        "blocked": view["blocked"],
        "score": state.score,
        "moves": state.moves,
        "undos": state.undos,
        "reserve": len(state.reserve),
        "removed": "".join(view["removed"]),
        "revealed": initially_down - sum(state.down),
        "board": {key: view[key] for key in ("columns", "cells", "reserve_cards") if key in view},
        "challenge": stream.challenge,
        "voided": stream.voided,
        "created_at": stream.created_at,
        "updated_at": stream.updated_at,
        "finished_at": stream.finished_at,
    }
