"""The public log as readers get it (docs/api.md#the-public-log): pages of games open to
everyone, in commit order, each in the notation or as its events.

Every game here is :func:`visibility.published`: it entered the log because the visibility
module said so when it finished or when its contest ended, and it is shown with
:data:`visibility.PUBLISHED`, hidden cards included. Pages pass the stored notation
through (``games.writes.public_log`` writes it); an entry the job has not reached yet is
written here, for this answer only.
"""

from __future__ import annotations

import uuid

from games.reads import presenters, visibility
from games.reads.shapes import LogEntryBody, LoggedEventBody
from games.store import log
from games.store.log import BadCursor, Cursor
from games.store.models import Event

#: The most entries a page holds.
PAGE_MAX = 500
#: ``scorpion``: each game in the notation; ``json``: as its stored events.
FORMATS = ("scorpion", "json")

__all__ = ["FORMATS", "PAGE_MAX", "BadCursor", "Cursor", "cursor_of", "log_page"]


def cursor_of(text: str | None) -> Cursor | None:
    """The cursor a client sent (``None``: from the start); :class:`BadCursor` for one
    this server did not make: malformed, or naming no entry of its log."""
    if text is None:
        return None
    cursor = Cursor.decode(text)
    if not log.known(cursor):
        raise BadCursor(text)
    return cursor


def log_page(
    *, after: Cursor | None, limit: int, format: str
) -> tuple[list[LogEntryBody], Cursor | None]:
    """Up to ``limit`` games of the log after ``after`` in ``format``, and where the next
    read starts (the last entry's cursor, or ``after`` when there was none)."""
    entries = log.entries(after, min(limit, PAGE_MAX))
    bodies = _notation(entries) if format == "scorpion" else _events(entries)
    return bodies, entries[-1].cursor if entries else after


def _body(entry: log.Entry) -> LogEntryBody:
    return {
        "cursor": entry.cursor.encode(),
        "game": str(entry.game_id),
        "published_at": presenters.timestamp(entry.published_at) or "",
    }


def _notation(entries: list[log.Entry]) -> list[LogEntryBody]:
    missing = log.write(entry.game_id for entry in entries if entry.notation is None)
    bodies = []
    for entry in entries:
        body = _body(entry)
        text = entry.notation
        body["notation"] = text if text is not None else missing[entry.game_id][1]
        bodies.append(body)
    return bodies


def _events(entries: list[log.Entry]) -> list[LogEntryBody]:
    ids = [entry.game_id for entry in entries]
    found: dict[uuid.UUID, list[LoggedEventBody]] = {game_id: [] for game_id in ids}
    rows = Event.objects.filter(game_id__in=ids).select_related("actor").order_by("game_id", "seq")
    for event in rows.iterator(chunk_size=4000):
        found[event.game_id].append(
            {
                "seq": event.seq,
                "type": event.type,
                "data": presenters.event_data(event, visibility.PUBLISHED),
                "by": event.actor.get_username() if event.actor is not None else None,
                "at": presenters.timestamp(event.at) or "",
            }
        )
    bodies = []
    for entry in entries:
        body = _body(entry)
        body["events"] = found[entry.game_id]
        bodies.append(body)
    return bodies
