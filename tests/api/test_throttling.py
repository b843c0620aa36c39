"""Rate limits: 429 with Retry-After once a client goes over its rate."""

import copy

import pytest
from django.conf import settings as django_settings

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    """Set throttle rates for one test: ``rates(anon="2/minute")``."""

    def set_rates(**scopes: str) -> None:
        framework = copy.deepcopy(django_settings.REST_FRAMEWORK)
        framework["DEFAULT_THROTTLE_RATES"].update(scopes)
        settings.REST_FRAMEWORK = framework

    return set_rates


def assert_throttled(response) -> None:
    assert response.status_code == 429
    assert response.json() == {"code": "throttled", "detail": "Too many requests; try again later."}
    assert 1 <= int(response["Retry-After"]) <= 60


def test_anonymous_clients_are_throttled_per_address(api, rates):
    rates(anon="3/minute")

    answers = [api.get("/api/v1/rules").status_code for _ in range(3)]
    assert answers == [200, 200, 200]
    assert_throttled(api.get("/api/v1/rules"))


def test_players_are_throttled_per_account(as_alice, as_bob, rates):
    rates(user="2/minute")

    assert as_alice.get("/api/v1/rules").status_code == 200
    assert as_alice.get("/api/v1/rules").status_code == 200
    assert_throttled(as_alice.get("/api/v1/rules"))
    assert as_bob.get("/api/v1/rules").status_code == 200


def test_registration_and_tokens_share_a_low_rate_per_address(api, alice, rates):
    rates(auth="2/minute")

    register = api.post("/api/v1/auth/register", {"username": "carol", "password": "x7-lantern-Q"})
    token = api.post("/api/v1/auth/token", {"username": "alice", "password": "pw-alice-123"})
    assert (register.status_code, token.status_code) == (201, 200)
    assert_throttled(api.post("/api/v1/auth/token", {"username": "alice", "password": "x"}))
    assert api.get("/api/v1/rules").status_code == 200  # other endpoints are not affected


def test_a_throttled_command_appends_nothing(as_alice, alice, rates):
    from games.store.models import Event
    from games.writes import services

    game_id = services.game_create(owner=alice[0], seed=1).game_id
    rates(user="1/minute")
    as_alice.get(f"/api/v1/games/{game_id}")

    assert_throttled(as_alice.post(f"/api/v1/games/{game_id}/commands", {"type": "deal"}))
    assert Event.objects.filter(game_id=game_id).count() == 1


def test_forwarded_for_headers_do_not_dodge_the_limit(api, rates):
    rates(anon="1/minute")

    assert api.get("/api/v1/rules", headers={"X-Forwarded-For": "10.0.0.1"}).status_code == 200
    assert_throttled(api.get("/api/v1/rules", headers={"X-Forwarded-For": "10.0.0.2"}))


def test_a_broken_cache_lets_requests_through(api, rates, monkeypatch):
    from django.core.cache import cache

    rates(anon="1/minute")

    def down(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(cache, "get", down)

    assert [api.get("/api/v1/rules").status_code for _ in range(3)] == [200, 200, 200]
