"""Winnable pools: for each ruleset, deals the solver proved winnable, ahead of demand.

:func:`fill` certifies the next candidates of a ruleset's secret sequence
(``games.pools.certify``) until the pool holds ``target`` fresh deals (dealt to nobody
yet), and ``manage.py fill_pools`` runs it by hand; :func:`fill_breadth_first`, which the
pool-fill job runs (``games.jobs``), gives each deal to the emptiest pool of ``POOL_RULES``
next, so that every ruleset gets its first deals before any is topped up, and ends by its
deadline: a search the deadline cuts (``games.engine.solver.limits``) is tried again, whole,
by the next run. :func:`draw` deals one of them to a player, never the
same one twice: fresh deals first, then deals others were dealt. A rated draw
(``rated=True``) deals only a deal nobody has seen: dealt to nobody, played in no game,
never a daily's, and never rated before (``games_rated_deal``, whose unique ``(rules,
seed)`` PostgreSQL keeps for every rated game: docs/ratings.md#one-rated-game-a-deal).
Concurrent draws never wait on one another: each locks the deal it takes and skips those
others hold, and the unique ``(player, deal)`` constraint is the last guard. A request never
searches: an empty pool is :class:`PoolEmpty` (503, ``Retry-After``) while the job fills it.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, OuterRef, Q

from games import clock, engine
from games.dailies.models import DailyChallenge
from games.engine.solver import limits
from games.errors import PoolEmpty
from games.pools import certify
from games.pools.models import CertifiedDeal, PoolCursor, PoolDraw, RatedDeal
from games.store import locks
from games.store.models import Game

__all__ = [
    "CertifiedDeal",
    "fill",
    "fill_breadth_first",
    "draw",
    "fresh_count",
    "fresh_counts",
    "counts",
    "PoolEmpty",
]

logger = logging.getLogger(__name__)

#: A draw that lost a race to the same player's other draw tries again, this many times in all.
_DRAW_ATTEMPTS = 5


def draw(
    rules: str,
    player: Any,
    *,
    order_by: Sequence[Any] | None = None,
    game_id: uuid.UUID | None = None,
    rated: bool = False,
) -> CertifiedDeal:
    """Deal ``player`` a certified deal of ``rules`` they were never dealt, and record it
    (with ``game_id``, the game it is dealt in, when the caller knows it already).

    ``order_by`` (Django ordering expressions on ``CertifiedDeal``) chooses among the deals
    they may have; by default the fresh ones first (``draws``), then the oldest. One
    statement picks the deal (``FOR UPDATE SKIP LOCKED``: a deal another draw holds is
    skipped, never waited for), records the draw and counts it; in the caller's transaction
    if there is one (so a game that fails to start gives the deal back). Two draws of one
    player that picked the same deal: the second's record conflicts, writes nothing, and it
    draws again. :class:`PoolEmpty` when no deal is left for them.

    ``rated``: only a deal nobody has seen (the module's docstring says which), so that no
    rated game is ever dealt a deal whose winning line may be public."""
    if order_by is None and not rated:
        pick: tuple[str, tuple[Any, ...]] = (_FRESH_FIRST, (rules, player.pk))
    else:
        pick = _pick(rules, player.pk, order_by or ["draws", "id"], unseen=rated)
    for _ in range(_DRAW_ATTEMPTS):
        picked, deal = _draw_once(pick, player.pk, game_id)
        if deal is not None:
            return deal
        if not picked:
            break
    raise PoolEmpty()


_ATTNAMES = [field.attname for field in CertifiedDeal._meta.concrete_fields]
#: What a draw's statement returns of the deal it drew, field by field.
_RETURNED = ", ".join(f"bumped.{field.column}" for field in CertifiedDeal._meta.concrete_fields)


#: The pick of a plain draw, the fresh deals first, then the oldest; its parameters are
#: the ruleset and the player. Written in SQL: every winnable game draws, and the ORM built
#: this query in about 0.7 ms, a sixth of the request's time.
_FRESH_FIRST = (
    "SELECT d.id FROM games_certified_deal d WHERE d.rules = %s AND NOT EXISTS ("
    "SELECT 1 FROM games_pool_draw t WHERE t.deal_id = d.id AND t.player_id = %s)"
    " ORDER BY d.draws, d.id LIMIT 1"
)


def _pick(
    rules: str, player_id: int, ordering: Sequence[Any], *, unseen: bool = False
) -> tuple[str, tuple[Any, ...]]:
    """The pick of a draw in ``ordering``, built by the ORM: its SQL and its parameters;
    ``unseen``: among the deals nobody has seen only."""
    taken = PoolDraw.objects.filter(deal_id=OuterRef("pk"), player_id=player_id)
    candidates = CertifiedDeal.objects.filter(rules=rules).exclude(Exists(taken))
    if unseen:
        candidates = unseen_deals(candidates)
    first = candidates.order_by(*ordering).values("id")[:1]
    sql, params = first.query.sql_with_params()
    return sql, tuple(params)


def _draw_once(
    pick: tuple[str, tuple[Any, ...]], player_id: int, game_id: uuid.UUID | None
) -> tuple[bool, CertifiedDeal | None]:
    """Whether a deal was picked, and the deal drawn (``None`` if the record conflicted);
    ``pick`` is the query that picks it, and its parameters."""
    sql, pick_params = pick
    statement = f"""
        WITH picked AS ({sql} FOR UPDATE SKIP LOCKED),
        drawn AS (
            INSERT INTO games_pool_draw (player_id, deal_id, game_id, drawn_at)
            SELECT %s, id, %s, %s FROM picked
            ON CONFLICT ON CONSTRAINT pool_draw_once_per_player DO NOTHING
            RETURNING deal_id
        ),
        bumped AS (
            UPDATE games_certified_deal AS d SET draws = d.draws + 1
            FROM drawn WHERE d.id = drawn.deal_id
            RETURNING d.*
        )
        SELECT EXISTS (SELECT 1 FROM picked), {_RETURNED}
        FROM (VALUES (1)) AS one (x) LEFT JOIN bumped ON true
    """
    with connection.cursor() as cursor:
        cursor.execute(statement, [*pick_params, player_id, game_id, clock.now()])
        picked, *values = cursor.fetchone()
    if values[0] is None:
        return bool(picked), None
    deal = CertifiedDeal.from_db(connection.alias, _ATTNAMES, values)
    if isinstance(deal.solution, str):  # a raw cursor's jsonb is its text
        deal.solution = json.loads(deal.solution)
    return True, deal


def unseen_deals(deals: Any) -> Any:
    """``deals`` (a query of ``CertifiedDeal``) less every deal someone has seen: dealt from
    the pool (``draws``), played in any game (a finished one is public, and one still played
    soon will be), a daily's, or rated before (the games dealt before ``games_rated_deal``
    existed included)."""
    same = {"rules": OuterRef("rules"), "seed": OuterRef("seed")}
    return (
        deals.filter(draws=0)
        .exclude(Exists(Game.objects.filter(**same)))
        .exclude(Exists(DailyChallenge.objects.filter(**same)))
        .exclude(Exists(RatedDeal.objects.filter(**same)))
    )


#: What ``counts`` says of each ruleset's pool, in this order.
STATES = ("certified", "dealt", "rated", "ready")


def counts(rules: Sequence[str]) -> dict[str, dict[str, int]]:
    """For each ruleset of ``rules`` (and any other with certified deals), how many of its
    pool's deals are ``certified`` (all of them), ``dealt`` (to anyone, from the pool),
    ``rated`` (dealt to a rated game: ``games_rated_deal``, the rated games dealt before it
    existed counted by deal) and ``ready`` (nobody has seen them: a rated draw may deal
    them). Four grouped queries, whatever the pools hold."""
    found: dict[str, dict[str, int]] = {name: dict.fromkeys(STATES, 0) for name in rules}
    certified = CertifiedDeal.objects.values("rules").annotate(
        certified=Count("id"), dealt=Count("id", filter=Q(draws__gt=0))
    )
    for row in certified:
        found.setdefault(row["rules"], dict.fromkeys(STATES, 0)).update(
            certified=row["certified"], dealt=row["dealt"]
        )
    ready = unseen_deals(CertifiedDeal.objects.all()).values("rules").annotate(n=Count("id"))
    for fresh in ready:
        found[fresh["rules"]]["ready"] = fresh["n"]
    rated = RatedDeal.objects.filter(rules__in=list(found)).values("rules").annotate(n=Count("id"))
    for dealt in rated:
        found[dealt["rules"]]["rated"] = dealt["n"]
    return found


def fresh_count(rules: str) -> int:
    """How many deals of the pool of ``rules`` nobody was dealt yet."""
    return CertifiedDeal.objects.filter(rules=rules, draws=0).count()


def fresh_counts(rules: Sequence[str]) -> dict[str, int]:
    """How many deals of each pool of ``rules`` nobody was dealt yet, in one query."""
    counts = dict.fromkeys(rules, 0)
    rows = (
        CertifiedDeal.objects.filter(rules__in=list(rules), draws=0)
        .values_list("rules")
        .annotate(n=Count("id"))
    )
    for name, n in rows:
        counts[name] = n
    return counts


def fill(
    rules: str,
    target: int,
    *,
    max_candidates: int | None = None,
    seconds: float | None = None,
) -> list[CertifiedDeal]:
    """Certify candidates of the pool of ``rules`` until it holds ``target`` fresh deals,
    ``max_candidates`` (``POOL_FILL_CANDIDATES`` if ``None``) were tried, or ``seconds``
    have passed; the deals made.

    The search runs outside any transaction, and ends by the deadline (the candidate it
    cut is tried again by the next call). A process filling the same pool already (it
    holds the pool's advisory lock) is left to it: this call makes nothing."""
    deadline = None if seconds is None else time.monotonic() + seconds
    limit = settings.POOL_FILL_CANDIDATES if max_candidates is None else max_candidates
    done = _fill(rules, target - fresh_count(rules), limit, deadline)
    if done.made:
        logger.info(
            "pool %s: %d deals certified in %d candidates", rules, len(done.made), done.tried
        )
    return done.made


@dataclass
class Filled:
    """What a fill did: the deals made, the candidates tried (their verdict known), and
    whether the deadline cut a search."""

    made: list[CertifiedDeal] = field(default_factory=list)
    tried: int = 0
    cut: bool = False


def _fill(
    rules: str, missing: int, limit: int, deadline: float | None, *, follow: bool | None = None
) -> Filled:
    """Certify candidates of ``rules`` until ``missing`` deals are made, ``limit`` tried, or
    ``deadline`` (``time.monotonic()``) passes; each candidate's verdict and the cursor are
    stored together, so that one that dies mid-way neither loses nor counts a deal twice."""
    ruleset = engine.RULESETS[rules]
    done = Filled()
    with locks.session_lock(lock_id(rules)) as mine:
        if not mine:
            return done
        cursor, _ = PoolCursor.objects.get_or_create(rules=rules)
        while len(done.made) < missing and done.tried < limit:
            index = cursor.next_index
            try:
                with limits.deadline(deadline):
                    if limits.passed():
                        raise limits.Interrupted()
                    found, _nodes = certify.certify(ruleset, index, follow=follow)
            except limits.Interrupted:
                done.cut = True
                break
            cursor.next_index = index + 1
            done.tried += 1
            with transaction.atomic():
                if found is not None:
                    done.made.append(_store(found))
                cursor.save(update_fields=["next_index"])
    return done


def fill_breadth_first(
    rules: Sequence[str], target: int, deadline: float, *, stopping: Any = None
) -> dict[str, int]:
    """Certify deals into the pools of ``rules``, one deal at a time to the pool with the
    fewest fresh deals below ``target``, until every pool holds ``target`` or ``deadline``
    (``time.monotonic()``) passes; the deals made, by ruleset. ``stopping`` (a callable)
    ends it early when true. A pool another process fills (its lock held) is passed over.
    The deals are certified without the hint follower, which takes up to a minute and more
    a deal (``double``): :func:`follow_up` measures it afterwards."""
    made = dict.fromkeys(rules, 0)
    counts = fresh_counts(rules)
    busy: set[str] = set()
    while time.monotonic() < deadline and not limits.interrupted():
        if stopping is not None and stopping():
            break
        below = [name for name in rules if counts[name] < target and name not in busy]
        if not below:
            break
        emptiest = min(below, key=lambda name: (counts[name], rules.index(name)))
        done = _fill(emptiest, 1, settings.POOL_FILL_CANDIDATES, deadline, follow=False)
        if done.cut:
            break
        if not done.tried:
            busy.add(emptiest)  # another process holds its lock
            continue
        made[emptiest] += len(done.made)
        counts[emptiest] = fresh_count(emptiest)
        if not done.made:  # POOL_FILL_CANDIDATES tried in vain: the others go first
            busy.add(emptiest)
    return made


def follow_up(deadline: float) -> int:
    """Play the hint follower on the certified deals not yet followed, oldest first, until
    none is left or ``deadline`` (``time.monotonic()``) passes; how many were settled. A
    deal whose follower the deadline cuts is tried again, whole, by the next run, unless
    it had the run to itself: then its follower is given up (``follower_won`` stays
    ``None``, its difficulty the solver's effort), so that one slow deal never blocks the
    rest. Each deal is settled in one ``UPDATE``: running twice settles it once."""
    settled = 0
    first = True
    while time.monotonic() < deadline and not limits.interrupted():
        deal = (
            CertifiedDeal.objects.filter(followed_at__isnull=True)
            .order_by("id")
            .only("id", "rules", "seed", "nodes")
            .first()
        )
        if deal is None:
            break
        changes: dict[str, Any] = {"followed_at": clock.now()}
        try:
            with limits.deadline(deadline):
                won, value = certify.follow_up(engine.RULESETS[deal.rules], deal.seed, deal.nodes)
        except limits.Interrupted:
            if not first or limits.interrupted():
                break
            logger.warning("pool %s deal %d: the hint follower gave up", deal.rules, deal.id)
        else:
            changes.update(
                follower_won=won, difficulty=value, difficulty_label=certify.label(value)
            )
        first = False
        settled += CertifiedDeal.objects.filter(id=deal.id, followed_at__isnull=True).update(
            **changes
        )
    return settled


def _store(found: certify.Certified) -> CertifiedDeal:
    return CertifiedDeal.objects.create(
        followed_at=None if found.follower_won is None else clock.now(),
        rules=found.rules,
        index=found.index,
        seed=found.seed,
        solution=list(found.solution),
        nodes=found.nodes,
        follower_won=found.follower_won,
        difficulty=found.difficulty,
        difficulty_label=found.difficulty_label,
        created_at=clock.now(),
    )


#: The advisory lock key space of pools being filled (``LOCK_KEY`` + the ruleset's number).
LOCK_KEY = 0x5C1_0000_0000


def lock_id(rules: str) -> int:
    """The PostgreSQL advisory lock that whoever fills the pool of ``rules`` holds."""
    return LOCK_KEY + list(engine.RULESETS).index(rules)
