"""Idempotency-Key over HTTP: a retry returns the first answer and appends nothing."""

import pytest

from games.store.models import Event
from games.writes import services

pytestmark = pytest.mark.django_db

FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


@pytest.fixture
def path(alice, sample_deal):
    game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id
    return f"/api/v1/games/{game_id}/commands"


def count_events() -> int:
    return Event.objects.count()


def test_a_retry_answers_the_same_status_and_body_and_appends_nothing(as_alice, path):
    key = {"Idempotency-Key": "move-1"}
    first = as_alice.post(path, FIRST_MOVE, headers=key)
    events = count_events()

    again = as_alice.post(path, FIRST_MOVE, headers=key)

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert count_events() == events


def test_a_late_retry_still_answers_the_first_answer(as_alice, path):
    key = {"Idempotency-Key": "move-1"}
    first = as_alice.post(path, FIRST_MOVE, headers=key)
    as_alice.post(path, {"type": "deal"})

    later = as_alice.post(path, FIRST_MOVE, headers=key)

    assert later.status_code == 201
    assert later.json() == first.json()
    assert later.json()["game"]["version"] == 2


def test_the_same_key_with_another_body_is_422(as_alice, path):
    as_alice.post(path, FIRST_MOVE, headers={"Idempotency-Key": "k"})
    events = count_events()

    for other in ({"type": "deal"}, {**FIRST_MOVE, "expected_version": 1}):
        response = as_alice.post(path, other, headers={"Idempotency-Key": "k"})
        assert response.status_code == 422
        assert response.json() == {
            "code": "idempotency_key_reused",
            "detail": "This Idempotency-Key was already used for a different request.",
        }
    assert count_events() == events


def test_the_same_card_spelt_differently_is_the_same_request(as_alice, path):
    first = as_alice.post(path, {**FIRST_MOVE, "card": "4H"}, headers={"Idempotency-Key": "c"})
    again = as_alice.post(path, {**FIRST_MOVE, "card": "4h"}, headers={"Idempotency-Key": "c"})

    assert again.json() == first.json()


def test_keys_are_per_game(as_alice, alice, path, sample_deal):
    other = services.game_create(owner=alice[0], deal=sample_deal).game_id
    as_alice.post(path, FIRST_MOVE, headers={"Idempotency-Key": "same"})

    response = as_alice.post(
        f"/api/v1/games/{other}/commands", FIRST_MOVE, headers={"Idempotency-Key": "same"}
    )

    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response


def test_a_refused_command_leaves_its_key_unused(as_alice, path):
    refused = as_alice.post(path, {**FIRST_MOVE, "to": 1}, headers={"Idempotency-Key": "r"})
    assert refused.status_code == 422

    retried = as_alice.post(path, {**FIRST_MOVE, "to": 1}, headers={"Idempotency-Key": "r"})
    assert retried.status_code == 422 and retried.json()["code"] == "wrong_rank"
    assert count_events() == 1


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_malformed_key_is_400(as_alice, path, key):
    response = as_alice.post(path, FIRST_MOVE, headers={"Idempotency-Key": key})

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "Idempotency-Key": ["Must be 1 to 255 printable ASCII characters."]
    }
    assert count_events() == 1


def test_a_255_character_key_is_fine(as_alice, path):
    response = as_alice.post(path, FIRST_MOVE, headers={"Idempotency-Key": "~" * 255})

    assert response.status_code == 201
