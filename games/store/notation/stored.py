"""Transcripts of stored games: the bridge from the event table to the notation."""

from __future__ import annotations

from collections.abc import Iterable

from games.store import streams
from games.store.models import Event
from games.store.notation.transcript import Entry, Transcript


def transcript(rows: Iterable[Event]) -> Transcript:
    """The transcript of one game's stored events: ``rows`` in ``seq`` order from ``created``,
    read with their actors (``select_related("actor")``). Its player is whoever created the
    game; each event is by its actor.

    It holds the game's hidden cards: show it only where ``games.reads.visibility`` allows.
    """
    entries: list[Entry] = []
    game_id = None
    for row in rows:
        game_id = row.game_id
        by = None if row.actor is None else row.actor.get_username()
        entries.append(Entry(streams.decoded(row), row.at, by))
    if not entries:
        raise ValueError("a game has at least its created event")
    return Transcript(tuple(entries), game_id, entries[0].by)
