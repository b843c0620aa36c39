"""Accounts over HTTP: registration, tokens and player records."""

import datetime as dt

import pytest

from games import clock
from games.pools.models import CertifiedDeal, PoolDraw
from games.writes import services
from tests.golden import WIN

pytestmark = pytest.mark.django_db


def test_register_creates_the_account_and_a_working_token(api):
    response = api.post("/api/v1/auth/register", {"username": "carol", "password": "x7-lantern-Q"})

    assert response.status_code == 201
    body = response.json()
    assert body.keys() == {"username", "token"} and body["username"] == "carol"
    assert len(body["token"]) == 40
    me = api.as_user(body["token"]).post("/api/v1/games", {"seed": 1})
    assert me.status_code == 201 and me.json()["owner"] == "carol"


def test_register_refuses_a_taken_username_with_fields(api, alice):
    response = api.post("/api/v1/auth/register", {"username": "alice", "password": "x7-lantern-Q"})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "detail": "The request is not valid; see fields.",
        "fields": {"username": ["A user with that username already exists."]},
    }


def test_register_applies_django_password_validators(api):
    response = api.post("/api/v1/auth/register", {"username": "carol", "password": "123"})

    assert response.status_code == 400
    messages = response.json()["fields"]["password"]
    assert "This password is too short. It must contain at least 8 characters." in messages
    assert "This password is entirely numeric." in messages


def test_register_refuses_a_password_like_the_username(api):
    response = api.post(
        "/api/v1/auth/register", {"username": "quixotic-heron", "password": "Quixotic-Heron"}
    )

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "password": ["The password is too similar to the username."]
    }


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"username": ["This field is required."], "password": ["This field is required."]}),
        (
            {"username": "bad name!", "password": "x7-lantern-Q"},
            {
                "username": [
                    "Enter a valid username. This value may contain only letters, numbers, and "
                    "@/./+/-/_ characters."
                ]
            },
        ),
        ({"username": 5, "password": "x7-lantern-Q"}, None),
        (
            {"username": "carol", "password": "x7-lantern-Q", "admin": True},
            {"admin": ["Unknown field."]},
        ),
    ],
)
def test_register_validates_the_body(api, body, fields):
    response = api.post("/api/v1/auth/register", body)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    if fields is not None:
        assert response.json()["fields"] == fields


def test_each_sign_in_makes_a_key_of_its_own_and_the_others_stay_valid(api, alice):
    response = api.post("/api/v1/auth/token", {"username": "alice", "password": "pw-alice-123"})

    assert response.status_code == 200
    key = response.json()["token"]
    assert key != alice[1]
    for token in (key, alice[1]):
        assert api.as_user(token).get("/api/v1/auth/me").json()["username"] == "alice"


def test_an_account_without_a_key_gets_one(api, django_user_model):
    django_user_model.objects.create_user("dave", password="pw-dave-123")

    response = api.post("/api/v1/auth/token", {"username": "dave", "password": "pw-dave-123"})

    assert response.status_code == 200
    assert api.as_user(response.json()["token"]).get("/api/v1/auth/me").status_code == 200


@pytest.mark.parametrize(
    ("username", "password"), [("alice", "wrong-password"), ("nobody", "pw-alice-123")]
)
def test_token_refuses_wrong_credentials(api, alice, username, password):
    response = api.post("/api/v1/auth/token", {"username": username, "password": password})

    assert response.status_code == 401
    assert response.json() == {
        "code": "invalid_credentials",
        "detail": "Wrong username or password.",
    }
    assert response["WWW-Authenticate"] == "Token"


def test_token_ignores_a_stale_authorization_header(api, alice):
    response = api.as_user("0" * 40).post(
        "/api/v1/auth/token", {"username": "alice", "password": "pw-alice-123"}
    )

    assert response.status_code == 200


def _play_timed(stream, user, commands, start, step):
    """Play ``commands`` on ``stream``'s game, one every ``step`` from ``start``."""
    for n, command in enumerate(commands):
        with clock.frozen(start + n * step):
            services.game_command(game_id=stream.game_id, actor=user, command=command)


def test_player_record_counts_games_and_times_wins_as_the_leaderboards_do(api, alice):
    user = alice[0]
    start = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
    with clock.frozen(start):
        won = services.game_create(owner=user, rules="classic", seed=WIN["seed"])
        services.game_create(owner=user, seed=5)
        resigned = services.game_create(owner=user, rules="wasp", seed=6)
    # The deal is looked at for an hour before the first move: a win's time starts then.
    _play_timed(won, user, WIN["actions"], start + dt.timedelta(hours=1), dt.timedelta(seconds=2))
    with clock.frozen(start + dt.timedelta(hours=2)):
        services.game_command(game_id=resigned.game_id, actor=user, command={"type": "resign"})
    fastest = (len(WIN["actions"]) - 1) * 2000

    response = api.get("/api/v1/players/alice")

    assert response.status_code == 200
    board = api.get("/api/v1/leaderboards/classic/best_time").json()["results"]
    assert board[0]["value"] == fastest  # the profile and the board agree on the same game
    assert response.json() == {
        "username": "alice",
        "played": 3,
        "finished": 2,  # the game of seed 5 is still in play: not in the win rate
        "won": 1,
        "win_rate": 0.5,
        "streak": 0,
        "best_streak": 0,
        "best_time_ms": fastest,
        "best_game": str(won.game_id),
        "daily": {
            "played": 0,
            "finished": 0,
            "won": 0,
            "win_rate": 0.0,
            "best_time_ms": None,
            "best_game": None,
        },
        "rulesets": [
            {
                "rules": "classic",
                "played": 2,
                "finished": 1,
                "won": 1,
                "win_rate": 1.0,
                "best_time_ms": fastest,
                "best_game": str(won.game_id),
                "streak": 1,
                "best_streak": 1,
            },
            {
                "rules": "wasp",
                "played": 1,
                "finished": 1,
                "won": 0,
                "win_rate": 0.0,
                "best_time_ms": None,
                "best_game": None,
                "streak": 0,
                "best_streak": 0,
            },
        ],
    }


def test_ruleset_stats_average_time_streaks_and_the_hardest_deal_won(api, alice, bob):
    user = alice[0]
    start = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
    with clock.frozen(start):
        first = services.game_create(owner=user, rules="classic", seed=WIN["seed"])
        second = services.game_create(owner=user, rules="classic", seed=WIN["seed"], public=False)
        services.game_create(owner=user, rules="classic", seed=5)  # in play: not counted
    _play_timed(first, user, WIN["actions"], start, dt.timedelta(seconds=2))
    _play_timed(second, user, WIN["actions"], start, dt.timedelta(seconds=4))
    # The second was dealt from the winnable pool, as the hardest deal there is.
    deal = CertifiedDeal.objects.create(
        rules="classic",
        index=0,
        seed=WIN["seed"],
        solution=[],
        nodes=1,
        difficulty=0.9,
        difficulty_label="hard",
        created_at=start,
    )
    PoolDraw.objects.create(player=user, deal=deal, game_id=second.game_id, drawn_at=start)
    steps = len(WIN["actions"]) - 1

    mine = api.as_user(alice[1]).get("/api/v1/players/alice/stats/classic").json()
    theirs = api.as_user(bob[1]).get("/api/v1/players/alice/stats/classic").json()

    assert mine == {
        "username": "alice",
        "rules": "classic",
        "played": 3,
        "finished": 2,
        "won": 2,
        "win_rate": 1.0,
        "streak": 2,
        "best_streak": 2,
        "average_time_ms": steps * 3000,
        "best_time_ms": steps * 2000,
        "hardest_win": {"difficulty": 0.9, "label": "hard", "game": str(second.game_id)},
    }
    assert theirs["hardest_win"] == {"difficulty": 0.9, "label": "hard", "game": None}
    empty = api.get("/api/v1/players/alice/stats/wasp").json()
    assert (empty["played"], empty["win_rate"], empty["hardest_win"]) == (0, 0.0, None)
    assert api.get("/api/v1/players/alice/stats/nosuch").json()["code"] == "not_found"
    assert api.get("/api/v1/players/nobody/stats/classic").status_code == 404


def test_a_record_links_its_best_game_only_to_those_who_may_read_it(api, alice, bob):
    user = alice[0]
    start = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
    with clock.frozen(start):
        won = services.game_create(owner=user, rules="classic", seed=WIN["seed"], public=False)
    _play_timed(won, user, WIN["actions"], start, dt.timedelta(seconds=1))

    mine = api.as_user(alice[1]).get("/api/v1/players/alice").json()
    theirs = api.as_user(bob[1]).get("/api/v1/players/alice").json()

    assert mine["best_game"] == mine["rulesets"][0]["best_game"] == str(won.game_id)
    assert theirs["best_game"] is theirs["rulesets"][0]["best_game"] is None
    assert theirs["best_time_ms"] == mine["best_time_ms"] is not None


def test_player_record_of_a_player_without_games(api, alice):
    response = api.get("/api/v1/players/alice")

    assert response.json() == {
        "username": "alice",
        "played": 0,
        "finished": 0,
        "won": 0,
        "win_rate": 0.0,
        "streak": 0,
        "best_streak": 0,
        "best_time_ms": None,
        "best_game": None,
        "daily": {
            "played": 0,
            "finished": 0,
            "won": 0,
            "win_rate": 0.0,
            "best_time_ms": None,
            "best_game": None,
        },
        "rulesets": [],
    }


@pytest.mark.parametrize("name", ["nobody", "a%00b", "%F0%9F%82%A1"])
def test_unknown_player_is_404(api, name):
    response = api.get(f"/api/v1/players/{name}")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": "Not found."}


def test_credentials_with_a_nul_character_are_400(api):
    response = api.post("/api/v1/auth/token", {"username": "a\u0000", "password": "x"})

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["username"]
