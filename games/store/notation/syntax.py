"""The notation's vocabulary, shared by the writer and the reader: its tags, the tokens of
its moves, its strings and its times (docs/notation.md is the specification).

What one side writes the other reads through the same definitions here, so the two cannot
drift apart.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from games import engine
from games.engine.cards import CODE
from games.store import events

#: The version of the notation: the value of the ``Scorpion`` tag that opens every game.
VERSION = "1"
#: The media type the API serves it as, and the extension of its files.
MEDIA_TYPE = "text/x-scorpion"
EXTENSION = ".scorpion"

#: Every tag, in the order the writer writes them.
TAGS = (
    "Scorpion",
    "Game",
    "Rules",
    "Engine",
    "Seed",
    "Deal",
    "Public",
    "Challenge",
    "Contest",
    "Round",
    "Rated",
    "DealRating",
    "Player",
    "Created",
    "Finished",
    "Result",
    "Score",
)
#: The tags every game has (besides ``Scorpion``, and ``Seed`` or ``Deal``).
REQUIRED = ("Rules", "Engine", "Result")

#: The card of each canonical code (``TD``, never ``10D`` or ``td``).
CARDS: dict[str, engine.Card] = {code: card for card, code in enumerate(CODE)}

#: The words of the actions that name no card.
PLAIN: dict[str, engine.Deal | engine.Undo | engine.Restart | engine.Resign] = {
    "deal": engine.Deal(),
    "undo": engine.Undo(),
    "restart": engine.Restart(),
    "resign": engine.Resign(),
}
#: The word of each action that names no card.
WORDS: dict[type[engine.Action], str] = {type(action): word for word, action in PLAIN.items()}
#: The word of a resignation the server wrote for a player who abandoned a rated daily
#: game (``resigned`` with ``abandoned``): a resignation to the rules.
ABANDON = "abandon"
#: The words of moderation events, which a reason (a string) follows.
MODERATION: dict[str, Callable[[str], events.ResultVoided | events.ResultRestored]] = {
    "void": events.ResultVoided,
    "restore": events.ResultRestored,
    # A restore while the game's player was banned (its deal's rating stays as it is).
    "restore_banned": lambda reason: events.ResultRestored(reason, owner_banned=True),
}
#: The word between a moderation event's reason and its moderator.
BY = "by"


# --- Tokens of the moves ----------------------------------------------------------------------

_NUMBER = r"(?:0|[1-9][0-9]{0,8})"


def _move(prefix: str) -> str:
    """A move's pattern, its groups' names starting with ``prefix``."""
    return (
        rf"(?P<{prefix}card>[^@\s:]*)@"
        rf"(?:(?P<{prefix}source>{_NUMBER})\.(?P<{prefix}index>{_NUMBER})|c(?P<{prefix}cell>{_NUMBER}))"
        rf">(?P<{prefix}to>{_NUMBER})"
    )


#: One event's head: a move, a plain action, a moderation word or a hint, then its time.
EVENT = re.compile(
    rf"""(?:{_move("")}
        |(?P<word>deal|undo|restart|resign|abandon|void|restore_banned|restore)
        |hint:(?P<chose>solver|heuristic|none)(?::(?:{_move("h")}|(?P<hdeal>deal)))?
        )(?P<time>[+-](?:0|[1-9][0-9]{{0,14}}))?""",
    re.VERBOSE,
)
#: ``12.``: the next event is seq 12.
SEQ = re.compile(rf"(?P<seq>{_NUMBER})\.")
#: ``=won``: the game's result, which ends its moves.
END = re.compile(r"=(?P<result>[a-z]+)")

#: The lexemes of a line of moves: blanks, a comment's start, a comment to the end of the
#: line, a string, and any other run of characters (a word).
LEXEME = re.compile(
    r"""(?P<blank>[ \t]+)
      |(?P<open>\{)
      |(?P<rest>;.*)
      |(?P<string>"(?:[^"\\\x00-\x1f]|\\.)*")
      |(?P<word>[^\s{};"]+)""",
    re.VERBOSE,
)
#: A line of moves with words alone (printable ASCII but for ``" ; { }``), and its words:
#: what most lines are, read without :data:`LEXEME`.
PLAIN_LINE = re.compile(r"[ \t!#-:<-z|~]*")
WORD = re.compile(r"[^ \t]+")
#: A tag line: ``[Name "value"]``, the value a JSON string.
TAG = re.compile(r'\[(?P<name>[A-Za-z]+) (?P<value>"(?:[^"\\\x00-\x1f]|\\.)*")\][ \t]*')


def move_token(card: engine.Card, source: int, index: int, to: int) -> str:
    """``5H@2.5>7``: the card at ``index`` of column ``source`` goes onto column ``to``."""
    return f"{CODE[card]}@{source}.{index}>{to}"


def cell_token(card: engine.Card, cell: int, to: int) -> str:
    """``9S@c2>5``: the card of cell ``cell`` goes onto column ``to``."""
    return f"{CODE[card]}@c{cell}>{to}"


@dataclass(frozen=True, slots=True)
class Place:
    """Where a move token takes its card: a column and index, or a cell."""

    card: str
    source: int | None
    index: int | None
    cell: int | None
    to: int


#: The groups of a move in :data:`EVENT`: the event's own, and its hint's.
_PLACE_GROUPS = {
    prefix: tuple(prefix + name for name in ("card", "source", "index", "cell", "to"))
    for prefix in ("", "h")
}


def place(match: re.Match[str], prefix: str = "") -> Place | None:
    """The move of an :data:`EVENT` match (its hint's, with ``prefix`` ``h``), if any."""
    card, source, index, cell, to = match.group(*_PLACE_GROUPS[prefix])
    if to is None:
        return None
    return Place(
        card=card,
        source=None if source is None else int(source),
        index=None if index is None else int(index),
        cell=None if cell is None else int(cell),
        to=int(to),
    )


# --- Strings ------------------------------------------------------------------------------------

#: Characters that some line splitters take for line breaks, and lone surrogates (which
#: UTF-8 cannot carry): written as ``\\u`` escapes, so that a string stays on its line.
_UNSAFE = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
#: What a comment may not hold: its own end, and any line break but LF.
COMMENT_FORBIDS = re.compile("[}\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def quote(text: str) -> str:
    """``text`` as a JSON string that stays on one line of UTF-8."""
    return _UNSAFE.sub(
        lambda char: f"\\u{ord(char.group()):04x}", json.dumps(text, ensure_ascii=False)
    )


def unquote(literal: str) -> str:
    """The text of a JSON string literal matched by :data:`LEXEME` or :data:`TAG`
    (:class:`ValueError` for an escape JSON does not know)."""
    text = json.loads(literal)
    assert isinstance(text, str)
    return text


# --- Times --------------------------------------------------------------------------------------

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MILLISECOND = dt.timedelta(milliseconds=1)
#: A time as the header writes it: UTC, milliseconds, ``Z``.
TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


def millis(at: dt.datetime) -> int:
    """``at`` in whole milliseconds since 1970 (UTC), rounded down."""
    return (at - _EPOCH) // _MILLISECOND


def at_millis(value: int) -> dt.datetime:
    """The UTC time ``value`` milliseconds after 1970 (:class:`OverflowError` outside the
    years 1 to 9999)."""
    return _EPOCH + value * _MILLISECOND


def format_time(at: dt.datetime) -> str:
    """``2026-11-30T12:15:57.924Z``: ``at`` in UTC, rounded down to the millisecond."""
    return at_millis(millis(at)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> dt.datetime:
    """The time :func:`format_time` wrote (:class:`ValueError` for anything else)."""
    if not TIME.fullmatch(text):
        raise ValueError(f"{text!r} is not a time such as 2026-11-30T12:15:57.924Z")
    return dt.datetime.fromisoformat(text)
