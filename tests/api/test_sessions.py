"""Sessions that end: who a key is, signing out, password changes, the account's keys and
their sliding expiry (docs/api.md#accounts)."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model

from games import clock
from games.store.models import ApiKey
from games.writes import accounts, moderation

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2030, 6, 1, 12, 0, tzinfo=dt.UTC)


def sign_in(api, name: str, agent: str = "test-agent") -> str:
    response = api.post(
        "/api/v1/auth/token",
        {"username": name, "password": f"pw-{name}-123"},
        headers={"User-Agent": agent},
    )
    assert response.status_code == 200
    return response.json()["token"]


def refused(api, token: str) -> bool:
    response = api.as_user(token).get("/api/v1/auth/me")
    if response.status_code == 401:
        assert response.json()["code"] == "authentication_failed"
        return True
    assert response.status_code == 200
    return False


def test_me_names_the_account_its_key_and_its_record(api, alice):
    me = api.as_user(alice[1]).get("/api/v1/auth/me")

    assert me.status_code == 200
    body = me.json()
    assert body["username"] == "alice" and body["staff"] is False and body["banned"] is False
    assert body["key"]["current"] is True and body["key"]["prefix"] == alice[1][:8]
    assert body["record"] == api.get("/api/v1/players/alice").json()
    assert alice[1] not in me.content.decode()  # the key itself is never shown


def test_me_shows_a_ban_and_needs_credentials(api, alice, player):
    staff, _ = player("mod", is_staff=True)
    moderation.player_ban(player=alice[0], moderator=staff, reason="bot")

    assert api.as_user(alice[1]).get("/api/v1/auth/me").json()["banned"] is True
    anonymous = api.get("/api/v1/auth/me")
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "not_authenticated"


def test_me_with_the_session_cookie_has_no_key(api, alice):
    api.client.force_login(alice[0])

    body = api.get("/api/v1/auth/me").json()

    assert body["username"] == "alice" and body["key"] is None


def test_sign_out_revokes_only_the_key_it_is_sent_with(api, alice):
    other = sign_in(api, "alice")

    response = api.as_user(alice[1]).delete("/api/v1/auth/token")

    assert response.status_code == 204
    assert refused(api, alice[1])
    assert not refused(api, other)
    again = api.as_user(alice[1]).delete("/api/v1/auth/token")
    assert again.status_code == 401


def test_sign_out_with_the_session_cookie_ends_the_session(api, alice):
    api.client.force_login(alice[0])

    assert api.delete("/api/v1/auth/token").status_code == 204
    assert api.get("/api/v1/auth/me").status_code == 401
    assert not refused(api, alice[1])  # the account's keys are another matter


def test_a_password_change_revokes_every_key_and_answers_a_new_one(api, alice, django_user_model):
    other = sign_in(api, "alice")

    response = api.as_user(alice[1]).post(
        "/api/v1/auth/password", {"password": "pw-alice-123", "new_password": "n3w-Lantern-x"}
    )

    assert response.status_code == 200
    new = response.json()["token"]
    assert refused(api, alice[1]) and refused(api, other) and not refused(api, new)
    assert django_user_model.objects.get(username="alice").check_password("n3w-Lantern-x")
    keys = api.as_user(new).get("/api/v1/auth/keys").json()["results"]
    assert [key["current"] for key in keys] == [True]


def test_a_password_change_ends_the_sessions_of_the_account(api, alice):
    api.client.force_login(alice[0])

    changed = api.post(
        "/api/v1/auth/password", {"password": "pw-alice-123", "new_password": "n3w-Lantern-x"}
    )

    assert changed.status_code == 200
    assert api.get("/api/v1/auth/me").status_code == 401


def test_a_password_change_needs_the_current_password(api, alice):
    response = api.as_user(alice[1]).post(
        "/api/v1/auth/password", {"password": "wrong-one-123", "new_password": "n3w-Lantern-x"}
    )

    assert response.status_code == 403
    assert response.json() == {"code": "wrong_password", "detail": "The current password is wrong."}
    assert not refused(api, alice[1])
    italian = (
        api.as_user(alice[1])
        .in_language("it")
        .post(
            "/api/v1/auth/password", {"password": "wrong-one-123", "new_password": "n3w-Lantern-x"}
        )
    )
    assert italian.json()["detail"] == "La password attuale è errata."


def test_a_new_password_passes_the_validators(api, alice):
    response = api.as_user(alice[1]).post(
        "/api/v1/auth/password", {"password": "pw-alice-123", "new_password": "123"}
    )

    assert response.status_code == 400
    assert "This password is entirely numeric." in response.json()["fields"]["new_password"]
    assert not refused(api, alice[1])


def test_the_key_list_says_when_and_where_each_key_was_used(api, alice):
    with clock.frozen(T0):
        first = sign_in(api, "alice", agent="bot/1.0 " + "x" * 300)
    with clock.frozen(T0 + dt.timedelta(minutes=5)):
        second = sign_in(api, "alice", agent="browser")
        body = api.as_user(second).get("/api/v1/auth/keys").json()

    keys = body["results"]
    assert [key["prefix"] for key in keys] == [second[:8], first[:8], alice[1][:8]]
    assert [key["current"] for key in keys] == [True, False, False]
    assert keys[1]["last_user_agent"] == ("bot/1.0 " + "x" * 300)[:200]
    assert keys[1]["last_address"] == "127.0.0.1"
    assert keys[1]["last_used_at"] == "2030-06-01T12:00:00.000Z"
    assert keys[1]["expires_at"] == "2030-07-01T12:00:00.000Z"  # 30 days unused


def test_any_key_of_the_account_can_be_revoked_but_no_one_elses(api, alice, bob):
    other = sign_in(api, "alice")
    keys = api.as_user(alice[1]).get("/api/v1/auth/keys").json()["results"]
    other_id = next(key["id"] for key in keys if key["prefix"] == other[:8])

    assert api.as_user(bob[1]).delete(f"/api/v1/auth/keys/{other_id}").status_code == 404
    assert not refused(api, other)
    assert api.as_user(alice[1]).delete(f"/api/v1/auth/keys/{other_id}").status_code == 204
    assert refused(api, other) and not refused(api, alice[1])
    for unknown in (other_id, 0, 2**64):
        gone = api.as_user(alice[1]).delete(f"/api/v1/auth/keys/{unknown}")
        assert gone.status_code == 404 and gone.json()["code"] == "not_found"


def test_a_key_expires_when_unused_for_its_lifetime_and_use_moves_it_on(api, alice, settings):
    settings.KEY_LIFETIME_SECONDS = 3600
    with clock.frozen(T0):
        key = sign_in(api, "alice")
    for minutes in (50, 100, 150):  # each use within the hour keeps it alive
        with clock.frozen(T0 + dt.timedelta(minutes=minutes)):
            assert not refused(api, key)
    with clock.frozen(T0 + dt.timedelta(minutes=150 + 60)):
        assert refused(api, key)
    with clock.frozen(T0 + dt.timedelta(minutes=150)):  # gone for good, not only late
        assert refused(api, key)


def test_keys_never_expire_with_a_lifetime_of_zero(api, alice, settings):
    settings.KEY_LIFETIME_SECONDS = 0
    with clock.frozen(T0):
        key = sign_in(api, "alice")
    with clock.frozen(T0 + dt.timedelta(days=3650)):
        assert not refused(api, key)
        assert api.as_user(key).get("/api/v1/auth/me").json()["key"]["expires_at"] is None


def test_the_last_use_is_written_at_most_once_a_minute(api, alice, django_assert_num_queries):
    with clock.frozen(T0):
        key = sign_in(api, "alice")
    row = ApiKey.objects.get(prefix=key[:8])
    with clock.frozen(T0 + dt.timedelta(seconds=59)):
        api.as_user(key).get("/api/v1/rules")
    assert ApiKey.objects.get(pk=row.pk).last_used_at == T0
    with clock.frozen(T0 + dt.timedelta(seconds=61)):
        api.as_user(key).get("/api/v1/rules", headers={"User-Agent": "later"})
    touched = ApiKey.objects.get(pk=row.pk)
    assert touched.last_used_at == T0 + dt.timedelta(seconds=61)
    assert touched.last_user_agent == "later"
    with clock.frozen(T0 + dt.timedelta(seconds=90)), django_assert_num_queries(1):
        api.as_user(key).get("/api/v1/rules")  # one read of the key, no write


def test_an_account_keeps_its_most_recently_used_keys(api, alice, settings):
    settings.KEYS_PER_ACCOUNT = 2
    with clock.frozen(T0 + dt.timedelta(minutes=1)):
        second = sign_in(api, "alice")
    with clock.frozen(T0 + dt.timedelta(minutes=2)):
        third = sign_in(api, "alice")

    assert refused(api, alice[1])
    assert not refused(api, second) and not refused(api, third)


def test_a_deactivated_account_is_refused_at_once(api, alice):
    assert not refused(api, alice[1])
    get_user_model().objects.filter(pk=alice[0].pk).update(is_active=False)

    assert refused(api, alice[1])


def test_keys_are_stored_as_digests(alice):
    assert not ApiKey.objects.filter(digest=alice[1]).exists()
    assert ApiKey.objects.filter(prefix=alice[1][:8]).count() == 1


def ticket_of(api, token: str) -> str:
    response = api.as_user(token).post("/api/v1/auth/ws-ticket")
    assert response.status_code == 201 and response.json()["expires_in"] == 30
    return response.json()["ticket"]


def test_a_ticket_opens_one_socket_for_its_account_once(api, alice):
    ticket = ticket_of(api, alice[1])

    taken = accounts.ws_ticket_take(ticket=ticket)
    assert taken is not None and taken[0] == alice[0]
    assert accounts.ws_ticket_take(ticket=ticket) is None


def test_a_ticket_expires_and_dies_with_its_key(api, alice, settings):
    with clock.frozen(T0):
        late = ticket_of(api, sign_in(api, "alice"))
    with clock.frozen(T0 + dt.timedelta(seconds=settings.WS_TICKET_SECONDS)):
        assert accounts.ws_ticket_take(ticket=late) is None
    orphan = ticket_of(api, alice[1])
    api.as_user(alice[1]).delete("/api/v1/auth/token")
    assert accounts.ws_ticket_take(ticket=orphan) is None


def test_a_ticket_of_a_deactivated_account_opens_nothing(api, alice):
    ticket = ticket_of(api, alice[1])
    get_user_model().objects.filter(pk=alice[0].pk).update(is_active=False)

    assert accounts.ws_ticket_take(ticket=ticket) is None
    assert api.post("/api/v1/auth/ws-ticket").status_code == 401  # and no ticket anonymously


def test_signing_out_everywhere_ends_every_key_ticket_and_session(api, alice, bob):
    other = sign_in(api, "alice")
    ticket = accounts.ws_ticket_issue(user=alice[0], key_id=None)
    api.client.force_login(alice[0])

    response = api.as_user(other).delete("/api/v1/auth/keys")

    assert response.status_code == 204
    assert refused(api, alice[1]) and refused(api, other)
    assert accounts.ws_ticket_take(ticket=ticket) is None
    assert api.get("/api/v1/auth/me").status_code == 401  # the session cookie too
    assert not refused(api, bob[1])  # nobody else's
    signed_in = sign_in(api, "alice")  # the password still opens the account
    assert not refused(api, signed_in)


def test_a_key_is_named_after_its_client_unless_its_sign_in_names_it(api, alice):
    firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    edge = (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
        " Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"
    )
    sign_in(api, "alice", agent=firefox)
    sign_in(api, "alice", agent=edge)
    sign_in(api, "alice", agent="python-httpx/0.28.1")
    sign_in(api, "alice", agent="")
    named = api.post(
        "/api/v1/auth/token",
        {"username": "alice", "password": "pw-alice-123", "name": "  my solver bot  "},
    )
    assert named.status_code == 200

    keys = api.as_user(named.json()["token"]).get("/api/v1/auth/keys").json()["results"]
    assert sorted(key["name"] for key in keys[:5]) == sorted(
        ["Firefox (Linux)", "Edge (Windows)", "python-httpx", "API key", "my solver bot"]
    )
