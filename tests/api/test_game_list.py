"""GET /games: what each viewer may list, filters, and cursor pagination."""

import pytest

from games.writes import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def games(alice, bob, staff):
    """alice: a public classic game and a private easy one; bob: a public game he resigned."""
    made = {
        "alice_public": services.game_create(owner=alice[0], seed=1),
        "alice_private": services.game_create(owner=alice[0], rules="easy", seed=2, public=False),
        "bob_resigned": services.game_create(owner=bob[0], seed=3),
    }
    services.game_command(
        game_id=made["bob_resigned"].game_id, actor=bob[0], command={"type": "resign"}
    )
    return {name: str(stream.game_id) for name, stream in made.items()}


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    assert set(response.json()) == {"results", "next"}
    return [game["id"] for game in response.json()["results"]]


def test_anonymous_lists_public_games_newest_first(api, games):
    assert ids(api.get("/api/v1/games")) == [games["bob_resigned"], games["alice_public"]]


def test_owner_lists_their_private_games_too(as_alice, as_bob, games):
    assert ids(as_alice.get("/api/v1/games")) == [
        games["bob_resigned"],
        games["alice_private"],
        games["alice_public"],
    ]
    assert games["alice_private"] not in ids(as_bob.get("/api/v1/games"))


def test_staff_list_every_game(as_staff, games):
    assert len(ids(as_staff.get("/api/v1/games"))) == 3


def test_filters(as_alice, games):
    assert ids(as_alice.get("/api/v1/games?owner=bob")) == [games["bob_resigned"]]
    assert ids(as_alice.get("/api/v1/games?status=resigned")) == [games["bob_resigned"]]
    assert ids(as_alice.get("/api/v1/games?rules=easy")) == [games["alice_private"]]
    assert ids(as_alice.get("/api/v1/games?owner=alice&status=playing&rules=classic")) == [
        games["alice_public"]
    ]
    assert ids(as_alice.get("/api/v1/games?owner=nobody")) == []


def test_listed_games_are_masked_and_finished_ones_revealed(api, games):
    listed = {game["id"]: game for game in api.get("/api/v1/games").json()["results"]}

    playing = listed[games["alice_public"]]
    assert playing["seed"] is None and playing["columns"][0][:3] == [None, None, None]
    assert "reserve_cards" not in playing
    resigned = listed[games["bob_resigned"]]
    assert resigned["seed"] == 3 and None not in resigned["columns"][0]
    assert len(resigned["reserve_cards"]) == 3


def test_pages_follow_next_until_null(as_alice, alice):
    made = [str(services.game_create(owner=alice[0], seed=seed).game_id) for seed in range(5)]

    seen: list[str] = []
    url = "/api/v1/games?limit=2&owner=alice"
    pages = 0
    while url:
        response = as_alice.get(url)
        seen += ids(response)
        url = response.json()["next"]
        pages += 1
        if url:
            assert url.startswith("http://testserver/api/v1/games?")
    assert pages == 3
    assert seen == made[::-1]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("status=sleeping", "status"),
        ("rules=spider", "rules"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("limit=many", "limit"),
        ("cursor=not-a-cursor", "cursor"),
        ("owner=a%00b", "owner"),
    ],
)
def test_bad_filters_are_400(api, query, field):
    response = api.get(f"/api/v1/games?{query}")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert list(response.json()["fields"]) == [field]
