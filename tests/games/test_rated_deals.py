"""One rated game a deal, ever: concurrent rated draws never share a deal, the database
refuses a forged second rated game of one, and a deal someone has seen is never dealt
rated (docs/ratings.md#one-rated-game-a-deal)."""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from prometheus_client.parser import text_string_to_metric_families

from games import clock, engine, pools
from games.dailies.models import DailyChallenge
from games.errors import PoolEmpty
from games.pools.models import CertifiedDeal, RatedDeal
from games.store.models import Event
from games.writes import services

CLASSIC = engine.RULESETS["classic"]


@pytest.fixture(autouse=True)
def _quick_pools(settings):
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000
    settings.POOL_RULES = ["classic"]


def created(game_id: uuid.UUID) -> Event:
    return Event.objects.get(game_id=game_id, seq=1)


@pytest.mark.django_db(transaction=True)
def test_twelve_concurrent_rated_draws_never_deal_one_deal_twice(django_user_model) -> None:
    players = [django_user_model.objects.create_user(f"p{n}", password="pw-p-1") for n in range(12)]
    made = pools.fill("classic", 8)
    assert len(made) == 8
    barrier = threading.Barrier(12)
    games: list[uuid.UUID] = []
    empty: list[int] = []
    failures: list[BaseException] = []

    def draw(player) -> None:
        try:
            barrier.wait()
            games.append(services.game_create(owner=player, rules="classic", rated=True).game_id)
        except PoolEmpty:
            empty.append(1)
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=draw, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    assert len(games) == 8 and len(empty) == 4
    seeds = [created(game).data["seed"] for game in games]
    assert sorted(seeds) == sorted(deal.seed for deal in made)  # eight deals, each once
    assert RatedDeal.objects.count() == 8
    assert {row.game_id for row in RatedDeal.objects.all()} == set(games)


@pytest.mark.django_db
def test_a_forged_second_rated_game_of_a_deal_is_refused_by_the_database(alice) -> None:
    pools.fill("classic", 1)
    game = services.game_create(owner=alice, rules="classic", rated=True)
    first = created(game.game_id)
    forged = dict(first.data)
    for data in (forged, {**forged, "public": False, "difficulty": 0.0}):
        with pytest.raises(IntegrityError, match="rated_deal_once"), transaction.atomic():
            Event.objects.create(
                game_id=uuid.uuid4(), seq=1, type="created", data=data, at=clock.now()
            )
    # Even by SQL, bypassing Django.
    with (
        pytest.raises(IntegrityError, match="rated_deal_once"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO games_event (game_id, seq, type, data, at) "
            "VALUES (gen_random_uuid(), 1, 'created', %s::jsonb, now())",
            [json.dumps(forged)],
        )
    # A rated game needs a seed; an unrated game of the deal, or a daily's, is no rated deal.
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(
            game_id=uuid.uuid4(),
            seq=1,
            type="created",
            data={**forged, "seed": None},
            at=clock.now(),
        )
    casual = {key: value for key, value in forged.items() if key not in ("rated", "difficulty")}
    Event.objects.create(game_id=uuid.uuid4(), seq=1, type="created", data=casual, at=clock.now())
    daily = {**forged, "challenge": "2026-12-01"}
    Event.objects.create(game_id=uuid.uuid4(), seq=1, type="created", data=daily, at=clock.now())
    assert RatedDeal.objects.get().game_id == game.game_id


@pytest.mark.django_db
def test_a_deal_someone_has_seen_is_never_dealt_rated(alice, bob) -> None:
    made = pools.fill("classic", 5)
    seeds = {deal.index: deal.seed for deal in made}
    by_index = sorted(seeds)
    # Dealt casually from the pool: the casual draw takes the oldest fresh deal.
    casual = services.game_create(owner=bob, rules="classic", winnable=True)
    assert created(casual.game_id).data["seed"] == seeds[by_index[0]]
    # Played from its seed and finished (public), or still being played (soon public).
    finished = services.game_create(owner=bob, rules="classic", seed=seeds[by_index[1]])
    services.game_command(game_id=finished.game_id, actor=bob, command={"type": "resign"})
    services.game_create(owner=bob, rules="classic", seed=seeds[by_index[2]])
    # A daily's deal, played by everyone that day.
    DailyChallenge.objects.create(
        date=dt.date(2026, 11, 1), rules="classic", seed=seeds[by_index[3]], nodes=10,
        created_at=clock.now(),
    )  # fmt: skip
    rated = services.game_create(owner=alice, rules="classic", rated=True)
    assert created(rated.game_id).data["seed"] == seeds[by_index[4]]
    with pytest.raises(PoolEmpty):
        services.game_create(owner=alice, rules="classic", rated=True)
    # Another player is refused too: the last deal was dealt rated once, and that is all.
    with pytest.raises(PoolEmpty):
        pools.draw("classic", bob, rated=True)
    assert CertifiedDeal.objects.filter(draws=0).count() == 3  # seen, though never drawn


@pytest.mark.django_db
def test_metrics_show_each_pools_deals_certified_dealt_rated_and_ready(alice, bob, client) -> None:
    pools.fill("classic", 4)
    services.game_create(owner=bob, rules="classic", winnable=True)
    services.game_create(owner=alice, rules="classic", rated=True)
    body = client.get("/metrics").content.decode()
    found = {
        (sample.labels["rules"], sample.labels["state"]): sample.value
        for family in text_string_to_metric_families(body)
        if family.name == "scorpion_pool_deals"
        for sample in family.samples
    }
    assert found == {
        ("classic", "certified"): 4,
        ("classic", "dealt"): 2,
        ("classic", "rated"): 1,
        ("classic", "ready"): 2,
    }
