"""POST /games: rulesets, seeds, deals, visibility, and the validation of the body."""

import pytest

from games import engine
from games.store.models import Event, Game

pytestmark = pytest.mark.django_db


def test_create_from_a_seed_answers_the_masked_game(as_alice):
    response = as_alice.post("/api/v1/games", {"rules": "classic", "seed": 12345})

    assert response.status_code == 201
    game = response.json()
    assert response["Location"] == f"/api/v1/games/{game['id']}"
    assert response["ETag"] == '"1"'
    assert {key: game[key] for key in game if key not in ("id", "columns", "created_at")} == {
        "rules": "classic",
        "seed": None,
        "owner": "alice",
        "public": True,
        "version": 1,
        "status": "playing",
        "blocked": False,
        "score": 0,
        "moves": 0,
        "undos": 0,
        "reserve": 3,
        "removed": [],
        "challenge": None,
        "finished_at": None,
        "rated": False,
    }
    deal = [engine.card_code(card) for card in engine.seeded_deal(engine.DEFAULT_RULES, 12345)]
    assert game["columns"][0] == [None, None, None, *deal[3:7]]
    assert game["columns"][6] == deal[42:49]
    assert game["created_at"].endswith("Z")
    assert Event.objects.get(game_id=game["id"]).data["seed"] == 12345


def test_create_with_no_body_takes_the_defaults_and_a_random_seed(as_alice):
    response = as_alice.post("/api/v1/games")

    assert response.status_code == 201
    game = Game.objects.get(id=response.json()["id"])
    assert (game.rules, game.public) == ("classic", True)
    assert 0 <= game.seed <= engine.MAX_SEED


@pytest.mark.parametrize("rules", list(engine.RULESETS))
def test_create_every_ruleset(as_alice, rules):
    response = as_alice.post("/api/v1/games", {"rules": rules, "seed": 7, "public": False})

    assert response.status_code == 201
    game = response.json()
    ruleset = engine.RULESETS[rules]
    assert (game["rules"], game["public"]) == (rules, False)
    assert len(game["columns"]) == ruleset.column_count
    assert game["reserve"] == ruleset.reserve_size
    assert ("cells" in game) == bool(ruleset.cells)


def test_create_from_a_deal(as_alice, sample_deal):
    response = as_alice.post("/api/v1/games", {"deal": sample_deal})

    assert response.status_code == 201
    game = response.json()
    assert game["seed"] is None
    assert game["columns"][1] == [None, None, None, "QH", "3C", "4H", "7S"]


def test_create_accepts_ten_as_10(as_alice, sample_deal):
    deal = ["10" + code[1] if code[0] == "T" else code.lower() for code in sample_deal]

    response = as_alice.post("/api/v1/games", {"deal": deal})

    assert response.status_code == 201
    assert Event.objects.get(game_id=response.json()["id"]).data["deal"] == sample_deal


def test_create_needs_authentication(api):
    response = api.post("/api/v1/games", {"seed": 1})

    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "detail": "Authentication is required: send Authorization: Token <key>.",
    }
    assert response["WWW-Authenticate"] == "Token"


def test_a_bad_token_is_401_authentication_failed(api):
    response = api.as_user("f" * 40).post("/api/v1/games", {"seed": 1})

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"rules": "spider"}, {"rules": ['"spider" is not a valid choice.']}),
        ({"seed": -1}, {"seed": ["Ensure this value is greater than or equal to 0."]}),
        (
            {"seed": 2**53},
            {"seed": [f"Ensure this value is less than or equal to {2**53 - 1}."]},
        ),
        ({"seed": "12"}, {"seed": ["A valid integer is required."]}),
        ({"seed": True}, {"seed": ["A valid integer is required."]}),
        ({"seed": 1.5}, {"seed": ["A valid integer is required."]}),
        ({"public": "yes"}, {"public": ["Must be a valid boolean."]}),
        ({"public": 1}, {"public": ["Must be a valid boolean."]}),
        ({"deal": "AS 2S"}, {"deal": ['Expected a list of items but got type "str".']}),
        ({"deal": ["AS", "ZZ"]}, {"deal": ["1: Not a card code (such as AS, TD or 10D)."]}),
        ({"deal": ["AS", 5]}, {"deal": ["1: Not a valid string."]}),
        ({"colour": "red"}, {"colour": ["Unknown field."]}),
        ({"seed": 1, "deal": ["AS"]}, {"non_field_errors": ["Give a seed or a deal, not both."]}),
    ],
)
def test_create_refuses_a_bad_body_with_fields(as_alice, body, fields):
    response = as_alice.post("/api/v1/games", body)

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "detail": "The request is not valid; see fields.",
        "fields": fields,
    }
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda deal: deal[:-1], "a classic deal has 52 cards, not 51"),
        (
            lambda deal: [*deal[:-1], deal[0]],
            "every card must appear 1 time(s); wrong count: 2S, KC",
        ),
    ],
)
def test_create_refuses_an_incomplete_deck(as_alice, sample_deal, mangle, message):
    response = as_alice.post("/api/v1/games", {"deal": mangle(sample_deal)})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["fields"] == {"deal": [message]}


def test_create_refuses_a_body_that_is_not_an_object(as_alice):
    response = as_alice.post("/api/v1/games", [1, 2])

    assert response.status_code == 400
    assert response.json()["fields"] == {"non_field_errors": ["The body must be a JSON object."]}


def test_random_bodies_never_get_a_500(as_alice, sample_deal):
    import json
    import random

    rng = random.Random(1130)
    values = [
        None, True, 0, -1, 2**53, 2**64, 1.5, "", "classic", "double", "AS", [], ["AS"],
        sample_deal, [*sample_deal, "AS"], {}, "x" * 200,
    ]  # fmt: skip
    keys = ["rules", "seed", "deal", "public", "extra"]
    for _ in range(60):
        body = {key: rng.choice(values) for key in rng.sample(keys, rng.randint(0, 4))}
        response = as_alice.post("/api/v1/games", raw=json.dumps(body).encode())
        assert response.status_code in (201, 400), (body, response.content)
