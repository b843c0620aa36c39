"""Guests: a visitor plays at once with no account, under a guest named by a signed cookie
(docs/api.md#guests). Guest games are real games; guests are never rated, never in a
contest, never on a board; they are counted per address; signing up makes the guest the
account, games and all; an idle guest is closed, its games kept under its pseudonym."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.core import signing

from api.views.accounts import GUEST_COOKIE
from games import clock
from games.dailies import challenges as dailies
from games.dailies import contests
from games.store.models import Account, Game, PublicLogEntry
from games.writes import accounts, public_log, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2030, 6, 1, 12, 0, tzinfo=dt.UTC)


def win(owner) -> str:
    """A won classic game of ``owner`` (the golden win of seed 0)."""
    game = services.game_create(owner=owner, rules="classic", seed=WIN["seed"])
    for command in WIN["actions"]:
        services.game_command(game_id=game.game_id, actor=owner, command=command)
    return str(game.game_id)


def play_as_guest(api) -> tuple[dict, str]:
    """A guest's answer and its cookie, as a browser keeps it."""
    response = api.post("/api/v1/auth/guest")
    assert response.status_code in (200, 201), response.content
    return response.json(), response.cookies[GUEST_COOKIE].value


def test_a_visitor_gets_a_guest_that_plays_real_games(api):
    body, cookie = play_as_guest(api)

    assert body["username"].startswith("guest-") and len(body["token"]) == 40
    guest = api.as_user(body["token"])
    me = guest.get("/api/v1/auth/me").json()
    assert me["guest"] is True and me["email"] is None
    game = guest.post("/api/v1/games", {"rules": "classic", "seed": 12345}).json()
    move = {"type": "move", "from": 1, "index": 4, "to": 7, "expected_version": 1}
    assert guest.post(f"/api/v1/games/{game['id']}/commands", move).status_code == 201
    events = api.get(f"/api/v1/games/{game['id']}/events").json()["results"]
    assert [e["type"] for e in events] == ["created", "moved"]
    assert [e["by"] for e in events] == [body["username"]] * 2
    cookies = api.client.cookies[GUEST_COOKIE]
    assert cookies["httponly"] and cookies["samesite"] == "Strict"
    assert cookies["path"] == "/api/v1/auth/"
    assert body["username"] not in cookie  # signed, naming the guest by id only


def test_the_cookie_brings_back_the_same_guest_and_a_forged_one_a_new_guest(api):
    first, _ = play_as_guest(api)
    again = api.post("/api/v1/auth/guest")
    assert again.status_code == 200 and again.json()["username"] == first["username"]

    user = get_user_model().objects.get(username=first["username"])
    api.client.cookies[GUEST_COOKIE] = signing.Signer(salt="other").sign(str(user.pk))
    forged = api.post("/api/v1/auth/guest")
    assert forged.status_code == 201 and forged.json()["username"] != first["username"]


def test_a_guest_is_never_rated_nor_in_a_contest(api, settings):
    body, _ = play_as_guest(api)
    guest = api.as_user(body["token"])
    dailies.prepare(dailies.today())
    race = contests.race_create(
        creator=get_user_model().objects.create_user("host"),
        rules="classic",
        deals=1,
        starts_at=clock.now() + dt.timedelta(minutes=5),
        time_limit=dt.timedelta(minutes=5),
        public=True,
    )
    arena = contests.arena_create(
        rules="classic",
        starts_at=clock.now() - dt.timedelta(hours=1),
        ends_at=clock.now() + dt.timedelta(hours=1),
    )

    refusals = [
        guest.post("/api/v1/games", {"rules": "classic", "rated": True}),
        guest.post("/api/v1/challenges/today/join"),
        guest.post("/api/v1/races", {"countdown": 60, "time_limit": 60}),
        guest.post(f"/api/v1/races/{race.code}/join"),
        guest.post(f"/api/v1/arenas/{arena.id}/play"),
        guest.post("/api/v1/auth/email", {"email": "guest@example.com"}),
    ]

    assert [(r.status_code, r.json()["code"]) for r in refusals] == [
        (403, "account_required")
    ] * len(refusals)
    assert not Game.objects.filter(owner__username=body["username"]).exists()


def test_a_guests_wins_are_on_no_board_until_it_signs_up(api, alice):
    body, _ = play_as_guest(api)
    guest = get_user_model().objects.get(username=body["username"])
    for owner in (guest, alice[0]):
        win(owner)

    board = api.get("/api/v1/leaderboards/classic/wins?period=all").json()
    assert [row["player"] for row in board["results"]] == ["alice"]
    signed_up = api.post(
        "/api/v1/auth/register", {"username": "newcomer", "password": "x7-lantern-Q"}
    )
    assert signed_up.status_code == 201
    board = api.get("/api/v1/leaderboards/classic/wins?period=all").json()
    assert sorted(row["player"] for row in board["results"]) == ["alice", "newcomer"]


def test_signing_up_makes_the_guest_the_account_with_its_games(api):
    body, _ = play_as_guest(api)
    guest = api.as_user(body["token"])
    game = guest.post("/api/v1/games", {"rules": "classic", "seed": 7}).json()
    pseudonym = Account.objects.get(user__username=body["username"]).pseudonym

    response = api.post("/api/v1/auth/register", {"username": "carol", "password": "x7-lantern-Q"})

    assert response.status_code == 201 and response.json()["username"] == "carol"
    assert response.cookies[GUEST_COOKIE].value == ""  # the cookie is gone
    assert guest.get("/api/v1/auth/me").status_code == 401  # the guest's key is revoked
    carol = api.as_user(response.json()["token"])
    me = carol.get("/api/v1/auth/me").json()
    assert me["guest"] is False and me["record"]["played"] == 1
    assert api.get(f"/api/v1/games/{game['id']}").json()["owner"] == "carol"
    assert Account.objects.get(user__username="carol").pseudonym == pseudonym
    events = api.get(f"/api/v1/games/{game['id']}/events").json()["results"]
    assert {e["by"] for e in events} == {"carol"}
    # Without the cookie, a sign-up is a new account.
    api.client.cookies.clear()
    other = api.post("/api/v1/auth/register", {"username": "dave", "password": "x7-lantern-Q"})
    assert other.status_code == 201
    assert api.as_user(other.json()["token"]).get("/api/v1/auth/me").json()["record"]["played"] == 0


def test_names_of_guests_and_pseudonyms_are_not_for_registering(api):
    for name in ("guest-0123456789ab", "GUEST-0123456789AB", "p-0123456789abcdef"):
        response = api.post("/api/v1/auth/register", {"username": name, "password": "x7-lantern-Q"})
        assert response.status_code == 400, name
        assert response.json()["fields"]["username"] == [
            "This name is kept for guests and closed accounts: choose another."
        ]
    near = api.post("/api/v1/auth/register", {"username": "guest-42", "password": "x7-lantern-Q"})
    assert near.status_code == 201


def test_new_guests_and_guests_requests_are_counted_per_address(api, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "guest": "2/minute",
            "anon": "8/minute",
        },
    }
    from django.core.cache import cache

    cache.clear()
    made = [api.post("/api/v1/auth/guest") for _ in range(3)]
    assert [r.status_code for r in made] == [201, 200, 429]
    assert made[2].json()["code"] == "throttled" and "Retry-After" in made[2]
    token = made[0].json()["token"]
    # The guest's own requests count with the address's anonymous ones (3 so far).
    statuses = [api.as_user(token).get("/api/v1/rules").status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    cache.clear()


def test_an_idle_guest_is_closed_and_its_games_kept_under_its_pseudonym(api, settings):
    with clock.frozen(T0):
        idle, _ = play_as_guest(api)
        api.client.cookies.clear()
        empty, _ = play_as_guest(api)
        api.client.cookies.clear()
        active, _ = play_as_guest(api)
        game = api.as_user(idle["token"]).post("/api/v1/games", {"seed": 3}).json()
        api.as_user(idle["token"]).post(f"/api/v1/games/{game['id']}/commands", {"type": "resign"})
        public_log.public_log_write()
        logged = PublicLogEntry.objects.get(game_id=game["id"]).notation
    pseudonym = Account.objects.get(user__username=idle["username"]).pseudonym
    with clock.frozen(T0 + dt.timedelta(days=29)):
        api.as_user(active["token"]).get("/api/v1/auth/me")  # used: the key's last use moves on
    with clock.frozen(T0 + dt.timedelta(days=30, minutes=1)):
        assert accounts.guests_expire() == accounts.Expired(closed=1, deleted=1)
        assert accounts.guests_expire() == accounts.Expired(closed=0, deleted=0)

    users = get_user_model().objects
    assert not users.filter(username=empty["username"]).exists()  # nothing to keep
    assert users.filter(username=active["username"], is_active=True).exists()
    closed = api.get(f"/api/v1/games/{game['id']}").json()
    assert closed["owner"] == pseudonym and closed["status"] == "resigned"
    assert api.get(f"/api/v1/players/{idle['username']}").status_code == 404
    assert PublicLogEntry.objects.get(game_id=game["id"]).notation == logged
    assert pseudonym in logged and idle["username"] not in logged
