"""Sessions end everywhere at once: two daphne processes share PostgreSQL and Redis; a key
revoked, a password changed, an account deactivated or banned through one process (or the
database) is refused by the other on its very next request, however warm it was.

Also, across the processes: a WebSocket ticket asked from one opens a socket on the other,
once."""

from __future__ import annotations

import json

import httpx
import pytest
from django.contrib.auth import get_user_model
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games.writes import moderation
from tests.e2e.players import token_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def cluster(live_server_factory, redis_url):
    return live_server_factory(redis_url=redis_url), live_server_factory(redis_url=redis_url)


def sign_in(base: str, name: str, password: str | None = None) -> str:
    response = httpx.post(
        f"{base}/api/v1/auth/token",
        json={"username": name, "password": password or f"pw-{name}-Cards-2026"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return str(response.json()["token"])


def me(base: str, token: str) -> int:
    """The status of ``GET /auth/me`` with ``token`` (401 must say why)."""
    response = httpx.get(
        f"{base}/api/v1/auth/me", headers={"Authorization": f"Token {token}"}, timeout=30
    )
    if response.status_code == 401:
        assert response.json()["code"] == "authentication_failed"
    return response.status_code


def warm(base: str, token: str) -> None:
    """Use the key on a process often enough that any memory of it would be hot."""
    for _ in range(5):
        assert me(base, token) == 200


def test_a_revoked_key_is_refused_at_once_by_the_other_process(cluster) -> None:
    a, b = cluster
    token = token_for(a.http, "rita")
    other = sign_in(a.http, "rita")
    warm(b.http, token)

    revoked = httpx.delete(
        f"{a.http}/api/v1/auth/token", headers={"Authorization": f"Token {token}"}, timeout=30
    )

    assert revoked.status_code == 204
    assert me(b.http, token) == 401
    assert me(b.http, other) == 200
    keys = httpx.get(
        f"{b.http}/api/v1/auth/keys", headers={"Authorization": f"Token {other}"}, timeout=30
    ).json()["results"]
    assert len(keys) == 1
    httpx.delete(
        f"{b.http}/api/v1/auth/keys/{keys[0]['id']}",
        headers={"Authorization": f"Token {other}"},
        timeout=30,
    ).raise_for_status()
    assert me(a.http, other) == 401


def test_a_changed_password_revokes_the_old_keys_on_every_process(cluster) -> None:
    a, b = cluster
    token = token_for(a.http, "paco")
    second = sign_in(b.http, "paco")
    warm(b.http, token)
    warm(a.http, second)

    changed = httpx.post(
        f"{a.http}/api/v1/auth/password",
        json={"password": "pw-paco-Cards-2026", "new_password": "n3w-Paco-Lantern"},
        headers={"Authorization": f"Token {token}"},
        timeout=30,
    )

    assert changed.status_code == 200
    assert me(b.http, token) == 401 and me(b.http, second) == 401 and me(a.http, second) == 401
    assert me(b.http, changed.json()["token"]) == 200
    assert me(b.http, sign_in(b.http, "paco", "n3w-Paco-Lantern")) == 200


def test_a_deactivated_account_is_refused_at_once_by_every_process(cluster) -> None:
    a, b = cluster
    token = token_for(a.http, "dina")
    warm(a.http, token)
    warm(b.http, token)

    get_user_model().objects.filter(username="dina").update(is_active=False)

    assert me(a.http, token) == 401 and me(b.http, token) == 401


def test_a_ban_reaches_every_process_at_once(cluster, django_user_model) -> None:
    a, b = cluster
    token = token_for(a.http, "bart")
    headers = {"Authorization": f"Token {token}"}
    assert httpx.post(f"{b.http}/api/v1/games", json={}, headers=headers).status_code == 201
    staff = django_user_model.objects.create_user("mod", password="pw-mod-12345", is_staff=True)

    moderation.player_ban(
        player=django_user_model.objects.get(username="bart"), moderator=staff, reason="bot"
    )

    for server in cluster:
        refused = httpx.post(f"{server.http}/api/v1/games", json={}, headers=headers)
        assert refused.status_code == 403 and refused.json()["code"] == "banned"
        assert httpx.get(f"{server.http}/api/v1/auth/me", headers=headers).json()["banned"]


def test_a_ticket_from_one_process_opens_one_socket_on_the_other(cluster) -> None:
    a, b = cluster
    token = token_for(a.http, "tess")
    headers = {"Authorization": f"Token {token}"}
    game = httpx.post(f"{a.http}/api/v1/games", json={"public": False}, headers=headers).json()
    ticket = httpx.post(f"{a.http}/api/v1/auth/ws-ticket", headers=headers).json()["ticket"]

    with connect(f"{b.ws}/ws/games/{game['id']}/?ticket={ticket}") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
    for server in cluster:  # used up
        with connect(f"{server.ws}/ws/games/{game['id']}/?ticket={ticket}") as ws:
            assert json.loads(ws.recv(timeout=10)) == {"type": "error", "code": "bad_ticket"}
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
