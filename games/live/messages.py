"""What server processes tell each other through the channel layer, one frozen class each.

A message goes to a group (``publish.game_group`` and its siblings), where each process
that has watchers of it holds one channel (``games.live.feeds``); the process then sends
frames (``games.live.frames``) to its own sockets. Messages are plain dicts on the layer
(JSON and msgpack safe): :meth:`to_message` makes one, :func:`parse` reads one back.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


def game_group(game_id: uuid.UUID | str) -> str:
    """The channel-layer group of a game's spectators."""
    return f"game.{game_id}"


def challenge_group(date: dt.date | str) -> str:
    """The channel-layer group of a daily challenge's watchers."""
    return f"challenge.{date}"


def contest_group(contest_id: uuid.UUID | str) -> str:
    """The channel-layer group of a race's or arena's watchers."""
    return f"contest.{contest_id}"


@dataclass(frozen=True, slots=True)
class GameEvent:
    """A game's new event: its ``seq`` and its frame's text once per audience
    (``visibility.Audience``: readers, staff)."""

    TYPE: ClassVar[str] = "game.event"
    seq: int
    texts: Mapping[str, str] = field(default_factory=dict)

    def to_message(self) -> dict[str, Any]:
        return {"type": self.TYPE, "seq": self.seq, "texts": dict(self.texts)}


@dataclass(frozen=True, slots=True)
class GameWatchers:
    """How many watch a game, with the revision of that count (a later revision carries a
    later count)."""

    TYPE: ClassVar[str] = "game.watchers"
    revision: int
    count: int

    def to_message(self) -> dict[str, Any]:
        return {"type": self.TYPE, "revision": self.revision, "count": self.count}


@dataclass(frozen=True, slots=True)
class StandingsChanged:
    """A race's standings changed: with one contest game's new ``result``
    (``games.projections.contest_results.message``), which each process applies to the
    ranking it holds; without one, each process reads the standings again."""

    TYPE: ClassVar[str] = "standings.changed"
    result: dict[str, Any] | None = None

    def to_message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": self.TYPE}
        if self.result is not None:
            message["result"] = self.result
        return message


@dataclass(frozen=True, slots=True)
class ContestPhase:
    """A race's or arena's phase may have changed (a race that ended early)."""

    TYPE: ClassVar[str] = "contest.phase"

    def to_message(self) -> dict[str, Any]:
        return {"type": self.TYPE}


Message = GameEvent | GameWatchers | StandingsChanged | ContestPhase


def parse(message: Mapping[str, Any]) -> Message | None:
    """The message a layer delivered, or ``None`` for one this server does not know."""
    kind = message.get("type")
    if kind == GameEvent.TYPE:
        return GameEvent(int(message["seq"]), message.get("texts") or {})
    if kind == StandingsChanged.TYPE:
        return StandingsChanged(message.get("result"))
    if kind == GameWatchers.TYPE:
        return GameWatchers(int(message["revision"]), int(message["count"]))
    if kind == ContestPhase.TYPE:
        return ContestPhase()
    return None
