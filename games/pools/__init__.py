"""Winnable pools: for each ruleset, deals the solver proved winnable, ahead of demand.

:func:`fill` certifies the next candidates of a ruleset's secret sequence
(``games.pools.certify``) until the pool holds ``target`` fresh deals (dealt to nobody
yet); a periodic job runs it for every ruleset of ``POOL_RULES`` (``games.jobs``), and
``manage.py fill_pools`` by hand. :func:`draw` deals one of them to a player, never the
same one twice: fresh deals first, then deals others were dealt. Concurrent draws never
wait on one another: each locks the deal it takes and skips those others hold, and the
unique ``(player, deal)`` constraint is the last guard. A request never searches: an empty
pool is :class:`PoolEmpty` (503, ``Retry-After``) while the job fills it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef

from games import clock, engine
from games.errors import PoolEmpty
from games.pools import certify
from games.pools.models import CertifiedDeal, PoolCursor, PoolDraw

__all__ = ["CertifiedDeal", "fill", "draw", "played", "fresh_count", "PoolEmpty"]

logger = logging.getLogger(__name__)

#: A draw that lost a race to the same player's other draw tries again this many times.
_DRAW_ATTEMPTS = 5


def draw(rules: str, player: Any, *, order_by: Sequence[Any] | None = None) -> CertifiedDeal:
    """Deal ``player`` a certified deal of ``rules`` they were never dealt, and record it.

    ``order_by`` (Django ordering expressions on ``CertifiedDeal``) chooses among the deals
    they may have; by default the fresh ones first (``draws``), then the oldest. Runs in the
    caller's transaction if there is one (so a game that fails to start gives the deal
    back), else in its own. :class:`PoolEmpty` when no deal is left for them."""
    ordering = list(order_by) if order_by is not None else ["draws", "id"]
    for _ in range(_DRAW_ATTEMPTS):
        try:
            with transaction.atomic():
                return _draw_once(rules, player.pk, ordering)
        except IntegrityError:  # the same player's concurrent draw took this deal first
            continue
    raise PoolEmpty()


def _draw_once(rules: str, player_id: int, ordering: list[Any]) -> CertifiedDeal:
    taken = PoolDraw.objects.filter(deal_id=OuterRef("pk"), player_id=player_id)
    deal = (
        CertifiedDeal.objects.filter(rules=rules)
        .exclude(Exists(taken))
        .order_by(*ordering)
        .select_for_update(skip_locked=True, of=("self",))
        .first()
    )
    if deal is None:
        raise PoolEmpty()
    PoolDraw.objects.create(player_id=player_id, deal=deal, drawn_at=clock.now())
    CertifiedDeal.objects.filter(pk=deal.pk).update(draws=F("draws") + 1)
    deal.draws += 1
    return deal


def played(deal: CertifiedDeal, player: Any, game_id: Any) -> None:
    """Record the game ``player`` was dealt ``deal`` in (after :func:`draw`)."""
    PoolDraw.objects.filter(deal=deal, player_id=player.pk).update(game_id=game_id)


def fresh_count(rules: str) -> int:
    """How many deals of the pool of ``rules`` nobody was dealt yet."""
    return CertifiedDeal.objects.filter(rules=rules, draws=0).count()


def fill(
    rules: str,
    target: int,
    *,
    max_candidates: int | None = None,
    seconds: float | None = None,
) -> list[CertifiedDeal]:
    """Certify candidates of the pool of ``rules`` until it holds ``target`` fresh deals,
    ``max_candidates`` (``POOL_FILL_CANDIDATES`` if ``None``) were tried, or ``seconds``
    have passed (at least one candidate is tried); the deals made.

    The search runs outside any transaction. A process filling the same pool already (it
    holds the pool's advisory lock) is left to it: this call makes nothing."""
    ruleset = engine.RULESETS[rules]
    limit = settings.POOL_FILL_CANDIDATES if max_candidates is None else max_candidates
    made: list[CertifiedDeal] = []
    with _pool_lock(rules) as mine:
        if not mine:
            return made
        missing = target - fresh_count(rules)
        cursor, _ = PoolCursor.objects.get_or_create(rules=rules)
        tried = 0
        deadline = None if seconds is None else time.monotonic() + seconds
        while len(made) < missing and tried < limit:
            if deadline is not None and tried and time.monotonic() > deadline:
                break
            index = cursor.next_index
            found, _nodes = certify.certify(ruleset, index)
            cursor.next_index = index + 1
            tried += 1
            if found is None:
                cursor.save(update_fields=["next_index"])
                continue
            with transaction.atomic():
                made.append(_store(found))
                cursor.save(update_fields=["next_index"])
    if made:
        logger.info(
            "pool %s: %d deals certified in %d candidates (up to %d)",
            rules,
            len(made),
            tried,
            cursor.next_index,
        )
    return made


def _store(found: certify.Certified) -> CertifiedDeal:
    return CertifiedDeal.objects.create(
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


@contextmanager
def _pool_lock(rules: str) -> Iterator[bool]:
    """Try the pool's session-level advisory lock; whether this connection got it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [lock_id(rules)])
        (mine,) = cursor.fetchone()
    try:
        yield bool(mine)
    finally:
        if mine:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [lock_id(rules)])
