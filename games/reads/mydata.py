"""A player's own data to take away (docs/api.md#get-authdata): every game of theirs and
every event of those games, oldest game first, in the notation or as NDJSON.

It is read a batch of games at a time (:func:`data_batch`), so that the transport streams
it without holding a player's whole history, and each game is shown as its owner sees it
through ``games.reads.visibility``, as everywhere: the notation names a game's deal, so it
holds the games whose hidden cards the owner may see (finished ones, and those of contests
that are over); NDJSON holds every game, its hidden cards masked where they are hidden
from the owner too (a game in play, a running contest's deal).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections import defaultdict
from typing import Any, NamedTuple

from django.contrib.auth.models import User

from games.reads import presenters, visibility
from games.store import notation
from games.store.models import Event, Game
from games.store.notation import stored
from games.store.summary import GameSummary

#: ``scorpion``: the games in the notation; ``ndjson``: a JSON object a line, a game each.
FORMATS = ("scorpion", "ndjson")
#: The media type and the file name's extension of each format.
MEDIA_TYPES = {"scorpion": notation.MEDIA_TYPE, "ndjson": "application/x-ndjson"}
EXTENSIONS = {"scorpion": notation.EXTENSION, "ndjson": ".ndjson"}
#: Games read at a time.
BATCH = 100


class Place(NamedTuple):
    """Where a download has got to: after the game created at ``created_at`` with ``id``."""

    created_at: dt.datetime
    id: uuid.UUID


def data_batch(*, user: User, format: str, after: Place | None) -> tuple[str, Place | None]:
    """The text of the next :data:`BATCH` games of ``user`` after ``after`` (oldest first),
    and where the next batch starts (``None``: there is no more)."""
    games = Game.objects.select_related("owner").filter(owner=user)
    if after is not None:
        games = games.filter(created_at__gte=after.created_at).exclude(
            created_at=after.created_at, id__lte=after.id
        )
    rows = list(games.order_by("created_at", "id")[:BATCH])
    if not rows:
        return "", None
    viewer = visibility.Viewer.of(user)
    seen = [(game, visibility.sight(viewer, game)) for game in map(GameSummary.from_row, rows)]
    text = _notation(seen) if format == "scorpion" else _ndjson(seen)
    last = rows[-1]
    return text, Place(last.created_at, last.id) if len(rows) == BATCH else None


def _events(games: list[GameSummary]) -> dict[uuid.UUID, list[Event]]:
    """The events of ``games``, each game's in ``seq`` order up to its summary's version."""
    versions = {game.id: game.version for game in games}
    found: dict[uuid.UUID, list[Event]] = defaultdict(list)
    rows = (
        Event.objects.filter(game_id__in=list(versions))
        .select_related("actor")
        .order_by("game_id", "seq")
    )
    for row in rows.iterator(chunk_size=2000):
        if row.seq <= versions[row.game_id]:
            found[row.game_id].append(row)
    return found


def _notation(seen: list[tuple[GameSummary, visibility.Sight]]) -> str:
    shown = [game for game, sight in seen if visibility.notation_refusal(sight, game) is None]
    events = _events(shown)
    return "".join(notation.write(stored.transcript(events[game.id])) for game in shown)


def _ndjson(seen: list[tuple[GameSummary, visibility.Sight]]) -> str:
    events = _events([game for game, _ in seen])
    lines = []
    for game, sight in seen:
        body: dict[str, Any] = {
            "game": presenters.game_body(game, sight),
            "events": [_event(event, sight) for event in events[game.id]],
        }
        lines.append(json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n")
    return "".join(lines)


def _event(event: Event, sight: visibility.Sight) -> dict[str, Any]:
    """An event as the public log's JSON format writes it (no ``effects``: replay derives
    them), its ``created`` data masked as ``sight`` says."""
    return {
        "seq": event.seq,
        "type": event.type,
        "data": presenters.event_data(event, sight),
        "by": event.actor.get_username() if event.actor is not None else None,
        "at": presenters.timestamp(event.at),
    }
