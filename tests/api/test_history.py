"""A game's history: GET /games/{id}/events and GET /games/{id}/states/{version}."""

import pytest

from games import engine
from games.store import streams
from games.store.models import Event
from games.writes import services

pytestmark = pytest.mark.django_db

FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


@pytest.fixture
def played(alice, sample_deal):
    """The sample deal after the first move, the deal and an undo (version 4)."""
    user = alice[0]
    game_id = services.game_create(owner=user, deal=sample_deal).game_id
    for command in (FIRST_MOVE, {"type": "deal"}, {"type": "undo"}):
        services.game_command(game_id=game_id, actor=user, command=command)
    return str(game_id)


def test_events_in_seq_order_with_effects_and_actor(api, played):
    response = api.get(f"/api/v1/games/{played}/events")

    assert response.status_code == 200
    body = response.json()
    assert body["next"] is None
    events = body["results"]
    assert [(e["seq"], e["type"], e["by"]) for e in events] == [
        (1, "created", "alice"),
        (2, "moved", "alice"),
        (3, "dealt", "alice"),
        (4, "undone", "alice"),
    ]
    assert events[0]["data"] == {
        "rules": "classic",
        "seed": None,
        "deal": None,
        "public": True,
        "challenge": None,
        "engine": engine.ENGINE_VERSION,
    }
    assert events[1]["effects"] == {"points": 5, "flipped": [], "removed": []}
    assert events[3]["effects"]["undid"] == 3


def test_a_move_names_the_face_up_card_it_took_on_every_page(api, alice, sample_deal):
    user = alice[0]
    game_id = services.game_create(owner=user, deal=sample_deal).game_id
    moved_card = api.get(f"/api/v1/games/{game_id}").json()["columns"][1][5]
    services.game_command(game_id=game_id, actor=user, command=FIRST_MOVE)
    services.game_command(game_id=game_id, actor=user, command={"type": "resign"})

    whole = api.get(f"/api/v1/games/{game_id}/events").json()["results"]
    later = api.get(f"/api/v1/games/{game_id}/events?after=1").json()["results"]

    assert [e.get("card") for e in whole] == [None, moved_card, None]
    assert later[0]["card"] == moved_card  # the replay up to a page's start knows it too


def test_events_after_n(api, played):
    response = api.get(f"/api/v1/games/{played}/events?after=2")

    assert [event["seq"] for event in response.json()["results"]] == [3, 4]
    assert api.get(f"/api/v1/games/{played}/events?after=4").json() == {
        "results": [],
        "next": None,
    }


def test_the_created_event_shows_seed_and_deal_once_finished(api, alice, sample_deal):
    stream = services.game_create(owner=alice[0], seed=31337).stream
    path = f"/api/v1/games/{stream.game_id}/events"
    assert api.get(path).json()["results"][0]["data"]["seed"] is None

    services.game_command(game_id=stream.game_id, actor=alice[0], command={"type": "resign"})

    created = api.get(path).json()["results"][0]["data"]
    assert created["seed"] == 31337
    assert created["deal"] == [engine.card_code(card) for card in stream.state.deal]


def test_events_come_in_pages_of_1000(api, alice, sample_deal):
    user = alice[0]
    game_id = services.game_create(owner=user, deal=sample_deal).game_id
    for _ in range(1001):  # 1002 events in all
        services.game_command(game_id=game_id, actor=user, command={"type": "restart"})

    first = api.get(f"/api/v1/games/{game_id}/events").json()

    assert [first["results"][0]["seq"], first["results"][-1]["seq"]] == [1, 1000]
    assert first["next"] == f"http://testserver/api/v1/games/{game_id}/events?after=1000"
    second = api.get(first["next"].removeprefix("http://testserver")).json()
    assert [event["seq"] for event in second["results"]] == [1001, 1002]
    assert second["next"] is None


@pytest.mark.parametrize("after", ["-1", "x", "1.5"])
def test_a_bad_after_is_400(api, played, after):
    response = api.get(f"/api/v1/games/{played}/events?after={after}")

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["after"]


def test_events_of_a_private_game_follow_visibility(api, as_alice, alice):
    game_id = services.game_create(owner=alice[0], seed=1, public=False).game_id

    assert api.get(f"/api/v1/games/{game_id}/events").json()["code"] == "private_game"
    assert as_alice.get(f"/api/v1/games/{game_id}/events").status_code == 200


def test_states_replay_each_version(api, played):
    states = [api.get(f"/api/v1/games/{played}/states/{v}").json() for v in (1, 2, 3, 4)]

    assert [state["version"] for state in states] == [1, 2, 3, 4]
    assert [state["score"] for state in states] == [0, 5, 5, 5]
    assert [state["reserve"] for state in states] == [3, 3, 0, 3]
    assert states[3]["columns"] == states[1]["columns"]
    assert states[0]["columns"][1] == [None, None, None, "QH", "3C", "4H", "7S"]
    current = api.get(f"/api/v1/games/{played}").json()
    assert {**states[3], "finished_at": None} == {**current, "finished_at": None}


@pytest.mark.parametrize("version", ["0", "5", "99999999999"])
def test_a_version_outside_the_game_is_404(api, played, version):
    response = api.get(f"/api/v1/games/{played}/states/{version}")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_states_of_a_finished_game_show_every_card(api, alice, played):
    services.game_command(game_id=played, actor=alice[0], command={"type": "resign"})

    early = api.get(f"/api/v1/games/{played}/states/2").json()

    assert early["status"] == "playing"
    assert early["columns"][0][:3] == ["2S", "4S", "5S"]
    assert early["reserve_cards"] == ["6C", "TC", "KC"]


def test_staff_see_every_card_of_a_playing_game_at_any_version(as_staff, api, played):
    state = as_staff.get(f"/api/v1/games/{played}/states/3").json()
    public = api.get(f"/api/v1/games/{played}/states/3").json()

    expected = engine.player_view(streams.at_version(played, 3).state, reveal=True)
    assert state["columns"] == expected["columns"]
    assert state["reserve_cards"] == []
    assert public["columns"][0][:3] == [None, None, None]


def test_events_are_never_written_by_reading(api, played):
    before = Event.objects.count()
    api.get(f"/api/v1/games/{played}/events")
    api.get(f"/api/v1/games/{played}/states/2")
    assert Event.objects.count() == before
