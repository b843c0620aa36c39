"""The public log as readers get it (docs/api.md#the-public-log): pages of games open to
everyone, in commit order, each in the notation or as its events.

Every game here is ``visibility.published``: it entered the log because the visibility
module said so when it finished or when its contest ended, and it is shown whole, hidden
cards included, as its sight then allows anyone. Pages pass the stored notation
through (``games.writes.public_log`` writes it); an entry the job has not reached yet is
written here, for this answer only.
"""

from __future__ import annotations

import json

from games.reads import presenters
from games.reads.shapes import LogEntryBody
from games.store import log
from games.store.log import BadCursor, Cursor

#: The most entries a page holds.
PAGE_MAX = 500
#: ``scorpion``: each game in the notation; ``json``: as its stored events.
FORMATS = ("scorpion", "json")

__all__ = ["FORMATS", "PAGE_MAX", "BadCursor", "Cursor", "cursor_of", "log_page"]


def cursor_of(text: str | None) -> Cursor | None:
    """The cursor a client sent (``None``: from the start); :class:`BadCursor` for text this
    server does not make (whether it names an entry, the read itself checks)."""
    return None if text is None else Cursor.decode(text)


def log_page(*, after: Cursor | None, limit: int, format: str) -> tuple[list[str], Cursor | None]:
    """Up to ``limit`` games of the log after ``after`` in ``format``, each as the JSON text
    of its :class:`LogEntryBody` (so that stored text is passed through, not parsed), and
    where the next read starts (the last entry's cursor, or ``after`` when there was none).
    :class:`BadCursor` for an ``after`` that names no entry."""
    entries = log.entries(after, min(limit, PAGE_MAX))
    texts = _notation(entries) if format == "scorpion" else _events(entries)
    return texts, entries[-1].cursor if entries else after


def _head(entry: log.Entry) -> str:
    """The entry's body without its closing brace, to add the game to."""
    body: LogEntryBody = {
        "cursor": entry.cursor.encode(),
        "game": str(entry.game_id),
        "published_at": presenters.timestamp(entry.published_at) or "",
    }
    return json.dumps(body, separators=(",", ":"))[:-1]


def _notation(entries: list[log.Entry]) -> list[str]:
    missing = log.write(entry.game_id for entry in entries if entry.notation is None)
    texts = []
    for entry in entries:
        text = entry.notation
        text = text if text is not None else missing[entry.game_id][1]
        texts.append(f'{_head(entry)},"notation":{json.dumps(text, ensure_ascii=False)}}}')
    return texts


def _events(entries: list[log.Entry]) -> list[str]:
    found = log.events_json([entry.game_id for entry in entries])
    return [f'{_head(entry)},"events":{found[entry.game_id]}}}' for entry in entries]
