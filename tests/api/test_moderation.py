"""Moderation as API clients see it: a banned player gets 403 ``banned`` and leaves the
standings and others' lists (reading stays possible); a voided result leaves the standings
and its event, with the moderator and the reason, is in the game's stream."""

import datetime as dt

import pytest

from games import clock
from games.dailies.models import DailyChallenge
from games.writes import moderation
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}
NO_EFFECTS = {"points": 0, "flipped": [], "removed": []}


@pytest.fixture(autouse=True)
def _noon():
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    with clock.frozen(NOON):
        yield


def ranked(api) -> list[str]:
    response = api.get("/api/v1/challenges/2026-11-30/standings")
    assert response.status_code == 200
    return [entry["player"] for entry in response.json()["results"]]


def listed(client) -> set[str]:
    return {game["id"] for game in client.get("/api/v1/games").json()["results"]}


def test_a_banned_player_gets_403_banned_and_leaves_standings_and_lists(
    api, alice, as_alice, as_bob, staff, as_staff, sample_deal
) -> None:
    game = as_alice.post("/api/v1/games", {"deal": sample_deal}).json()["id"]
    as_alice.post("/api/v1/challenges/today/join")
    as_bob.post("/api/v1/challenges/today/join")
    assert sorted(ranked(api)) == ["alice", "bob"]  # level: ties go by game id

    moderation.player_ban(player=alice[0], moderator=staff[0], reason="cheating")

    for path, body in (
        (f"/api/v1/games/{game}/commands", FIRST_MOVE),
        ("/api/v1/games", {"seed": 3}),
        ("/api/v1/challenges/today/join", None),
    ):
        refused = as_alice.post(path, body)
        assert refused.status_code == 403, path
        assert refused.json() == {"code": "banned", "detail": "This account is banned."}
    translated = as_alice.in_language("it").post(f"/api/v1/games/{game}/commands", FIRST_MOVE)
    assert translated.json()["code"] == "banned"
    assert translated.json()["detail"] != "This account is banned."
    assert ranked(api) == ["bob"]
    assert game not in listed(as_bob) and game not in listed(api)
    assert game in listed(as_staff) and game in listed(as_alice)
    assert as_bob.get(f"/api/v1/games/{game}").status_code == 200  # reading stays possible
    assert as_alice.get(f"/api/v1/games/{game}/events").json()["results"][0]["seq"] == 1
    assert api.get("/api/v1/players/alice").status_code == 200

    moderation.player_unban(player=alice[0], moderator=staff[0], reason="appeal")

    assert as_alice.post(f"/api/v1/games/{game}/commands", FIRST_MOVE).status_code == 201
    assert sorted(ranked(api)) == ["alice", "bob"]  # level: ties go by game id
    assert game in listed(as_bob)


def test_void_and_restore_move_a_result_out_of_and_back_into_the_standings(
    api, alice, as_alice, as_bob, staff
) -> None:
    game = as_alice.post("/api/v1/challenges/today/join").json()["id"]
    for command in WIN["actions"]:
        assert as_alice.post(f"/api/v1/games/{game}/commands", command).status_code == 201
    as_bob.post("/api/v1/challenges/today/join")
    assert ranked(api) == ["alice", "bob"]

    moderation.result_void(game_id=game, moderator=staff[0], reason="solver output")

    assert ranked(api) == ["bob"]
    events = as_alice.get(f"/api/v1/games/{game}/events?after=51").json()["results"]
    assert [(e["seq"], e["type"], e["by"], e["data"], e["effects"]) for e in events] == [
        (52, "result_voided", "root", {"reason": "solver output"}, NO_EFFECTS)
    ]
    body = as_alice.get(f"/api/v1/games/{game}").json()
    assert body["version"] == 52 and body["status"] == "won"
    assert api.get("/api/v1/players/alice").json()["won"] == 0

    moderation.result_restore(game_id=game, moderator=staff[0], reason="false alarm")

    assert ranked(api) == ["alice", "bob"]
    last = as_alice.get(f"/api/v1/games/{game}/events?after=52").json()["results"]
    assert [(e["seq"], e["type"], e["by"], e["data"], e["effects"]) for e in last] == [
        (53, "result_restored", "root", {"reason": "false alarm"}, NO_EFFECTS)
    ]
    assert api.get("/api/v1/players/alice").json()["won"] == 1
