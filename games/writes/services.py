"""Writes go through these services: keyword-only arguments, one statement or transaction
each.

A command takes the game's stream this process holds (the cache plus the events it lacks),
lets the engine decide, and appends one event through the projections
(``games.projections.append``): one statement, guarded by the version the command was
decided on, writes the event with every read model, and the projections publish after
commit. A refusal is answered only once the state it was decided on is known to be the
latest (docs/architecture.md#the-command-path). ``lock_game`` and ``append_event`` serve
writers that must do more in one transaction: the moderation services
(``games.writes.moderation``) append ``result_voided`` / ``result_restored`` under the
game's row lock.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import BooleanField, Exists, FloatField, OuterRef
from django.db.models.expressions import RawSQL

from games import engine, pools, projections
from games.dailies import challenges, contests
from games.dailies.models import DailyChallenge
from games.engine import hint as hints
from games.errors import (
    BadDeal,
    Banned,
    ChallengeClosed,
    ContestClosed,
    GameNotFound,
    IdempotencyKeyReused,
    NotOwner,
    RatedWithDeal,
    RatedWithoutPool,
    RuleRefused,
    StaleCard,
    VersionConflict,
    WinnableWithDeal,
)
from games.metrics import Timings
from games.ratings import parameters, predict
from games.ratings.models import PlayerRating
from games.reads import selectors
from games.store import append as store
from games.store import events, streams
from games.store.models import Event, Game, PublicLogEntry
from games.store.summary import GameSummary
from games.writes import accounts, evidence


@dataclass(frozen=True, slots=True)
class Written:
    """A game as a write left it: its stream, and the summary its row was written from (the
    one value the REST body and the live frame are rendered from too)."""

    stream: streams.Stream
    summary: GameSummary

    @property
    def game_id(self) -> uuid.UUID:
        return self.stream.game_id


@dataclass(frozen=True, slots=True)
class FromPool(Written):
    """A game dealt from a winnable pool, and the certified deal it was dealt (its seed and
    line are the server's secret: only the difficulty may be shown while it is played)."""

    deal: pools.CertifiedDeal


@dataclass(frozen=True, slots=True)
class CommandResult(Written):
    """The appended (or, for a retried key, previously appended) event, what it did (its
    effects, as its replay derives them) and the game after it."""

    event: Event
    effects: dict[str, Any]
    #: True when an idempotent retry was answered without appending anything.
    repeated: bool = False


def game_create(
    *,
    owner: User,
    rules: str = engine.DEFAULT_RULES.name,
    seed: int | None = None,
    deal: Sequence[str] | None = None,
    public: bool = True,
    winnable: bool = False,
    rated: bool = False,
) -> Written:
    """Start a game: its stream begins with ``created`` (rules, seed, deal, engine version).

    Neither ``seed`` nor ``deal``: a random seed. ``deal`` must be a complete deck for the
    ruleset (:class:`BadDeal` otherwise). ``winnable``: a deal of the ruleset's winnable
    pool the owner was never dealt (:class:`FromPool`; :class:`PoolEmpty` when none is
    left, :class:`WinnableWithDeal` with a seed or a deal). ``rated``: a rated game of
    such a deal, the one whose rating is nearest the owner's (:class:`RatedWithDeal` with
    a seed or a deal, :class:`RatedWithoutPool` for a ruleset without a pool;
    docs/ratings.md). A banned player cannot start one (:class:`Banned`), nor a guest a
    rated one (:class:`AccountRequired`).
    """
    check_not_banned(owner)
    ruleset = engine.RULESETS[rules]
    if rated:
        accounts.check_not_guest(owner)
        if seed is not None or deal is not None:
            raise RatedWithDeal()
        if ruleset.name not in settings.POOL_RULES:
            raise RatedWithoutPool()
        _abandon_rated(owner, ruleset.name)
        return _from_pool(owner=owner, rules=ruleset, public=public, rated=True)
    if winnable:
        if seed is not None or deal is not None:
            raise WinnableWithDeal()
        return _from_pool(owner=owner, rules=ruleset, public=public)
    if deal is not None:
        try:
            cards = engine.check_deal(ruleset, engine.parse_cards(deal))
        except (engine.DealError, engine.CardError) as error:
            raise BadDeal(fields={"deal": [str(error)]}) from error
        seed = None
    else:
        if seed is None:
            seed = secrets.randbelow(engine.MAX_SEED + 1)
        cards = engine.seeded_deal(ruleset, seed)
    return _start_game(owner=owner, rules=ruleset, seed=seed, cards=cards, public=public)


def _from_pool(
    *, owner: User, rules: engine.Ruleset, public: bool, rated: bool = False
) -> FromPool:
    """A game of a deal drawn from the pool of ``rules``, drawn and started in one
    transaction: a game that fails to start gives the deal back. A ``rated`` one is the
    deal whose rating is nearest the owner's, as lichess picks puzzles near yours. The
    game's id is chosen first, so that the draw records it in its one statement."""
    game_id = uuid.uuid4()
    with transaction.atomic():
        order = _nearest_rating(owner, rules.name) if rated else None
        certified = pools.draw(rules.name, owner, order_by=order, game_id=game_id, rated=rated)
        written = _start_game(
            owner=owner,
            rules=rules,
            seed=certified.seed,
            cards=engine.seeded_deal(rules, certified.seed),
            public=public,
            difficulty=certified.difficulty if rated else None,
            deal_rating=predict.predicted(certified) if rated else None,
            game_id=game_id,
        )
    return FromPool(written.stream, written.summary, certified)


def _abandon_rated(owner: User, rules: str) -> None:
    """Resign the owner's unfinished rated pool games of ``rules``: starting another is
    abandoning them, which scores 0 (docs/ratings.md). A game they restarted was scored
    already and is only ended."""
    unfinished = Game.objects.filter(
        owner_id=owner.pk, rules=rules, rated=True, challenge__isnull=True, status="playing"
    ).values_list("id", flat=True)
    for game_id in unfinished:
        game_command(game_id=game_id, actor=owner, command={"type": "resign"})


def abandon_closed_days() -> list[uuid.UUID]:
    """End, for their players, the rated daily games still unfinished after their day
    closed: leaving one is abandoning it, which scores 0 (docs/ratings.md). Each gets a
    ``resigned`` event marked ``abandoned``, by its owner as the server records it, with its
    projections, under the game's lock. Run by the scheduled job before the closed days'
    games enter the public log; a game already entered is left as it is (its entry is the
    game as of then). Returns the games ended.

    Only the closed days that the public log has not marked done are looked at: a few days
    at most, so that the job's minute-by-minute run reads a few games, not every day's."""
    days = DailyChallenge.objects.filter(date__lt=challenges.today(), published_at__isnull=True)
    closed = Game.objects.filter(
        rated=True, challenge__in=days.values("date"), status=Game.Status.PLAYING
    ).exclude(Exists(PublicLogEntry.objects.filter(game_id=OuterRef("id"))))
    ended = []
    for game_id in closed.order_by("challenge", "created_at", "id").values_list("id", flat=True):
        with transaction.atomic():
            head = lock_game(game_id)
            stream = streams.load(game_id, head.version)
            if stream.state.status != engine.PLAYING:
                continue
            owner = User.objects.get(pk=head.owner_id)
            action = engine.Resign()
            _append(
                stream,
                decided=(action, engine.apply(stream.state, action)),
                fact=events.Resigned(abandoned=True),
                actor=owner,
                owner=owner.get_username(),
                check_ban=False,
            )
        ended.append(game_id)
    return ended


def _nearest_rating(owner: User, rules: str) -> list[Any]:
    """The pool's order for a rated draw (among deals nobody has seen, so none has a rating
    from play yet): the deal whose predicted rating (``games.ratings.predict``; until it is
    predicted, the one from its difficulty) is nearest the owner's rating, then the
    oldest."""
    mine = (
        PlayerRating.objects.filter(player_id=owner.pk, rules=rules)
        .values_list("rating", flat=True)
        .first()
    )
    distance = RawSQL(
        "abs(COALESCE(games_certified_deal.rating,"
        " %s + %s * games_certified_deal.difficulty) - %s)",
        (
            parameters.DEAL_LOW,
            parameters.DEAL_HIGH - parameters.DEAL_LOW,
            parameters.START_RATING if mine is None else mine,
        ),
        output_field=FloatField(),
    )
    return [distance.asc(), "draws", "id"]


def challenge_join(*, date: dt.date, player: User) -> tuple[Written, bool]:
    """The player's game of the daily challenge of ``date``, and whether it was made now.

    One game per player per day: joining again returns the same game. Only while the day
    is open (:class:`ChallengeClosed`); a day that has not begun does not exist. A banned
    player cannot join (:class:`Banned`), nor a guest (:class:`AccountRequired`).
    """
    check_not_banned(player)
    accounts.check_not_guest(player)
    challenge = challenges.challenge_get(date)
    if not challenges.is_open(challenge.date):
        raise ChallengeClosed()
    existing = _joined(challenge.date, player)
    if existing is not None:
        return existing, False
    rules = engine.RULESETS[challenge.rules]
    try:
        with transaction.atomic():
            written = _start_game(
                owner=player,
                rules=rules,
                seed=challenge.seed,
                cards=engine.seeded_deal(rules, challenge.seed),
                public=True,
                challenge=challenge.date.isoformat(),
                difficulty=parameters.daily_difficulty(challenge.nodes),
            )
    except IntegrityError:  # the same player joined at the same moment elsewhere
        joined = _joined(challenge.date, player)
        assert joined is not None
        return joined, False
    return written, True


def _joined(date: dt.date, player: User) -> Written | None:
    row = Game.objects.select_related("owner").filter(challenge=date, owner_id=player.pk).first()
    if row is None:
        return None
    return Written(streams.load(row.id, row.version), GameSummary.from_row(row))


def _start_game(
    *,
    owner: User,
    rules: engine.Ruleset,
    seed: int | None,
    cards: Sequence[engine.Card],
    public: bool,
    challenge: str | None = None,
    contest: str | None = None,
    round_: int | None = None,
    difficulty: float | None = None,
    deal_rating: float | None = None,
    game_id: uuid.UUID | None = None,
) -> Written:
    """Start a game: its ``created`` event and every read model of it, in one statement. A
    ``difficulty`` makes it a rated game of a deal that difficulty (docs/ratings.md), and
    ``deal_rating`` its deal's first rating (else the difficulty's);
    ``game_id`` is its id, when the caller chose it (else a new one)."""
    created = events.Created(
        rules=rules.name,
        seed=seed,
        deal=tuple(engine.card_code(card) for card in cards),
        public=public,
        challenge=challenge,
        engine=engine.ENGINE_VERSION,
        contest=contest,
        round=round_,
        rated=difficulty is not None,
        difficulty=difficulty,
        deal_rating=deal_rating,
    )
    change = projections.create(created, owner=owner, game_id=game_id)
    return Written(change.after, change.summary)


def game_command(
    *,
    game_id: uuid.UUID,
    actor: User,
    command: dict[str, Any],
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> CommandResult:
    """Apply one player command (a validated API command dict) to the actor's game.

    Optimistically first: the engine decides on the state this process holds, and one
    guarded statement appends the event only if the game is still at that version
    (``games.store.append``); a refusal is answered only once that state is known to be
    the latest. When the game moved on meanwhile, the command is decided once more on the
    fresh state; if it moved on again (writers racing on one game), the command queues for
    the game's row lock, where it cannot lose (docs/architecture.md#the-command-path).

    Refusals, in this order: :class:`NotOwner` for anyone but the owner, :class:`Banned`
    for a banned owner, the first answer again for a retried idempotency key (or
    :class:`IdempotencyKeyReused`), :class:`ChallengeClosed` for a game of a daily
    challenge whose day is over, :class:`VersionConflict`, :class:`StaleCard`, and the
    rules' :class:`RuleRefused` (docs/api.md#command-checks).
    """
    timings = Timings()
    try:
        return _command(timings, game_id, actor, command, expected_version, idempotency_key)
    finally:
        timings.observe()


def _command(
    timings: Timings,
    game_id: uuid.UUID,
    actor: User,
    command: dict[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
) -> CommandResult:
    clock_ = time.perf_counter
    fingerprint = _fingerprint(command, expected_version)
    owner = actor.get_username()
    key = idempotency_key
    request_hash = fingerprint if key is not None else None
    stream = streams.cached(game_id)
    for _attempt in range(_OPTIMISTIC_ATTEMPTS):
        if stream is None:
            started = clock_()
            stream = streams.load(game_id)
            timings.replay += clock_() - started
        if stream.owner_id != actor.pk:
            raise NotOwner()
        started = clock_()
        try:
            action, applied = _decide(stream, command, expected_version)
        except (ChallengeClosed, ContestClosed, VersionConflict, StaleCard, RuleRefused) as refusal:
            timings.engine += clock_() - started
            seen = _seen(game_id, key, fingerprint)
            if isinstance(seen, CommandResult):
                return seen
            if seen.version == stream.version:
                if isinstance(refusal, VersionConflict | StaleCard):
                    raise type(refusal)(seen.version) from None
                raise
            started = clock_()
            stream = streams.load(game_id, seen.version)
            timings.replay += clock_() - started
            continue
        timings.engine += clock_() - started
        result = _append(
            stream,
            decided=(action, applied),
            actor=actor,
            owner=owner,
            idempotency_key=key,
            request_hash=request_hash,
            check_ban=True,
            timings=timings,
        )
        if result is not None:
            return result
        seen = _seen(game_id, key, fingerprint)
        if isinstance(seen, CommandResult):
            return seen
        started = clock_()
        stream = streams.load(game_id, seen.version)
        timings.replay += clock_() - started
    with transaction.atomic():
        started = clock_()
        head = lock_game(game_id)
        timings.lock += clock_() - started
        if head.owner_id != actor.pk:
            raise NotOwner()
        if head.owner_banned:
            raise Banned()
        if key is not None:
            first = Event.objects.filter(game_id=game_id, idempotency_key=key).first()
            if first is not None:
                if first.request_hash != fingerprint:
                    raise IdempotencyKeyReused()
                return _answered_again(game_id, head.version, first.seq)
        started = clock_()
        stream = streams.load(game_id, head.version)
        timings.replay += clock_() - started
        started = clock_()
        action, applied = _decide(stream, command, expected_version)
        timings.engine += clock_() - started
        locked = _append(
            stream,
            decided=(action, applied),
            actor=actor,
            owner=owner,
            idempotency_key=key,
            request_hash=request_hash,
            check_ban=False,
            timings=timings,
        )
    assert locked is not None, "the guard holds under the row lock"
    return locked


#: Times a command is decided on the state this process knows before it queues for the
#: game's row lock: the second try follows a fresh read of what another process appended.
_OPTIMISTIC_ATTEMPTS = 2


def _decide(
    stream: streams.Stream, command: dict[str, Any], expected_version: int | None
) -> tuple[engine.Action, tuple[engine.State, engine.Effects]]:
    """The action of ``command`` and the engine's ``(state, effects)`` for it on ``stream``,
    or the refusal that ``stream`` calls for."""
    if stream.challenge is not None and not challenges.is_open(stream.challenge):
        raise ChallengeClosed()
    if stream.contest is not None and not contests.accepts_commands(stream.contest):
        raise ContestClosed()
    if expected_version is not None and expected_version != stream.version:
        raise VersionConflict(stream.version)
    action = engine.action_from_command(command)
    _check_card(stream, action, command.get("card"))
    try:
        return action, engine.apply(stream.state, action)
    except engine.RuleViolation as refusal:
        raise RuleRefused(refusal.code) from None


def _seen(game_id: uuid.UUID, key: str | None, fingerprint: str) -> store.Refusal | CommandResult:
    """What the store says of a game whose command this process refused or could not
    append: :class:`GameNotFound`, :class:`Banned`, the first answer to a retried key (or
    :class:`IdempotencyKeyReused`), or its current version."""
    seen = store.why_not(game_id, key)
    if seen is None:
        raise GameNotFound()
    if seen.banned:
        raise Banned()
    if seen.key_seq is not None:
        if seen.key_hash != fingerprint:
            raise IdempotencyKeyReused()
        return _answered_again(game_id, seen.version, seen.key_seq)
    return seen


def _answered_again(game_id: uuid.UUID, version: int, seq: int) -> CommandResult:
    """The first answer to a retried idempotency key: its event and the game right after."""
    first = Event.objects.select_related("actor").get(game_id=game_id, seq=seq)
    current = streams.load(game_id, version)
    answered = current if seq == version else streams.at_version(game_id, seq)
    owner = first.actor.get_username() if first.actor is not None else ""
    summary = GameSummary.of(answered, owner=owner)
    return CommandResult(answered, summary, first, answered.effects_of(seq), repeated=True)


# --- Appending to a stream: the steps every writer of an existing game shares ------------------


#: Whether the locked game's owner is banned: a subquery of the locking query on
#: ``games_player``'s primary key (written as SQL: the ORM's ``Exists()`` costs several times
#: more to compile than PostgreSQL takes to answer it).
_OWNER_BANNED = RawSQL(
    "EXISTS (SELECT 1 FROM games_player p WHERE p.user_id = games_game.owner_id AND p.banned)",
    (),
    output_field=BooleanField(),
)


class Head(NamedTuple):
    """What a writer reads of a locked game: its stream's head."""

    id: uuid.UUID
    owner_id: int
    version: int
    challenge: dt.date | None
    owner_banned: bool


def lock_game(game_id: uuid.UUID) -> Head:
    """Lock the game's stream (``SELECT … FOR UPDATE`` of its ``Game`` row) for the rest of
    the caller's transaction and read its head: :class:`GameNotFound` if there is no such
    game. Commands need no lock (they append with a guard); writers that must do more in
    the same transaction, such as moderation's log, take it. The ``Game`` row is both the
    stream's head and its lock (docs/architecture.md#the-game-row).
    """
    row = (
        Game.objects.select_for_update()
        .filter(id=game_id)
        .annotate(owner_banned=_OWNER_BANNED)
        .values_list("id", "owner_id", "version", "challenge", "owner_banned")
        .first()
    )
    if row is None:
        raise GameNotFound()
    return Head(*row)


def append_event(
    stream: streams.Stream,
    fact: events.ModerationEvent,
    *,
    actor: User,
    owner: str,
) -> CommandResult:
    """Append a moderation event to ``stream``, whose game the caller locked
    (:func:`lock_game`) and read at its latest version, in the caller's transaction."""
    result = _append(stream, fact=fact, actor=actor, owner=owner, check_ban=False)
    if result is None:  # only a writer that bypassed the lock can get here
        raise VersionConflict(stream.version)
    return result


def _append(
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
) -> CommandResult | None:
    """Append the action ``decided`` or the event ``fact`` after ``stream``'s version with
    its projections, and publish it after commit (``games.projections.append``); ``None``
    if the guard refused."""
    change = projections.append(
        stream,
        actor=actor,
        owner=owner,
        decided=decided,
        fact=fact,
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        check_ban=check_ban,
        timings=timings,
    )
    if change is None:
        return None
    after = change.after
    ended = stream.state.status == engine.PLAYING != after.state.status
    if ended and (after.rated or after.contest is not None):
        evidence.evidence_defer(after.game_id)  # in this transaction: with the game's end
    return CommandResult(change.after, change.summary, change.event, change.effects)


@dataclass(frozen=True, slots=True)
class HintResult:
    """A hint and the game after it: a race game records the hint as an event."""

    game: GameSummary
    hint: hints.Hint
    recorded: bool


def game_hint(*, game: GameSummary, viewer: User | None, caller: str | None = None) -> HintResult:
    """The hint for ``game`` (read through ``visibility`` by the caller), computed from the
    player's view only (``selectors.game_hint``), within the bounds of ``caller``
    (``games.reads.solver_work``; by default the viewer's account).

    In a race (a daily challenge whose day is open, a running race or arena) a hint the owner
    asks for is a fact of the game: a ``hinted`` event is appended (a daily's standings and a
    race's or arena's results count it, and rank unaided wins first), once per position
    (asking again before anything else happens records nothing more). Anyone else's hint,
    staff's included, records nothing."""
    caller = caller or (f"account:{viewer.pk}" if viewer is not None else "anonymous")
    if viewer is None or not selectors.hint_counts(game, viewer.pk):
        return HintResult(game, selectors.game_hint(game, caller=caller), False)
    for _attempt in range(_OPTIMISTIC_ATTEMPTS + 1):
        stream = streams.load(game.id, game.version)
        found = selectors.game_hint(game, caller=caller)
        if stream.hinted_version == stream.version or stream.finished:
            return HintResult(game, found, False)
        move = None if found.action is None else engine.action_to_command(found.action)
        fact = events.Hinted(move=move, source=found.source)
        result = _append(stream, fact=fact, actor=viewer, owner=game.owner, check_ban=True)
        if result is not None:
            selectors.remember_hint(result.summary, found)
            return HintResult(result.summary, found, True)
        seen = store.why_not(game.id, None)
        if seen is None:
            raise GameNotFound()
        if seen.banned:
            raise Banned()
        game = GameSummary.of(streams.load(game.id, seen.version), owner=game.owner)
    raise VersionConflict(game.version)  # writers kept racing on this game


def check_not_banned(player: User) -> None:
    """:class:`Banned` if ``player`` is banned (one primary-key lookup, in SQL: it comes
    before every game a player starts, and the ORM built it in about 0.3 ms)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM games_player WHERE user_id = %s AND banned", [player.pk])
        if cursor.fetchone() is not None:
            raise Banned()


def _fingerprint(command: dict[str, Any], expected_version: int | None) -> str:
    body = json.dumps(
        {"command": command, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode()).hexdigest()


def _check_card(stream: streams.Stream, action: engine.Action, card: str | None) -> None:
    """A move that names its card must name the face-up card it takes (409 otherwise).

    Positions that hold no face-up card are left to the engine's own codes, so the check
    never tells what a face-down card is.
    """
    if card is None or stream.finished:
        return
    state = stream.state
    if isinstance(action, engine.Move):
        actual = state.card_at(action.source, action.index)
    elif isinstance(action, engine.CellMove) and 1 <= action.cell <= len(state.cells):
        actual = state.cells[action.cell - 1]
    else:
        return
    if actual is not None and engine.card_code(actual) != engine.card_code(engine.parse_card(card)):
        raise StaleCard(stream.version)
