"""A game's state as a fold of its events, with a cache so that rebuilding it does not
get slower as the game grows.

``fold`` replays stored events (decoded by ``games.store.events``) through the engine,
checking that ``seq`` follows on exactly.
``load`` answers from the process-wide cache when it holds the wanted version, replays
only the missing tail when it holds an older one (another process appended meanwhile),
and replays everything only when the game is not cached. The cache learns a stream only
after its transaction committed (:func:`remember`), so it never holds an event that a
rollback erased.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings

from games import engine, metrics
from games.engine import Effects, State
from games.errors import GameNotFound, StreamCorrupted
from games.store import events
from games.store.models import Event

_NO_EFFECTS: dict[str, Any] = {"points": 0, "flipped": [], "removed": []}


@dataclass(frozen=True, slots=True)
class Pace:
    """The rhythm of a game's engine actions, kept in O(1): how many intervals lie between
    consecutive actions, and their sum and sum of squares in whole milliseconds (exact
    integers, so a replay on any machine computes the same figures)."""

    last_at: dt.datetime | None = None
    intervals: int = 0
    total_ms: int = 0
    total_sq_ms: int = 0

    def after(self, at: dt.datetime) -> Pace:
        """This pace with one more action at ``at``."""
        if self.last_at is None:
            return Pace(last_at=at)
        gap = max(0, (at - self.last_at) // dt.timedelta(milliseconds=1))
        return Pace(
            last_at=at,
            intervals=self.intervals + 1,
            total_ms=self.total_ms + gap,
            total_sq_ms=self.total_sq_ms + gap * gap,
        )

    def variation(self) -> float | None:
        """The coefficient of variation of the intervals (standard deviation over mean; 0
        for perfectly even ones), or ``None`` without any interval."""
        if self.intervals == 0:
            return None
        if self.total_ms == 0:
            return 0.0
        spread = self.intervals * self.total_sq_ms - self.total_ms * self.total_ms
        return math.sqrt(max(0, spread)) / self.total_ms


@dataclass(frozen=True, slots=True)
class Stream:
    """Everything a game's events say, as of ``version`` (its last ``seq``)."""

    game_id: uuid.UUID
    version: int
    owner_id: int
    rules: engine.Ruleset
    seed: int | None
    public: bool
    challenge: str | None
    state: State
    #: Effects JSON of every event, index ``seq - 1`` (``undid`` names a ``seq``).
    effects: tuple[dict[str, Any], ...]
    #: ``seq`` of each engine action, index ``ply - 1``.
    action_seqs: tuple[int, ...]
    voided: bool
    #: Hints shown to the player in a race (``hinted`` events), and the version of the
    #: latest one (0: none).
    hints: int
    hinted_version: int
    #: The rhythm of the player's actions (for the review flags of ``games.suspicion``).
    pace: Pace
    created_at: dt.datetime
    updated_at: dt.datetime
    finished_at: dt.datetime | None
    #: The race or arena (its id) this game is deal number ``round`` of.
    contest: str | None = None
    round: int | None = None
    #: A rated game (docs/ratings.md), its deal's difficulty, and the ``seq`` of the event
    #: that scored it (0: not yet) with its ``score``: the first event that finished it or
    #: restarted it; 1 for a win without a hint, else 0.
    rated: bool = False
    difficulty: float | None = None
    #: The deal's first rating, when its ``created`` event gives it (a pool deal's predicted
    #: rating); else it comes from ``difficulty``.
    deal_rating: float | None = None
    scored: int = 0
    score: float | None = None

    @property
    def finished(self) -> bool:
        """Won, lost or resigned."""
        return self.state.status != engine.PLAYING

    def effects_of(self, seq: int) -> dict[str, Any]:
        """The effects JSON of event ``seq``."""
        return self.effects[seq - 1]


def decoded(event: Event) -> events.GameEvent:
    """The typed event of a stored row (:class:`~games.errors.MalformedEvent` if it is not
    one)."""
    return events.decode(
        event.type, event.data, version=event.schema_version, game_id=event.game_id, seq=event.seq
    )


def start(event: Event) -> Stream:
    """The stream of a ``created`` event (seq 1)."""
    created = decoded(event)
    if event.seq != 1 or not isinstance(created, events.Created):
        raise StreamCorrupted(f"game {event.game_id} does not start with created #1")
    if created.engine != engine.ENGINE_VERSION:
        raise StreamCorrupted(
            f"game {event.game_id} was written by engine {created.engine}, "
            f"this server replays engine {engine.ENGINE_VERSION}"
        )
    if event.actor_id is None:
        raise StreamCorrupted(f"game {event.game_id} #1 has no owner")
    try:
        rules = engine.RULESETS[created.rules]
        state = engine.new_game(rules, engine.parse_cards(created.deal))
    except (KeyError, ValueError, engine.CardError) as error:
        raise StreamCorrupted(f"game {event.game_id} #1 does not replay: {error}") from error
    return Stream(
        game_id=event.game_id,
        version=1,
        owner_id=event.actor_id,
        rules=rules,
        seed=created.seed,
        public=created.public,
        challenge=created.challenge,
        state=state,
        effects=(_NO_EFFECTS,),
        action_seqs=(),
        voided=False,
        hints=0,
        hinted_version=0,
        pace=Pace(),
        created_at=event.at,
        updated_at=event.at,
        finished_at=None,
        contest=created.contest,
        round=created.round,
        rated=created.rated,
        difficulty=created.difficulty,
        deal_rating=created.deal_rating,
    )


def advance(stream: Stream, event: Event) -> Stream:
    """``stream`` with one more stored event, which must be the next ``seq``."""
    return fold((event,), stream)


def fold(rows: Iterable[Event], stream: Stream | None = None) -> Stream:
    """Replay the stored events ``rows`` (in ``seq`` order) from the start, or on top of
    ``stream``.

    Effects accumulate in lists and become the stream's tuples once, at the end, so a
    replay costs time in proportion to the events, however many there are.
    """
    effects = list(stream.effects) if stream is not None else []
    action_seqs = list(stream.action_seqs) if stream is not None else []
    for event in rows:
        if stream is None:
            stream = start(event)
            effects.extend(stream.effects)
        else:
            stream = _next(stream, event, effects, action_seqs)
    if stream is None:
        raise StreamCorrupted("no events")
    return replace(stream, effects=tuple(effects), action_seqs=tuple(action_seqs))


def _next(
    stream: Stream, event: Event, effects: list[dict[str, Any]], action_seqs: list[int]
) -> Stream:
    """The stream after ``event``, appending its effects (and its ``seq``, for an engine
    action) to the lists that :func:`fold` turns into the stream's tuples."""
    if event.seq != stream.version + 1:
        raise StreamCorrupted(f"game {stream.game_id}: event #{event.seq} after #{stream.version}")
    fact = decoded(event)
    if isinstance(fact, events.ResultVoided | events.ResultRestored):
        effects.append(_NO_EFFECTS)
        voided = isinstance(fact, events.ResultVoided)
        return replace(stream, version=event.seq, voided=voided, updated_at=event.at)
    if isinstance(fact, events.Hinted):
        effects.append(_NO_EFFECTS)
        return replace(
            stream,
            version=event.seq,
            hints=stream.hints + 1,
            hinted_version=event.seq,
            updated_at=event.at,
        )
    if isinstance(fact, events.Created):
        raise StreamCorrupted(f"game {stream.game_id} #{event.seq}: a second created event")
    try:
        state, outcome = engine.apply(stream.state, fact.action())
    except engine.RuleViolation as error:
        raise StreamCorrupted(
            f"game {stream.game_id} #{event.seq} does not replay: {error}"
        ) from error
    effects.append(_effects_json(outcome, action_seqs))
    action_seqs.append(event.seq)
    restarted = isinstance(fact, events.Restarted)
    return _after_action(stream, event.seq, event.at, state, restarted=restarted)


def steps(stream: Stream, rows: Iterable[Event]) -> Iterator[tuple[Stream, Event, dict[str, Any]]]:
    """``(the stream right after it, event, its effects)`` for each of ``rows`` on top of
    ``stream``, in linear time: the streams yielded are for reading the game (state, status,
    versions), their ``effects`` stay those of ``stream``, so use the effects yielded."""
    effects = list(stream.effects)
    action_seqs = list(stream.action_seqs)
    for event in rows:
        stream = _next(stream, event, effects, action_seqs)
        yield stream, event, effects[-1]


def record(
    stream: Stream,
    seq: int,
    at: dt.datetime,
    state: State,
    effects: Effects,
    *,
    restarted: bool = False,
) -> Stream:
    """``stream`` after an engine action that became event ``seq`` at ``at`` (a restart:
    ``restarted``)."""
    return replace(
        _after_action(stream, seq, at, state, restarted=restarted),
        effects=(*stream.effects, _effects_json(effects, stream.action_seqs)),
        action_seqs=(*stream.action_seqs, seq),
    )


def _effects_json(effects: Effects, action_seqs: Sequence[int]) -> dict[str, Any]:
    """The API's effects; an undo names the ``seq`` of the action it undid."""
    effects_json = effects.to_json()
    if effects.undid is not None:
        effects_json["undid"] = action_seqs[effects.undid - 1]
    return effects_json


def _after_action(
    stream: Stream, seq: int, at: dt.datetime, state: State, *, restarted: bool
) -> Stream:
    finished = state.status != engine.PLAYING
    scored, score = stream.scored, stream.score
    if stream.rated and not scored and (finished or restarted):
        scored = seq
        score = 1.0 if state.status == engine.WON and stream.hints == 0 else 0.0
    return replace(
        stream,
        version=seq,
        state=state,
        pace=stream.pace.after(at),
        updated_at=at,
        finished_at=at if finished and stream.finished_at is None else stream.finished_at,
        scored=scored,
        score=score,
    )


# --- The process-wide cache ------------------------------------------------------------------


class _Cache:
    """A small LRU of the latest stream of recently used games."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: OrderedDict[uuid.UUID, Stream] = OrderedDict()

    def get(self, game_id: uuid.UUID) -> Stream | None:
        """The game's cached stream, if any (its callers count the lookup: each counts one
        hit, miss or stale answer per lookup, by what it needed)."""
        with self._lock:
            stream = self._streams.get(game_id)
            if stream is not None:
                self._streams.move_to_end(game_id)
        return stream

    def put(self, stream: Stream) -> None:
        with self._lock:
            known = self._streams.get(stream.game_id)
            if known is not None and known.version > stream.version:
                return  # a newer committed stream is already here
            self._streams[stream.game_id] = stream
            self._streams.move_to_end(stream.game_id)
            while len(self._streams) > settings.STREAM_CACHE_SIZE:
                self._streams.popitem(last=False)
            metrics.stream_cache_size.set(len(self._streams))

    def clear(self) -> None:
        with self._lock:
            self._streams.clear()
            metrics.stream_cache_size.set(0)


cache = _Cache()


def remember(stream: Stream) -> None:
    """Cache a stream whose events are committed."""
    cache.put(stream)


def cached(game_id: uuid.UUID) -> Stream | None:
    """The latest stream of the game this process knows, if any: possibly not the latest
    stored (another process may have appended since)."""
    stream = cache.get(game_id)
    (metrics.stream_cache_miss if stream is None else metrics.stream_cache_hit).inc()
    return stream


def load(game_id: uuid.UUID, version: int | None = None) -> Stream:
    """The game's stream at its latest ``version`` (which the caller read from its row).

    Replays only what the cache lacks; ``version=None`` means "whatever is stored", and
    :class:`~games.errors.GameNotFound` when nothing is.
    """
    cached = cache.get(game_id)
    if cached is not None and cached.version == version:
        metrics.stream_cache_hit.inc()
        return cached
    if cached is not None and version is not None and cached.version > version:
        cached = None  # cannot happen with committed-only caching; be safe anyway
    (metrics.stream_cache_miss if cached is None else metrics.stream_cache_stale).inc()
    after = cached.version if cached is not None else 0
    events = Event.objects.filter(game_id=game_id, seq__gt=after).order_by("seq")
    if version is not None:
        events = events.filter(seq__lte=version)
    rows: Iterable[Event] = events.iterator()
    if cached is None:
        rows = list(rows)
        if not rows:
            raise GameNotFound()
    stream = fold(rows, cached)
    if version is not None and stream.version != version:
        raise StreamCorrupted(f"game {game_id}: events end at #{stream.version}, not #{version}")
    remember(stream)
    return stream


def at_version(game_id: uuid.UUID, version: int) -> Stream:
    """The stream as it was at ``version`` (a replay from the start, for history views)."""
    events = Event.objects.filter(game_id=game_id, seq__lte=version).order_by("seq")
    return fold(events.iterator())
