"""The vocabulary of a game's stream: one frozen class per type of event.

A stored event is a row of ``games_event``: its ``type``, its ``data`` (JSON) and the
``schema_version`` of that data. Each class here converts itself to and from that JSON and
names its own :attr:`~Created.VERSION`; :func:`decode` turns a stored row back into its
class, refusing an unknown type, an unknown version or a malformed payload with one
:class:`~games.errors.MalformedEvent` that names the game and the ``seq``. Everything that
needs the vocabulary (the fold, the presenters, the admin's filters, the OpenAPI enum) reads
it from here (docs/architecture.md#events).

Events record intent, never effects (``moved {from, index, to}``): effects are derived on
replay (docs/api.md#event-object). A move from a cell (``three_blind_mice``) is its own class,
:class:`CellMoved`, but is stored with the type ``moved`` and a ``cell`` key, as every
stream written since the first engine was.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from games import engine
from games.errors import MalformedEvent


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{key} is not an integer: {value!r}")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is not a string: {value!r}")
    return value


def _no_keys(data: Mapping[str, Any]) -> None:
    if data:
        raise ValueError(f"unexpected keys {sorted(data)}")


@dataclass(frozen=True, slots=True)
class Created:
    """A game begins: its rules, its deal (layout order) and how it was made.

    ``seed`` is ``None`` for a game made from an explicit deal; ``challenge`` is the ISO date
    of the daily challenge it races in; ``contest`` the id of the race or arena it is deal
    number ``round`` of (both keys are written only for such a game, so older streams read
    unchanged); ``engine`` the engine version that must replay it. ``rated``: the game is
    rated, the player against the deal (docs/ratings.md), and ``difficulty`` (0 to 1) is the
    deal's, from which its first rating comes (both written only for a rated game), unless
    ``deal_rating`` gives it: a pool deal's rating predicted from its certification
    (``games.ratings.fit``; written only when set, so older streams read unchanged).
    """

    TYPE: ClassVar[str] = "created"
    VERSION: ClassVar[int] = 1

    rules: str
    seed: int | None
    deal: tuple[str, ...]
    public: bool
    challenge: str | None
    engine: int
    contest: str | None = None
    round: int | None = None
    rated: bool = False
    difficulty: float | None = None
    deal_rating: float | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rules": self.rules,
            "seed": self.seed,
            "deal": list(self.deal),
            "public": self.public,
            "challenge": self.challenge,
            "engine": self.engine,
        }
        if self.contest is not None:
            data["contest"] = self.contest
            data["round"] = self.round
        if self.rated:
            data["rated"] = True
            data["difficulty"] = self.difficulty
            if self.deal_rating is not None:
                data["deal_rating"] = self.deal_rating
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Created:
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed is not an integer: {seed!r}")
        deal = data["deal"]
        if not isinstance(deal, list) or not all(isinstance(code, str) for code in deal):
            raise TypeError("deal is not a list of card codes")
        public = data.get("public", True)
        if not isinstance(public, bool):
            raise TypeError(f"public is not a boolean: {public!r}")
        challenge = data.get("challenge")
        if challenge is not None and not isinstance(challenge, str):
            raise TypeError(f"challenge is not a date: {challenge!r}")
        contest = data.get("contest")
        if contest is not None and not isinstance(contest, str):
            raise TypeError(f"contest is not an id: {contest!r}")
        round_ = None if contest is None else _int(data, "round")
        rated = data.get("rated", False)
        if rated is not True and rated is not False:
            raise TypeError(f"rated is not a boolean: {rated!r}")
        difficulty = data.get("difficulty") if rated else None
        if rated and (isinstance(difficulty, bool) or not isinstance(difficulty, int | float)):
            raise TypeError(f"difficulty is not a number: {difficulty!r}")
        deal_rating = data.get("deal_rating") if rated else None
        if deal_rating is not None and (
            isinstance(deal_rating, bool) or not isinstance(deal_rating, int | float)
        ):
            raise TypeError(f"deal_rating is not a number: {deal_rating!r}")
        return cls(
            rules=_str(data, "rules"),
            seed=seed,
            deal=tuple(deal),
            public=public,
            challenge=challenge,
            engine=_int(data, "engine"),
            contest=contest,
            round=round_,
            rated=rated,
            difficulty=None if difficulty is None else float(difficulty),
            deal_rating=None if deal_rating is None else float(deal_rating),
        )


@dataclass(frozen=True, slots=True)
class Moved:
    """The player moved the face-up card at ``index`` of column ``source`` (JSON ``from``)
    and everything above it onto column ``to``."""

    TYPE: ClassVar[str] = "moved"
    VERSION: ClassVar[int] = 1

    source: int
    index: int
    to: int

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "index": self.index, "to": self.to}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Moved:
        if set(data) != {"from", "index", "to"}:
            raise ValueError(f"keys {sorted(data)} are not from, index, to")
        return cls(source=_int(data, "from"), index=_int(data, "index"), to=_int(data, "to"))

    def action(self) -> engine.Move:
        return engine.Move(source=self.source, index=self.index, to=self.to)


@dataclass(frozen=True, slots=True)
class CellMoved:
    """The player played the card of cell ``cell`` onto column ``to`` (``three_blind_mice``).
    Stored as type ``moved`` with keys ``cell`` and ``to``."""

    TYPE: ClassVar[str] = "moved"
    VERSION: ClassVar[int] = 1

    cell: int
    to: int

    def to_json(self) -> dict[str, Any]:
        return {"cell": self.cell, "to": self.to}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CellMoved:
        if set(data) != {"cell", "to"}:
            raise ValueError(f"keys {sorted(data)} are not cell, to")
        return cls(cell=_int(data, "cell"), to=_int(data, "to"))

    def action(self) -> engine.CellMove:
        return engine.CellMove(cell=self.cell, to=self.to)


@dataclass(frozen=True, slots=True)
class Dealt:
    """The player dealt the reserve."""

    TYPE: ClassVar[str] = "dealt"
    VERSION: ClassVar[int] = 1

    def to_json(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Dealt:
        _no_keys(data)
        return cls()

    def action(self) -> engine.Deal:
        return engine.Deal()


@dataclass(frozen=True, slots=True)
class Undone:
    """The player undid their last move or deal still in effect."""

    TYPE: ClassVar[str] = "undone"
    VERSION: ClassVar[int] = 1

    def to_json(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Undone:
        _no_keys(data)
        return cls()

    def action(self) -> engine.Undo:
        return engine.Undo()


@dataclass(frozen=True, slots=True)
class Restarted:
    """The player went back to the initial deal."""

    TYPE: ClassVar[str] = "restarted"
    VERSION: ClassVar[int] = 1

    def to_json(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Restarted:
        _no_keys(data)
        return cls()

    def action(self) -> engine.Restart:
        return engine.Restart()


@dataclass(frozen=True, slots=True)
class Resigned:
    """The player gave the game up. ``abandoned``: the server ended it for them, because
    they left a rated daily game unfinished when its day closed (docs/ratings.md; written
    only when true)."""

    TYPE: ClassVar[str] = "resigned"
    VERSION: ClassVar[int] = 1

    abandoned: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"abandoned": True} if self.abandoned else {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Resigned:
        if data.get("abandoned") is True:
            _no_keys({key: value for key, value in data.items() if key != "abandoned"})
            return cls(abandoned=True)
        _no_keys(data)
        return cls()

    def action(self) -> engine.Resign:
        return engine.Resign()


def _reason(data: Mapping[str, Any]) -> str:
    if set(data) != {"reason"}:
        raise ValueError(f"keys {sorted(data)} are not reason")
    return _str(data, "reason")


@dataclass(frozen=True, slots=True)
class ResultVoided:
    """A moderator voided the game's result (it leaves standings and records)."""

    TYPE: ClassVar[str] = "result_voided"
    VERSION: ClassVar[int] = 1

    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResultVoided:
        return cls(reason=_reason(data))


@dataclass(frozen=True, slots=True)
class ResultRestored:
    """A moderator restored a voided result. ``owner_banned``: the game's player was banned
    at that moment, so a rated game's deal keeps its rating (written only when true)."""

    TYPE: ClassVar[str] = "result_restored"
    VERSION: ClassVar[int] = 1

    reason: str
    owner_banned: bool = False

    def to_json(self) -> dict[str, Any]:
        if self.owner_banned:
            return {"reason": self.reason, "owner_banned": True}
        return {"reason": self.reason}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResultRestored:
        if data.get("owner_banned") is True:
            rest = {key: value for key, value in data.items() if key != "owner_banned"}
            return cls(reason=_reason(rest), owner_banned=True)
        return cls(reason=_reason(data))


@dataclass(frozen=True, slots=True)
class Hinted:
    """The player of a race (a daily challenge still open, a race or an arena still
    running) was shown a hint: a fact of the game, counted in the standings and results
    (unaided wins rank first). ``move`` is the command it suggested (``None``: none),
    ``source`` what chose it (``solver``, ``heuristic`` or ``none``). Computed from the
    player's view, so it names no hidden card. It does not touch the board."""

    TYPE: ClassVar[str] = "hinted"
    VERSION: ClassVar[int] = 1

    move: dict[str, Any] | None
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"move": None if self.move is None else dict(self.move), "source": self.source}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hinted:
        if set(data) != {"move", "source"}:
            raise ValueError(f"keys {sorted(data)} are not move, source")
        move = data["move"]
        if move is not None:
            if not isinstance(move, Mapping) or not isinstance(move.get("type"), str):
                raise TypeError(f"move is not a command: {move!r}")
            if any(
                k != "type" and (isinstance(v, bool) or not isinstance(v, int))
                for k, v in move.items()
            ):
                raise TypeError(f"move is not a command: {move!r}")
        source = _str(data, "source")
        if source not in HINT_SOURCES:
            raise ValueError(f"unknown hint source {source!r}")
        return cls(move=None if move is None else dict(move), source=source)


#: What chose a hint: the sampled solver, the one-move heuristic, or nothing to suggest.
HINT_SOURCES = ("solver", "heuristic", "none")

#: What a player's command records: one engine action each.
PlayerEvent = Moved | CellMoved | Dealt | Undone | Restarted | Resigned
#: What a moderator records in a game's stream: it does not touch the board.
ModerationEvent = ResultVoided | ResultRestored
#: Facts about a game that are neither actions nor moderation: they leave the board alone.
NoteEvent = Hinted
GameEvent = Created | PlayerEvent | ModerationEvent | NoteEvent

#: Every stored type, in the order the API documents them (one type may name two classes).
TYPES: tuple[str, ...] = (
    Created.TYPE,
    Moved.TYPE,
    Dealt.TYPE,
    Undone.TYPE,
    Restarted.TYPE,
    Resigned.TYPE,
    ResultVoided.TYPE,
    ResultRestored.TYPE,
    Hinted.TYPE,
)

_SIMPLE: dict[str, type[GameEvent]] = {
    cls.TYPE: cls
    for cls in (
        Created,
        Dealt,
        Undone,
        Restarted,
        Resigned,
        ResultVoided,
        ResultRestored,
        Hinted,
    )
}


def decode(
    kind: str, data: Any, *, version: int = 1, game_id: uuid.UUID | str, seq: int
) -> GameEvent:
    """The event stored as ``kind`` with ``data`` (written by event class ``version``).

    :class:`MalformedEvent`, naming the game and ``seq``, for an unknown type or version
    and for a payload that is not exactly what its class writes.
    """
    try:
        if not isinstance(data, Mapping):
            raise TypeError("data is not a JSON object")
        if kind == Moved.TYPE:
            cls: type[GameEvent] = CellMoved if "cell" in data else Moved
        elif kind in _SIMPLE:
            cls = _SIMPLE[kind]
        else:
            raise ValueError(f"unknown event type {kind!r}")
        if version != cls.VERSION:
            raise ValueError(
                f"{kind} version {version} is unknown (this server writes {cls.VERSION})"
            )
        return cls.from_json(data)
    except (KeyError, TypeError, ValueError) as error:
        detail = f"missing {error}" if isinstance(error, KeyError) else str(error)
        raise MalformedEvent(game_id, seq, detail) from error


def of_action(action: engine.Action) -> PlayerEvent:
    """The event that records the engine ``action``."""
    match action:
        case engine.Move(source=source, index=index, to=to):
            return Moved(source=source, index=index, to=to)
        case engine.CellMove(cell=cell, to=to):
            return CellMoved(cell=cell, to=to)
        case engine.Deal():
            return Dealt()
        case engine.Undo():
            return Undone()
        case engine.Restart():
            return Restarted()
        case engine.Resign():
            return Resigned()
    raise TypeError(f"not an engine action: {action!r}")
