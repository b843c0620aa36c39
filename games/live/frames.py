"""Every frame the server sends on a WebSocket, one frozen class each (docs/api.md#websocket).

The set is closed: a feed or a transport sends nothing that is not one of these. Each class
names its ``type`` once and knows its JSON (:meth:`Frame.to_json`) and its text
(:meth:`Frame.text`, what goes on the wire). Bodies (a game, an event, a race) come
rendered by ``games.reads.presenters``: a frame only wraps them. Standings arrive as JSON
text already (ranked by PostgreSQL or by ``contests.Board``), and :class:`Standings` splices
that text in rather than parsing and dumping it again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from games.reads.shapes import ArenaBody, EventBody, GameBody, RaceBody

#: Whether a contest feed follows a race or an arena (the key of its body in a frame).
ContestKind = Literal["race", "arena"]


class Frame:
    """A server frame: a JSON object whose ``type`` names it."""

    TYPE: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The frame as a JSON object, ``type`` first."""
        raise NotImplementedError

    def text(self) -> str:
        """The frame as the text sent on the socket."""
        return json.dumps(self.to_json())


# --- A game's feed ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot(Frame):
    """The game now (or at a resume point): the first frame of a game's feed."""

    TYPE: ClassVar[str] = "snapshot"
    game: GameBody

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "game": self.game}


@dataclass(frozen=True, slots=True)
class Event(Frame):
    """One appended event, with the game right after it."""

    TYPE: ClassVar[str] = "event"
    event: EventBody
    game: GameBody

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "event": self.event, "game": self.game}


@dataclass(frozen=True, slots=True)
class Watchers(Frame):
    """How many watch the game, to a spectator who asked (``?watchers=1``)."""

    TYPE: ClassVar[str] = "watchers"
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "count": self.count}


# --- Races: a day's, a race's, an arena's ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Standings(Frame):
    """A race's ranked results; ``results`` is their JSON text (a list)."""

    TYPE: ClassVar[str] = "standings"
    results: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "results": json.loads(self.results)}

    def text(self) -> str:
        return f'{{"type": "{self.TYPE}", "results": {self.results}}}'


@dataclass(frozen=True, slots=True)
class Race(Frame):
    """A race as it is now: the first frame of its feed."""

    TYPE: ClassVar[str] = "race"
    race: RaceBody

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "race": self.race}


@dataclass(frozen=True, slots=True)
class Arena(Frame):
    """An arena as it is now: the first frame of its feed."""

    TYPE: ClassVar[str] = "arena"
    arena: ArenaBody

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "arena": self.arena}


def contest(kind: ContestKind, body: Any) -> Race | Arena:
    """The first frame of a contest's feed: :class:`Race` or :class:`Arena`."""
    return Race(body) if kind == "race" else Arena(body)


@dataclass(frozen=True, slots=True)
class Countdown(Frame):
    """Whole seconds until a race starts, and its start."""

    TYPE: ClassVar[str] = "countdown"
    seconds: int
    starts_at: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "seconds": self.seconds, "starts_at": self.starts_at}


@dataclass(frozen=True, slots=True)
class Start(Frame):
    """The contest started: it as it is now."""

    TYPE: ClassVar[str] = "start"
    kind: ContestKind
    body: RaceBody | ArenaBody

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, self.kind: self.body}


@dataclass(frozen=True, slots=True)
class Finish(Frame):
    """The contest's results are final: it (now with its seeds) and its results."""

    TYPE: ClassVar[str] = "finish"
    kind: ContestKind
    body: RaceBody | ArenaBody
    results: list[Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, self.kind: self.body, "results": self.results}


# --- Answers to a client's frames ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pong(Frame):
    """The answer to ``{"type": "ping"}``."""

    TYPE: ClassVar[str] = "pong"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE}


@dataclass(frozen=True, slots=True)
class Error(Frame):
    """A client frame refused (``bad_message``, ``too_large``, ``throttled``) or a bad
    resume point (``bad_after``), by stable code."""

    TYPE: ClassVar[str] = "error"
    code: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "code": self.code}
