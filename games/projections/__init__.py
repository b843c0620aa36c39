"""The read models that follow the event log, as one list, and the two paths that run it.

:data:`PROJECTIONS` is the only place that knows the read models. A writer starts a game
with :func:`create` and appends to it with :func:`append`: the event, the stream after it
and its summary make a :class:`Change`; every projection's fragments join the one guarded
statement (``games.store.append``); then each projection publishes after commit and
settles what the statement could not do. ``rebuild_projections`` runs the same list over
streams folded from events alone (:func:`rebuild`). Adding a read model is one module with
a :class:`~games.projections.base.Projection` and one line here
(docs/architecture.md#projections).

``Player.banned`` follows the moderation log, not the event log: :mod:`.bans`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection, transaction

from games import clock, engine
from games.metrics import Timings
from games.projections.base import Change, Projection
from games.projections.contest_results import ContestResults
from games.projections.game_row import GameRow
from games.projections.leaderboards import Leaderboards
from games.projections.public_log import PublicLog
from games.projections.ratings import Ratings
from games.projections.standings import Standings
from games.store import append as store
from games.store import events, streams
from games.store.models import Event
from games.store.summary import GameSummary

#: Every read model that follows the event log, in the order their parts are written. The
#: game's row comes first: the others read its id from it.
PROJECTIONS: tuple[Projection, ...] = (
    GameRow(),
    Standings(),
    ContestResults(),
    Leaderboards(),
    Ratings(),
    PublicLog(),
)

__all__ = ["PROJECTIONS", "Change", "Projection", "append", "create", "rebuild"]


def create(created: events.Created, *, owner: User, game_id: uuid.UUID | None = None) -> Change:
    """Start a game: its ``created`` event (``seq`` 1, a new game id unless ``game_id``
    names one) and every read model of it, in one statement."""
    event = _event(game_id or uuid.uuid4(), 1, created, actor=owner)
    after = streams.start(event)
    summary = GameSummary.of(after, owner=owner.get_username())
    change = Change(None, after, summary, event, after.effects_of(1))
    stored = _write(change, check_ban=False, timings=None)
    assert stored is not None, "a new game's row has no guard to refuse it"
    return stored


def append(
    stream: streams.Stream,
    *,
    actor: User,
    owner: str,
    decided: tuple[engine.Action, tuple[engine.State, engine.Effects]] | None = None,
    fact: events.ModerationEvent | events.NoteEvent | events.Resigned | None = None,
    idempotency_key: str | None = None,
    request_hash: str | None = None,
    check_ban: bool,
    timings: Timings | None = None,
) -> Change | None:
    """Append to ``stream`` (whose owner's username is ``owner``) either the engine's action
    ``decided`` (the action and the engine's ``(state, effects)`` for it) or an event that
    is no action (``fact``: a hint, a moderation act, which the fold applies itself; with
    ``decided``, ``fact`` is the event that records the action, when it is not the plain
    one: an abandonment's ``resigned``), with every projection's part, in one statement
    guarded by ``stream``'s version; then publish after commit and settle. ``None`` when the
    guard refused: nothing was written (``games.store.append.append``)."""
    started = time.perf_counter()
    if decided is not None:
        action, applied = decided
        recorded: events.PlayerEvent = events.of_action(action)
        if fact is not None:
            assert isinstance(fact, events.Resigned) and isinstance(action, engine.Resign)
            recorded = fact
        event = _event(stream.game_id, stream.version + 1, recorded, actor=actor)
        event.idempotency_key, event.request_hash = idempotency_key, request_hash
        restarted = isinstance(action, engine.Restart)
        after = streams.record(stream, event.seq, event.at, *applied, restarted=restarted)
    else:
        assert fact is not None, "an action decided, or an event"
        event = _event(stream.game_id, stream.version + 1, fact, actor=actor)
        event.idempotency_key, event.request_hash = idempotency_key, request_hash
        after = streams.advance(stream, event)
    summary = GameSummary.of(after, owner=owner)
    change = Change(stream, after, summary, event, after.effects_of(event.seq))
    if timings is not None:
        timings.projection += time.perf_counter() - started
    return _write(change, check_ban=check_ban, timings=timings)


def _event(game_id: uuid.UUID, seq: int, fact: events.GameEvent, *, actor: User) -> Event:
    return Event(
        game_id=game_id,
        seq=seq,
        type=fact.TYPE,
        data=fact.to_json(),
        schema_version=fact.VERSION,
        actor=actor,
        at=clock.now(),
    )


def _write(change: Change, *, check_ban: bool, timings: Timings | None) -> Change | None:
    """The one statement of ``change`` with every projection's fragments, then publishing
    and settling: ``change`` with what the statement returned, or ``None`` when the guard
    refused."""
    started = time.perf_counter()
    parts = [(projection, projection.fragments(change)) for projection in PROJECTIONS]
    fragments = [fragment for _, written in parts for fragment in written]
    projected = time.perf_counter()
    stored = store.append(change.event, fragments, check_ban=check_ban)
    if timings is not None:
        timings.projection += projected - started
        timings.append += time.perf_counter() - projected
    if stored is None:
        return None
    change.event.position = stored.position
    returned = dict(stored.returned)
    for projection in PROJECTIONS:
        change = projection.amend(change, returned)
    for projection in PROJECTIONS:
        projection.publish(change)
    for projection, written in parts:
        flagged = any(fragment.name in stored.flagged for fragment in written)
        projection.settle(change, flagged)
    return change


def rebuild() -> int:
    """Recompute every read model of :data:`PROJECTIONS` from events alone; returns how
    many games there are. Holds a lock that blocks commands (they write their game's row)
    for the duration."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE games_game IN ACCESS EXCLUSIVE MODE")
        for projection in reversed(PROJECTIONS):
            projection.clear()
        names = dict(get_user_model().objects.values_list("pk", "username"))
        count = 0
        for stream in _streams():
            summary = GameSummary.of(stream, owner=names[stream.owner_id])
            for projection in PROJECTIONS:
                projection.replay(stream, summary)
            count += 1
        for projection in PROJECTIONS:
            projection.replayed()
    return count


def _streams() -> Iterator[streams.Stream]:
    """Every game's stream at its last event, folded from the events table alone."""
    current: streams.Stream | None = None
    for event in Event.objects.order_by("game_id", "seq").iterator(chunk_size=2000):
        if current is not None and event.game_id != current.game_id:
            yield current
            current = None
        current = streams.start(event) if current is None else streams.advance(current, event)
    if current is not None:
        yield current
