"""POST /games {"winnable": true}: a secret deal of the ruleset's pool, proved winnable,
never dealt to the same player twice; 400 with a seed or a deal, 503 when none is left."""

from __future__ import annotations

import pytest

from games import engine, pools
from games.pools.models import PoolDraw
from games.store.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quick_pools(settings):
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000


def test_a_winnable_game_is_a_pool_deal_with_its_difficulty_and_no_seed(as_alice, alice):
    (deal,) = pools.fill("classic", 1)

    response = as_alice.post("/api/v1/games", {"rules": "classic", "winnable": True})

    assert response.status_code == 201
    game = response.json()
    assert game["seed"] is None and game["rules"] == "classic"
    assert game["certified"] == {"difficulty": deal.difficulty, "label": deal.difficulty_label}
    assert Event.objects.get(game_id=game["id"]).data["seed"] == deal.seed
    cards = [engine.card_code(card) for card in engine.seeded_deal(engine.DEFAULT_RULES, deal.seed)]
    assert game["columns"][6] == cards[42:49]  # the deal of the certified seed, masked
    assert game["columns"][0][:3] == [None, None, None]
    draw = PoolDraw.objects.get(player=alice[0])
    assert (draw.deal_id, str(draw.game_id)) == (deal.pk, game["id"])
    # Reading the game, or its first event, shows no seed while it is played.
    read = as_alice.get(f"/api/v1/games/{game['id']}").json()
    assert read["seed"] is None and read["certified"] == game["certified"]
    first = as_alice.get(f"/api/v1/games/{game['id']}/events").json()["results"][0]
    assert first["data"]["seed"] is None and first["data"]["deal"] is None


def test_no_player_gets_a_deal_twice_and_an_empty_pool_is_503(as_alice, as_bob):
    pools.fill("classic", 2)
    games = [as_alice.post("/api/v1/games", {"winnable": True}).json() for _ in range(2)]
    seeds = {Event.objects.get(game_id=game["id"]).data["seed"] for game in games}
    assert len(seeds) == 2

    response = as_alice.post("/api/v1/games", {"winnable": True})

    assert response.status_code == 503
    assert response.json()["code"] == "pool_empty"
    assert int(response["Retry-After"]) > 0
    assert as_bob.post("/api/v1/games", {"winnable": True}).status_code == 201


def test_a_ruleset_never_filled_is_503(as_alice):
    response = as_alice.post("/api/v1/games", {"rules": "wasp", "winnable": True})

    assert response.status_code == 503
    assert response.json()["code"] == "pool_empty"


@pytest.mark.parametrize(
    "extra", [{"seed": 1}, {"deal": [engine.card_code(card) for card in engine.new_deck()]}]
)
def test_winnable_with_a_seed_or_a_deal_is_400(as_alice, extra):
    pools.fill("classic", 1)

    response = as_alice.post("/api/v1/games", {"winnable": True, **extra})

    assert response.status_code == 400
    assert response.json()["code"] == "winnable_with_deal"
    assert not PoolDraw.objects.exists()


def test_winnable_false_is_an_ordinary_game(as_alice):
    response = as_alice.post("/api/v1/games", {"seed": 5, "winnable": False})

    assert response.status_code == 201
    assert "certified" not in response.json()


def test_winnable_must_be_a_boolean(as_alice):
    response = as_alice.post("/api/v1/games", {"winnable": "yes"})

    assert response.status_code == 400
    assert "winnable" in response.json()["fields"]


def test_anonymous_callers_cannot_draw(api):
    pools.fill("classic", 1)

    assert api.post("/api/v1/games", {"winnable": True}).status_code == 401
    assert not PoolDraw.objects.exists()
