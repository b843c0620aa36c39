"""Live now and TV: public games in play, with an ETag, and nothing that must stay hidden."""

import datetime as dt

import pytest

from games import clock
from games.dailies.models import DailyChallenge
from games.store.models import Player
from games.writes import services

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


def test_live_lists_public_games_moved_lately_latest_first(api, alice, bob, sample_deal):
    with clock.frozen(NOW - dt.timedelta(hours=1)):
        services.game_create(owner=alice[0], seed=1)  # left in play an hour ago
    with clock.frozen(NOW - dt.timedelta(minutes=2)):
        older = services.game_create(owner=alice[0], seed=2)
        services.game_create(owner=alice[0], seed=3, public=False)
        finished = services.game_create(owner=bob[0], seed=4)
        services.game_command(game_id=finished.game_id, actor=bob[0], command={"type": "resign"})
        DailyChallenge.objects.create(date=NOW.date(), rules="classic", seed=9, created_at=NOW)
        services.challenge_join(date=NOW.date(), player=bob[0])
    with clock.frozen(NOW - dt.timedelta(minutes=1)):
        newer = services.game_create(owner=bob[0], deal=sample_deal)

    with clock.frozen(NOW):
        body = api.get("/api/v1/games/live").json()

    assert [g["id"] for g in body["results"]] == [str(newer.game_id), str(older.game_id)]
    # Each game exactly as reading it shows it: a playing game's face-down cards stay hidden.
    for game in body["results"]:
        assert game == api.get(f"/api/v1/games/{game['id']}").json()
        assert game["seed"] is None and None in game["columns"][0]


def test_live_answers_304_until_a_game_moves(api, alice, sample_deal):
    with clock.frozen(NOW):
        game = services.game_create(owner=alice[0], deal=sample_deal)
        first = api.get("/api/v1/games/live")
        etag = first["ETag"]
        again = api.get("/api/v1/games/live", headers={"If-None-Match": etag})
        services.game_command(game_id=game.game_id, actor=alice[0], command=MOVE)
        moved = api.get("/api/v1/games/live", headers={"If-None-Match": etag})

    assert first.status_code == 200 and again.status_code == 304 and again.content == b""
    assert moved.status_code == 200 and moved["ETag"] != etag
    assert moved.json()["results"][0]["version"] == 2
    assert "Authorization" in moved["Vary"]


def test_a_banned_players_games_are_not_live(api, alice, bob):
    with clock.frozen(NOW):
        services.game_create(owner=alice[0], seed=1)
        Player.objects.create(user=alice[0], banned=True)
        assert api.get("/api/v1/games/live").json()["results"] == []
        assert api.get("/api/v1/tv").json() == {"game": None}


def test_tv_picks_the_longest_live_game(api, alice, bob, sample_deal):
    with clock.frozen(NOW - dt.timedelta(minutes=3)):
        longer = services.game_create(owner=alice[0], deal=sample_deal)
        services.game_command(game_id=longer.game_id, actor=alice[0], command=MOVE)
    with clock.frozen(NOW - dt.timedelta(minutes=1)):
        services.game_create(owner=bob[0], seed=5)  # newer, but no move yet

    with clock.frozen(NOW):
        tv = api.get("/api/v1/tv")
        unchanged = api.get("/api/v1/tv", headers={"If-None-Match": tv["ETag"]})
    with clock.frozen(NOW + dt.timedelta(hours=1)):  # both left in play: nothing is live
        later = api.get("/api/v1/tv")

    assert tv.json()["game"]["id"] == str(longer.game_id)
    assert tv.json()["game"]["seed"] is None  # a playing game's secrets stay hidden
    assert unchanged.status_code == 304
    assert later.json() == {"game": None}


def test_live_checks_its_limit(api):
    response = api.get("/api/v1/games/live?limit=0")

    assert response.status_code == 400 and "limit" in response.json()["fields"]
