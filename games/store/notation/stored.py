"""Transcripts of stored games: the bridge from the event table to the notation.

Rows go in as the database hands them out (an ``iterator()``), and transcripts come out
one game at a time, so that a query over many games streams into
:func:`~games.store.notation.write_all` without being held whole.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from django.contrib.auth.models import User

from games.errors import StreamCorrupted
from games.store import streams
from games.store.models import Event
from games.store.notation.transcript import Entry, Transcript


def transcript(rows: Iterable[Event], *, pseudonymous: bool = False) -> Transcript:
    """The transcript of one game's stored events: ``rows`` in ``seq`` order from
    ``created``, read with their actors (``select_related("actor")``). Its player is
    whoever created the game; each event is by its actor, named by username, or with
    ``pseudonymous`` by the pseudonym that names players in the public record (then read
    with ``select_related("actor__account")``).

    :class:`StreamCorrupted` for rows that skip a ``seq``. The transcript holds the game's
    hidden cards: show it only where ``games.reads.visibility`` allows.
    """
    entries: list[Entry] = []
    game_id = None
    for row in rows:
        if row.seq != len(entries) + 1:
            raise StreamCorrupted(f"game {row.game_id}: event #{row.seq} after #{len(entries)}")
        game_id = row.game_id
        by = None if row.actor is None else name(row.actor, pseudonymous=pseudonymous)
        entries.append(Entry(streams.decoded(row), row.at, by))
    if not entries:
        raise StreamCorrupted("no events")
    return Transcript(tuple(entries), game_id, entries[0].by)


def transcripts(rows: Iterable[Event], *, pseudonymous: bool = False) -> Iterator[Transcript]:
    """The transcript of each game of ``rows``, whose events come together and in ``seq``
    order (such as ``order_by("game_id", "seq")``, or games one after another in any order),
    read with their actors; one game at a time (names as :func:`transcript` gives them)."""
    for _game_id, events in itertools.groupby(rows, key=lambda row: row.game_id):
        yield transcript(events, pseudonymous=pseudonymous)


def name(user: User, *, pseudonymous: bool) -> str:
    """How the notation names ``user``: the username, or the pseudonym of its account."""
    return user.account.pseudonym if pseudonymous else user.get_username()
