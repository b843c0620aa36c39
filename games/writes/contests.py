"""Races and arenas: creating, joining, and dealing each player their own games of the
contest's secret deals (docs/api.md#races, docs/api.md#arenas).

A game of a contest is an ordinary event-sourced game whose ``created`` event names the
contest and the round; its seed is the contest's secret seed of that round
(``games.dailies.secrets``). Nobody gets a deal before the contest starts, so a race's
racers all start at the same server instant: the start, when their clocks begin.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from games import clock, engine
from games.dailies import contests, secrets
from games.dailies.models import Contest, Entrant
from games.errors import ContestClosed, ContestNotStarted, NotEntrant
from games.live import publish
from games.store import streams
from games.store.models import Game
from games.store.summary import GameSummary
from games.writes import accounts
from games.writes.services import Written, _start_game, check_not_banned


def race_create(
    *,
    creator: User,
    rules: str,
    deals: int,
    time_limit: dt.timedelta,
    countdown: dt.timedelta | None = None,
    starts_at: dt.datetime | None = None,
    public: bool = True,
    title: str = "",
) -> Contest:
    """A race starting ``countdown`` from now or at ``starts_at`` (one of them), lasting
    ``time_limit``; the creator is its first racer. A banned player cannot make one, nor a
    guest."""
    check_not_banned(creator)
    accounts.check_not_guest(creator)
    start = starts_at if starts_at is not None else clock.now() + (countdown or dt.timedelta())
    return contests.race_create(
        creator=creator,
        rules=rules,
        deals=deals,
        starts_at=start,
        time_limit=time_limit,
        public=public,
        title=title,
    )


def race_join(*, race: Contest, player: User) -> tuple[Entrant, bool]:
    """Join ``race`` before its start (``race_started`` after); the entry and whether it is
    new. Watchers hear of a new racer. A guest cannot join."""
    check_not_banned(player)
    accounts.check_not_guest(player)
    entry, made = contests.race_join(race, player)
    if made:
        publish.contest_after_commit(race.id)
    return entry, made


def race_games(*, race: Contest, player: User) -> tuple[list[Written], bool]:
    """The racer's games of every deal of ``race``, dealt on the first ask after the start,
    and whether they were dealt now. Before the start :class:`ContestNotStarted`; a player
    who did not join before the start :class:`NotEntrant`; after the end, the games the
    racer has (none are dealt any more)."""
    race = contests.race_start(race)
    phase = contests.phase(race)
    if phase == contests.SCHEDULED:
        raise ContestNotStarted()
    if contests.entrant(race, player) is None:
        raise NotEntrant()
    existing = _games_of(race, player)
    if existing or phase == contests.FINISHED:
        if not existing and phase == contests.FINISHED:
            raise ContestClosed()
        return existing, False
    check_not_banned(player)
    rules = engine.RULESETS[race.rules]
    assert race.deals is not None
    try:
        with transaction.atomic():
            written = [_deal(race, player, rules, n) for n in range(1, race.deals + 1)]
    except IntegrityError:  # the racer asked twice at once: the other ask dealt them
        return _games_of(race, player), False
    return written, True


def arena_play(*, arena: Contest, player: User) -> tuple[Written, bool]:
    """The player's current deal of ``arena``: their latest game while it is playing, else
    the next deal of the sequence, dealt now (and whether it was). Deals are played in
    order, one at a time, during the window only."""
    phase = contests.phase(arena)
    if phase == contests.SCHEDULED:
        raise ContestNotStarted()
    if phase == contests.FINISHED:
        raise ContestClosed()
    check_not_banned(player)
    accounts.check_not_guest(player)
    games = _games_of(arena, player)
    if games and not games[-1].summary.finished:
        return games[-1], False
    rules = engine.RULESETS[arena.rules]
    try:
        with transaction.atomic():
            Entrant.objects.get_or_create(
                contest=arena, player=player, defaults={"joined_at": clock.now()}
            )
            written = _deal(arena, player, rules, len(games) + 1)
    except IntegrityError:  # asked twice at once: the other ask dealt it
        return _games_of(arena, player)[-1], False
    return written, True


def _deal(contest: Contest, player: User, rules: engine.Ruleset, round_: int) -> Written:
    seed = secrets.contest_seed(contest.id, round_)
    return _start_game(
        owner=player,
        rules=rules,
        seed=seed,
        cards=engine.seeded_deal(rules, seed),
        public=True,
        contest=str(contest.id),
        round_=round_,
    )


def _games_of(contest: Contest, player: Any) -> list[Written]:
    rows = Game.objects.select_related("owner").filter(contest=contest.id, owner_id=player.pk)
    return [
        Written(streams.load(row.id, row.version), GameSummary.from_row(row))
        for row in rows.order_by("round")
    ]


def arena_create(
    *,
    creator: User,
    rules: str,
    duration: dt.timedelta,
    countdown: dt.timedelta | None = None,
    starts_at: dt.datetime | None = None,
    public: bool = True,
    title: str = "",
) -> Contest:
    """A player's arena, starting ``countdown`` from now or at ``starts_at``, lasting
    ``duration``, with a short code to share (a private one is listed only for its creator
    and those who played in it). A banned player cannot make one, nor a guest."""
    check_not_banned(creator)
    accounts.check_not_guest(creator)
    start = starts_at if starts_at is not None else clock.now() + (countdown or dt.timedelta())
    return contests.arena_create(
        rules=rules,
        starts_at=start,
        ends_at=start + duration,
        title=title,
        creator=creator,
        public=public,
        coded=True,
    )


def arena_schedule(
    *,
    rules: str,
    starts_at: dt.datetime,
    ends_at: dt.datetime,
    title: str = "",
    creator: User | None = None,
) -> Contest:
    """A staff's arena over ``starts_at``..``ends_at`` (the admin's form checks the window)."""
    if ends_at <= starts_at:
        raise ValueError("an arena ends after it starts")
    return contests.arena_create(
        rules=rules, starts_at=starts_at, ends_at=ends_at, title=title, creator=creator
    )


def rotation_arenas() -> list[Contest]:
    """The arenas of the configured rotation (``ARENA_ROTATION``) for the current period,
    made if missing."""
    return contests.rotation_arenas(settings.ARENA_ROTATION)
