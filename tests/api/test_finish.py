"""Auto-finish: ``GET /games/{id}/finish`` answers the solver's winning line once nothing is
hidden, only to the owner and only where a hint would not count; the line, sent as
commands, wins the game with one event a move."""

import datetime as dt

import pytest

from games import clock
from games.dailies.models import DailyChallenge
from games.writes import services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

#: The moves of WIN after which every card is face up and the reserve dealt.
READY_AT = 47


def played(game_id, user, actions):
    for command in actions:
        services.game_command(game_id=game_id, actor=user, command=command)


def test_the_finish_of_a_game_with_nothing_hidden_wins_it_move_by_move(as_alice, alice, settings):
    settings.SOLVER_WAIT_MS = 20_000  # the pool's first process starts on a loaded machine
    game = services.game_create(owner=alice[0], rules="classic", seed=WIN["seed"])
    path = f"/api/v1/games/{game.game_id}/finish"
    played(game.game_id, alice[0], WIN["actions"][: READY_AT - 1])
    early = as_alice.get(path)  # a card still face down or in the reserve
    assert early.status_code == 409 and early.json()["code"] == "finish_not_ready"
    played(game.game_id, alice[0], WIN["actions"][READY_AT - 1 : READY_AT])

    answer = as_alice.get(path)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["verdict"] == "won" and body["version"] == READY_AT + 1 and body["line"]
    for n, command in enumerate(body["line"]):
        sent = as_alice.post(
            f"/api/v1/games/{game.game_id}/commands",
            {**command, "expected_version": body["version"] + n},
        )
        assert sent.status_code == 201, sent.json()
    events = as_alice.get(f"/api/v1/games/{game.game_id}/events?limit=200").json()["results"]
    assert [e["type"] for e in events[READY_AT + 1 :]] == ["moved"] * len(body["line"])
    assert as_alice.get(f"/api/v1/games/{game.game_id}").json()["status"] == "won"
    over = as_alice.get(path)
    assert over.status_code == 409 and over.json()["code"] == "finish_not_ready"


def test_the_finish_is_the_owners_and_not_where_a_hint_counts(as_alice, as_bob, alice, api):
    game = services.game_create(owner=alice[0], rules="classic", seed=WIN["seed"])
    played(game.game_id, alice[0], WIN["actions"][:READY_AT])
    path = f"/api/v1/games/{game.game_id}/finish"
    assert as_bob.get(path).json()["code"] == "not_owner"
    assert api.get(path).status_code == 401

    today = clock.now().date()
    DailyChallenge.objects.create(
        date=today, rules="classic", seed=WIN["seed"], solution=WIN["actions"],
        difficulty="medium", created_at=clock.now() - dt.timedelta(hours=1),
    )  # fmt: skip
    daily, _ = services.challenge_join(date=today, player=alice[0])
    played(daily.game_id, alice[0], WIN["actions"][:READY_AT])
    racing = as_alice.get(f"/api/v1/games/{daily.game_id}/finish")
    assert racing.status_code == 409 and racing.json()["code"] == "finish_counts"
