"""The game notation (docs/notation.md): a game as text, in the spirit of chess's PGN.

:func:`write` and :func:`write_all` turn :class:`Transcript` s (a game's events, with their
times and authors) into text; :func:`read` turns text back into transcripts, replaying each
game through the engine and refusing one that does not replay with a
:class:`NotationError` that names the line and the reason. Both handle one game at a time,
so a text of any number of games streams through them. Pure: no Django, no I/O.
"""

from games.store.notation.reader import read
from games.store.notation.syntax import EXTENSION, MEDIA_TYPE, VERSION
from games.store.notation.transcript import Entry, NotationError, Transcript
from games.store.notation.writer import write, write_all

__all__ = [
    "EXTENSION",
    "MEDIA_TYPE",
    "VERSION",
    "Entry",
    "NotationError",
    "Transcript",
    "read",
    "write",
    "write_all",
]
