"""Publishing appended events to live viewers: the one place, run after commit.

Each game has a channel-layer group; a message carries the event's ``seq`` and its frame
(the event and the game after it, rendered for the public: what any spectator of the game
may see) as JSON text. Channel layers deliver at
most once: consumers fill gaps from the event store, so a failed publish loses nothing.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games.dailies import standings
from games.live import feeds
from games.store import streams
from games.store.models import Event

logger = logging.getLogger(__name__)


def game_group(game_id: uuid.UUID | str) -> str:
    """The channel-layer group of a game's spectators."""
    return f"game.{game_id}"


def after_commit(stream: streams.Stream, event: Event, *, owner: str) -> None:
    """Once the surrounding transaction commits: cache ``stream`` and publish ``event``.

    The frame is rendered after commit, not while the game's row is locked, and serialised
    once here rather than once per spectator.
    """

    def deliver() -> None:
        streams.remember(stream)
        frame = feeds.event_frame(
            stream, event, stream.effects_of(event.seq), viewer=None, owner=owner
        )
        send(stream.game_id, {"type": "game.event", "seq": event.seq, "text": json.dumps(frame)})

    transaction.on_commit(deliver)
    if stream.challenge is not None:
        standings.push_after_commit(stream.challenge)


def send(game_id: uuid.UUID, message: dict[str, Any]) -> None:
    """Send ``message`` to the game's group; a channel-layer failure is logged, not raised
    (the event is committed and viewers recover it from the store)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(game_group(game_id), message)
    except Exception:
        logger.exception("could not publish event #%s of game %s", message.get("seq"), game_id)
