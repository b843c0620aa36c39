"""Command bodies that are none of the command shapes of docs/api.md: 400 with fields,
never a 500."""

import pytest

from games.store.models import Event
from games.writes import services

pytestmark = pytest.mark.django_db

MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}
REQUIRED = "This field is required."
NOT_INT = "A valid integer is required."


@pytest.fixture
def path(alice, sample_deal):
    game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id
    return f"/api/v1/games/{game_id}/commands"


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"type": [REQUIRED]}),
        ({"type": "fly"}, {"type": ['"fly" is not a valid choice.']}),
        ({"type": 3}, {"type": ['"3" is not a valid choice.']}),
        ({"type": "move"}, {"from": [REQUIRED], "index": [REQUIRED], "to": [REQUIRED]}),
        ({**MOVE, "from": "2"}, {"from": [NOT_INT]}),
        ({**MOVE, "index": True}, {"index": [NOT_INT]}),
        ({**MOVE, "to": 7.5}, {"to": [NOT_INT]}),
        ({**MOVE, "to": None}, {"to": ["This field may not be null."]}),
        ({**MOVE, "from": 0}, {"from": ["Ensure this value is greater than or equal to 1."]}),
        ({**MOVE, "to": 17}, {"to": ["Ensure this value is less than or equal to 16."]}),
        ({**MOVE, "index": -1}, {"index": ["Ensure this value is greater than or equal to 0."]}),
        ({**MOVE, "index": 104}, {"index": ["Ensure this value is less than or equal to 103."]}),
        ({**MOVE, "card": "1X"}, {"card": ["Not a card code (such as AS, TD or 10D)."]}),
        ({**MOVE, "card": 4}, {"card": ["Not a valid string."]}),
        (
            {**MOVE, "expected_version": 0},
            {"expected_version": ["Ensure this value is greater than or equal to 1."]},
        ),
        ({**MOVE, "expected_version": False}, {"expected_version": [NOT_INT]}),
        ({**MOVE, "speed": "fast"}, {"speed": ["Unknown field."]}),
        (
            {"type": "move", "cell": 5, "to": 1},
            {"cell": ["Ensure this value is less than or equal to 4."]},
        ),
        ({"type": "move", "cell": 1}, {"to": [REQUIRED]}),
        ({**MOVE, "cell": 1}, {"from": ["Unknown field."], "index": ["Unknown field."]}),
        ({"type": "deal", "to": 3}, {"to": ["Unknown field."]}),
        ({"type": "undo", "count": 2}, {"count": ["Unknown field."]}),
        ({"type": "resign", "expected_version": "1"}, {"expected_version": [NOT_INT]}),
    ],
)
def test_bad_bodies_are_400_with_fields(as_alice, path, body, fields):
    response = as_alice.post(path, body)

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "detail": "The request is not valid; see fields.",
        "fields": fields,
    }
    assert Event.objects.count() == 1


@pytest.mark.parametrize("raw", [b'[{"type": "deal"}]', b'"deal"', b"7", b"null"])
def test_a_body_that_is_not_an_object_is_400(as_alice, path, raw):
    response = as_alice.post(path, raw=raw)

    assert response.status_code == 400
    assert response.json()["fields"] == {"non_field_errors": ["The body must be a JSON object."]}


def test_validation_comes_before_the_owner_check(as_bob, path):
    response = as_bob.post(path, {"type": "fly"})

    assert response.status_code == 400


def test_random_bodies_never_get_a_500(as_alice, path):
    import json
    import random

    rng = random.Random(20261130)
    values = [
        None, True, False, 0, 1, -1, 7, 16, 17, 103, 104, 2**31, 2**63, 1.5, "", "2", "AS",
        "10D", "\x00", "move", [], [1], {}, {"a": 1}, "x" * 300,
    ]  # fmt: skip
    keys = ["type", "from", "index", "to", "cell", "card", "expected_version", "extra"]
    types = ["move", "deal", "undo", "restart", "resign", "fly", None, 1]
    statuses = set()
    for _ in range(150):
        body = {key: rng.choice(values) for key in rng.sample(keys, rng.randint(0, 5))}
        if rng.random() < 0.8:
            body["type"] = rng.choice(types)
        response = as_alice.post(path, raw=json.dumps(body).encode())
        assert response.status_code in (201, 400, 409, 422), (body, response.content)
        statuses.add(response.status_code)
    assert {400, 422} <= statuses
