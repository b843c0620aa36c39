"""Every frame the server sends on a WebSocket, one frozen class each (docs/api.md#websocket).

The set is closed: a feed or a transport sends nothing that is not one of these. Each class
names its ``type`` once and knows its JSON (:meth:`Frame.to_json`) and its text
(:meth:`Frame.text`, what goes on the wire). Bodies (a game, an event, a race) come
rendered by ``games.reads.presenters``: a frame only wraps them. Standings arrive as JSON
text already (ranked by PostgreSQL or by ``contests.Board``), and :class:`Standings` splices
that text in rather than parsing and dumping it again.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from games.reads.shapes import ArenaBody, EventBody, GameBody, RaceBody

#: Whether a contest feed follows a race or an arena (the key of its body in a frame).
ContestKind = Literal["race", "arena"]


def _ref(name: str) -> dict[str, Any]:
    """A JSON Schema reference to a schema of the REST API's OpenAPI document."""
    return {"$ref": f"#/components/schemas/{name}"}


#: The feeds a client may open, by name (docs/api.md#websocket).
Feed = Literal["game", "challenge", "race", "arena"]

#: A time as the REST API writes it.
_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}

#: The codes of :class:`Error` frames (docs/api.md#connecting).
ERROR_CODES = (
    "bad_after",
    "bad_message",
    "too_large",
    "throttled",
    # Credentials refused before a feed opens (``api.ws_auth``), then a 4401 close.
    "bad_ticket",
    "token_in_url",
    # The rights the socket was opened with ended (games.live.rights), then a 4001 close.
    "rights_changed",
)

#: Each feed's standings row, by its name in the OpenAPI document.
_STANDING: dict[str, str] = {
    "challenge": "Standing",
    "race": "RaceStanding",
    "arena": "ArenaStanding",
}


class Frame:
    """A server frame: a JSON object whose ``type`` names it. :meth:`fields` states its
    other members as JSON Schema (the AsyncAPI document, ``api.asyncapi``, is made of them)."""

    TYPE: ClassVar[str]
    #: One line on what the frame says, for the AsyncAPI document.
    SUMMARY: ClassVar[str] = ""
    #: Every frame is a frozen dataclass: its fields are its members.
    __dataclass_fields__: ClassVar[dict[str, Any]]

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        """The JSON Schema of each member but ``type`` on ``feed`` (all are required)."""
        return {}

    def to_json(self) -> dict[str, Any]:
        """The frame as a JSON object, ``type`` first, then its fields as they are (a
        frame whose members are not its fields says so itself)."""
        members = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        return {"type": self.TYPE, **members}

    def text(self) -> str:
        """The frame as the text sent on the socket."""
        return json.dumps(self.to_json())


# --- A game's feed ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot(Frame):
    """The game now (or at a resume point): the first frame of a game's feed."""

    TYPE: ClassVar[str] = "snapshot"
    game: GameBody

    SUMMARY: ClassVar[str] = (
        "The game now, or at the resume point: the first frame of a game's feed."
    )

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"game": _ref("Game")}


@dataclass(frozen=True, slots=True)
class Event(Frame):
    """One appended event, with the game right after it."""

    TYPE: ClassVar[str] = "event"
    event: EventBody
    game: GameBody

    SUMMARY: ClassVar[str] = "One appended event, with the game right after it."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"event": _ref("Event"), "game": _ref("Game")}


@dataclass(frozen=True, slots=True)
class Watchers(Frame):
    """How many watch the game, to a spectator who asked (``?watchers=1``)."""

    TYPE: ClassVar[str] = "watchers"
    count: int

    SUMMARY: ClassVar[str] = "How many watch the game (with ?watchers=1)."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"count": {"type": "integer", "minimum": 0}}


# --- Races: a day's, a race's, an arena's ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Standings(Frame):
    """A race's ranked results; ``results`` is their JSON text (a list)."""

    TYPE: ClassVar[str] = "standings"
    results: str

    SUMMARY: ClassVar[str] = "The race's ranked results, whole, after every change."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"results": {"type": "array", "items": _ref(_STANDING[feed])}}

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "results": json.loads(self.results)}

    def text(self) -> str:
        return f'{{"type": "{self.TYPE}", "results": {self.results}}}'


@dataclass(frozen=True, slots=True)
class Race(Frame):
    """A race as it is now: the first frame of its feed."""

    TYPE: ClassVar[str] = "race"
    race: RaceBody

    SUMMARY: ClassVar[str] = "The race now: the first frame of its feed."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"race": _ref("Race")}


@dataclass(frozen=True, slots=True)
class Arena(Frame):
    """An arena as it is now: the first frame of its feed."""

    TYPE: ClassVar[str] = "arena"
    arena: ArenaBody

    SUMMARY: ClassVar[str] = "The arena now: the first frame of its feed."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"arena": _ref("Arena")}


def contest(kind: ContestKind, body: Any) -> Race | Arena:
    """The first frame of a contest's feed: :class:`Race` or :class:`Arena`."""
    return Race(body) if kind == "race" else Arena(body)


@dataclass(frozen=True, slots=True)
class Countdown(Frame):
    """Whole seconds until a race starts, and its start."""

    TYPE: ClassVar[str] = "countdown"
    seconds: int
    starts_at: str

    SUMMARY: ClassVar[str] = "Whole seconds until the race starts, once a second before the start."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"seconds": {"type": "integer", "minimum": 0}, "starts_at": _TIME}


@dataclass(frozen=True, slots=True)
class Start(Frame):
    """The contest started: it as it is now."""

    TYPE: ClassVar[str] = "start"
    kind: ContestKind
    body: RaceBody | ArenaBody

    SUMMARY: ClassVar[str] = "The contest started: it as it is now."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {feed: _ref("Race" if feed == "race" else "Arena")}

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, self.kind: self.body}


@dataclass(frozen=True, slots=True)
class Finish(Frame):
    """The contest's results are final: it (now with its seeds) and its results."""

    TYPE: ClassVar[str] = "finish"
    kind: ContestKind
    body: RaceBody | ArenaBody
    results: list[Any]

    SUMMARY: ClassVar[str] = (
        "The results are final: the contest, now with its seeds, and its results."
    )

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        body = _ref("Race" if feed == "race" else "Arena")
        return {feed: body, "results": {"type": "array", "items": _ref(_STANDING[feed])}}

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, self.kind: self.body, "results": self.results}


# --- Answers to a client's frames ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pong(Frame):
    """The answer to ``{"type": "ping"}``."""

    TYPE: ClassVar[str] = "pong"

    SUMMARY: ClassVar[str] = "The answer to a ping."

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {}


@dataclass(frozen=True, slots=True)
class Error(Frame):
    """A client frame refused (``bad_message``, ``too_large``, ``throttled``), a bad
    resume point (``bad_after``), credentials refused (``bad_ticket``, ``token_in_url``)
    or ended (``rights_changed``), by stable code."""

    TYPE: ClassVar[str] = "error"
    code: str

    SUMMARY: ClassVar[str] = (
        "A client frame refused, a bad resume point, or credentials refused or ended, by"
        " stable code."
    )

    @classmethod
    def fields(cls, feed: Feed) -> dict[str, Any]:
        return {"code": {"type": "string", "enum": list(ERROR_CODES)}}


#: The frames each feed sends (docs/api.md#websocket), in the order a client meets them.
FEEDS: dict[Feed, tuple[type[Frame], ...]] = {
    "game": (Snapshot, Event, Watchers, Pong, Error),
    "challenge": (Standings, Pong, Error),
    "race": (Race, Countdown, Standings, Start, Finish, Pong, Error),
    "arena": (Arena, Standings, Start, Finish, Pong, Error),
}


def schema(frame: type[Frame], feed: Feed) -> dict[str, Any]:
    """The JSON Schema of ``frame`` as ``feed`` sends it: an object with its ``type`` and
    its fields, nothing else."""
    fields = frame.fields(feed)
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "const": frame.TYPE}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }
