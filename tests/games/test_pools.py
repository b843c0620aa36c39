"""Winnable pools: certified deals replay to a win, and nobody is dealt one twice, even
when their draws race, and no draw waits on another."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import F

from games import engine, pools
from games.engine.solver import solve
from games.errors import PoolEmpty
from games.pools import certify
from games.pools.models import CertifiedDeal, PoolCursor, PoolDraw

CLASSIC = engine.RULESETS["classic"]


@pytest.fixture(autouse=True)
def _quick_pools(settings):
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000


def replays_to_a_win(deal: CertifiedDeal) -> bool:
    rules = engine.RULESETS[deal.rules]
    actions = [engine.action_from_command(command) for command in deal.solution]
    return engine.replay(rules, engine.seeded_deal(rules, deal.seed), actions).status == engine.WON


@pytest.mark.django_db
def test_fill_certifies_deals_of_the_secret_sequence_that_replay_to_a_win() -> None:
    made = pools.fill("classic", 3)

    assert len(made) == 3 and pools.fresh_count("classic") == 3
    cursor = PoolCursor.objects.get(rules="classic")
    assert cursor.next_index > max(deal.index for deal in made)
    for deal in made:
        assert deal.seed == certify.secret_seed("classic", deal.index)
        assert replays_to_a_win(deal)
        assert 0 <= deal.difficulty <= 1
        assert deal.difficulty_label == certify.label(deal.difficulty)
        assert deal.follower_won is None
    # Every candidate below the cursor that is not in the pool was not won by the solver.
    kept = {deal.index for deal in made}
    for index in range(cursor.next_index):
        if index not in kept:
            seed = certify.secret_seed("classic", index)
            state = engine.new_game(CLASSIC, engine.seeded_deal(CLASSIC, seed))
            assert solve(CLASSIC, state, 20_000).verdict != "won"
    assert pools.fill("classic", 3) == []  # full: nothing tried
    assert PoolCursor.objects.get(rules="classic").next_index == cursor.next_index


@pytest.mark.django_db
def test_the_secret_sequence_depends_on_the_secret(settings) -> None:
    first = certify.secret_seed("classic", 0)
    settings.DAILY_SECRET = "another-secret-of-at-least-32-characters-0123"
    assert certify.secret_seed("classic", 0) != first
    assert certify.secret_seed("classic", 1) != certify.secret_seed("double", 1)


def test_difficulty_counts_the_search_and_the_hint_follower() -> None:
    assert certify.difficulty(0, None) == 0
    assert certify.difficulty(10**9, None) == 1
    assert certify.difficulty(1_000, None) < certify.difficulty(100_000, None)
    assert certify.difficulty(1_000, True) < certify.difficulty(1_000, None)
    assert certify.difficulty(1_000, False) > 0.5
    assert [certify.label(value) for value in (0, 0.3, 0.6, 0.9)] == [
        "easy",
        "medium",
        "hard",
        "expert",
    ]


@pytest.mark.django_db
def test_a_deal_followed_by_hints_counts_the_follower(settings) -> None:
    settings.POOL_FOLLOW_HINTS = True
    (deal,) = pools.fill("classic", 1)
    rules = CLASSIC
    assert deal.follower_won is certify.follows_to_win(rules, engine.seeded_deal(rules, deal.seed))
    assert deal.difficulty == certify.difficulty(deal.nodes, deal.follower_won)


@pytest.mark.django_db
def test_a_player_is_never_dealt_the_same_deal_twice(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    made = pools.fill("classic", 3)

    drawn = [pools.draw("classic", alice) for _ in range(3)]
    assert sorted(deal.pk for deal in drawn) == sorted(deal.pk for deal in made)
    with pytest.raises(PoolEmpty):
        pools.draw("classic", alice)
    # Bob may have them all, fresh ones first.
    pools.fill("classic", 1)
    first = pools.draw("classic", bob)
    assert first.draws == 1 and first.pk not in {deal.pk for deal in made}
    assert len({pools.draw("classic", bob).pk for _ in range(3)}) == 3
    with pytest.raises(PoolEmpty):
        pools.draw("classic", bob)
    assert PoolDraw.objects.filter(player=alice).count() == 3
    with pytest.raises(PoolEmpty):
        pools.draw("wasp", alice)  # never filled


@pytest.mark.django_db
def test_draw_takes_an_order(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice")
    made = pools.fill("classic", 3)
    hardest = max(made, key=lambda deal: (deal.difficulty, -deal.pk))
    assert pools.draw("classic", alice, order_by=[F("difficulty").desc(), "id"]).pk == hardest.pk


@pytest.mark.django_db(transaction=True)
def test_concurrent_draws_of_one_player_never_share_a_deal(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice")
    pools.fill("classic", 6)
    barrier = threading.Barrier(8)
    drawn: list[int] = []
    empty: list[int] = []
    failures: list[BaseException] = []

    def draw() -> None:
        try:
            barrier.wait()
            drawn.append(pools.draw("classic", alice).pk)
        except PoolEmpty:
            empty.append(1)
        except BaseException as error:  # noqa: BLE001
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=draw) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert len(drawn) == len(set(drawn)) == 6 and len(empty) == 2
    assert PoolDraw.objects.filter(player=alice).count() == 6


@pytest.mark.django_db(transaction=True)
def test_a_draw_never_waits_on_another(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    pools.fill("classic", 2)
    holding = threading.Event()
    release = threading.Event()
    held: list[int] = []

    def hold() -> None:
        try:
            with transaction.atomic():
                held.append(pools.draw("classic", alice).pk)
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holding.wait(10)
        started = time.monotonic()
        mine = pools.draw("classic", bob)
        assert time.monotonic() - started < 1.0
        assert mine.pk != held[0]  # the deal a running draw holds is skipped
    finally:
        release.set()
        thread.join()


@pytest.mark.django_db(transaction=True)
def test_fill_leaves_a_pool_another_process_fills() -> None:
    settings_dict = connection.settings_dict
    other = psycopg.connect(
        dbname=settings_dict["NAME"],
        user=settings_dict["USER"],
        host=settings_dict["HOST"] or None,
        port=settings_dict["PORT"] or None,
        autocommit=True,
    )
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [pools.lock_id("classic")])
        assert pools.fill("classic", 2) == []
        other.execute("SELECT pg_advisory_unlock(%s)", [pools.lock_id("classic")])
        assert len(pools.fill("classic", 2)) == 2
    finally:
        other.close()


@pytest.mark.django_db
def test_fill_pools_fills_by_hand() -> None:
    with open("/dev/null", "w") as out:
        call_command("fill_pools", "--rules", "classic,traditional", "--target", "2", stdout=out)
    assert pools.fresh_count("classic") == 2 and pools.fresh_count("traditional") == 2


@pytest.mark.django_db
def test_fill_stops_when_its_time_is_up() -> None:
    # The deadline passed before the first search: it is tried again, whole, next time.
    assert pools.fill("classic", 50, seconds=0.0) == []

    assert PoolCursor.objects.get(rules="classic").next_index == 0


@pytest.mark.django_db
def test_the_pool_fill_job_goes_breadth_first_within_its_deadline(settings) -> None:
    rules = ["classic", "wasp", "double"]
    settings.POOL_FOLLOW_HINTS = True  # the job leaves the follower to the follow-up job
    began = time.monotonic()

    made = pools.fill_breadth_first(rules, 2, began + 60)

    assert made == dict.fromkeys(rules, 2)
    assert time.monotonic() - began < 30
    order = list(CertifiedDeal.objects.order_by("id").values_list("rules", flat=True))
    assert sorted(order[:3]) == sorted(rules)  # each its first deal before any its second
    assert set(CertifiedDeal.objects.values_list("followed_at", "follower_won")) == {(None, None)}

    # A search the deadline cuts is left whole for the next run, which ends by it too.
    cursors = dict(PoolCursor.objects.values_list("rules", "next_index"))
    settings.POOL_SOLVER_BUDGET = 10**9
    settings.POOL_FILL_CANDIDATES = 10**6
    began = time.monotonic()
    pools.fill_breadth_first(rules, 10**6, began + 0.3)
    assert time.monotonic() - began < 1.3
    after = dict(PoolCursor.objects.values_list("rules", "next_index"))
    assert all(after[name] >= cursors[name] for name in rules)

    # The follow-up job plays the follower on the deals certified without it, once each
    # (with a cheap hint here: the server's takes half a minute a double deal).
    settings.HINT_SAMPLES = 2
    settled = pools.follow_up(time.monotonic() + 120)
    assert settled == CertifiedDeal.objects.count() >= 6
    assert not CertifiedDeal.objects.filter(followed_at__isnull=True).exists()
    assert pools.follow_up(time.monotonic() + 120) == 0
