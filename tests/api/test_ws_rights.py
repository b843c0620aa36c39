"""Rights that end on open sockets, in process (Channels' communicator, real PostgreSQL and
its notifications, the in-memory channel layer): a socket opened with credentials closes
with 4001 once they end, sends nothing after, and reopens with what remains.

The same across two daphne processes over Redis, for each way rights end, is in
tests/e2e/test_rights_cluster.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.db import connection

from games.reads import accounts as account_reads
from games.store.models import ApiKey
from games.writes import accounts, moderation, services
from scorpion_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("mod", password="pw-mod-12345", is_staff=True)


@pytest.fixture
def sample_deal() -> list[str]:
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "seed_deal.json"
    return list(json.loads(path.read_text())["deal"])


@database_sync_to_async
def ticket_of(user: Any, key: str | None) -> str:
    key_id = None if key is None else ApiKey.objects.get(digest=accounts.digest(key)).pk
    return accounts.ws_ticket_issue(user=user, key_id=key_id)


async def connect(path: str, headers: list[tuple[bytes, bytes]] | None = None) -> Any:
    communicator = WebsocketCommunicator(application, path, headers=headers or [])
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def ended(ws: Any, timeout: float = 2.0) -> tuple[list[dict[str, Any]], int]:
    """The frames a socket sends until it closes, and its close code (within ``timeout``)."""
    received = []
    deadline = time.monotonic() + timeout
    while True:
        output = await ws.receive_output(timeout=max(0.01, deadline - time.monotonic()))
        if output["type"] == "websocket.close":
            return received, int(output["code"])
        received.append(json.loads(output["text"]))


def shows_hidden(frame: dict[str, Any]) -> bool:
    """Whether a game frame shows a face-down card (staff sight)."""
    return frame["game"]["columns"][0][0] is not None


command = database_sync_to_async(services.game_command)


def sql(statement: str, *params: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def test_a_staff_socket_closes_at_once_when_staff_status_goes_by_sql(
    alice, staff, sample_deal
) -> None:
    key = accounts.key_issue(user=staff)
    game = services.game_create(owner=alice, deal=sample_deal)

    async def scenario() -> None:
        ws = await connect(f"/ws/games/{game.game_id}/?ticket={await ticket_of(staff, key)}")
        assert shows_hidden(await ws.receive_json_from(timeout=5))
        started = time.monotonic()
        await database_sync_to_async(sql)(
            "UPDATE auth_user SET is_staff = false WHERE id = %s", staff.pk
        )
        await command(game_id=game.game_id, actor=alice, command=MOVE)
        frames, code = await ended(ws)
        assert time.monotonic() - started < 2
        assert code == 4001
        assert frames[-1] == {"type": "error", "code": "rights_changed"}
        assert not any(shows_hidden(frame) for frame in frames if frame["type"] == "event")
        # Reopened, the socket shows what a player sees.
        again = await connect(f"/ws/games/{game.game_id}/?ticket={await ticket_of(staff, key)}")
        snapshot = await again.receive_json_from(timeout=5)
        assert snapshot["type"] == "snapshot" and not shows_hidden(snapshot)
        await again.disconnect()

    asyncio.run(scenario())


def test_a_revoked_key_closes_its_sockets_and_no_other(alice, sample_deal) -> None:
    kept, revoked = accounts.key_issue(user=alice), accounts.key_issue(user=alice)
    game = services.game_create(owner=alice, deal=sample_deal, public=False)
    path = f"/ws/games/{game.game_id}/?ticket="

    async def scenario() -> None:
        stays = await connect(path + await ticket_of(alice, kept))
        goes = await connect(path + await ticket_of(alice, revoked))
        for ws in (stays, goes):
            assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
        key_id = await database_sync_to_async(
            lambda: ApiKey.objects.get(digest=accounts.digest(revoked)).pk
        )()
        await database_sync_to_async(accounts.key_revoke)(user=alice, key_id=key_id)
        assert (await ended(goes))[1] == 4001
        await command(game_id=game.game_id, actor=alice, command=MOVE)
        assert (await stays.receive_json_from(timeout=5))["event"]["seq"] == 2
        await stays.disconnect()

    asyncio.run(scenario())


def test_a_session_socket_closes_when_its_session_ends(client, alice, sample_deal) -> None:
    client.force_login(alice)
    session_key = client.cookies["sessionid"].value
    game = services.game_create(owner=alice, deal=sample_deal, public=False)
    cookie = [(b"cookie", f"sessionid={session_key}".encode())]

    async def scenario() -> None:
        ws = await connect(f"/ws/games/{game.game_id}/", headers=cookie)
        assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
        await database_sync_to_async(Session.objects.filter(session_key=session_key).delete)()
        assert (await ended(ws))[1] == 4001

    asyncio.run(scenario())


def test_a_ban_and_a_deactivation_close_the_accounts_sockets(
    alice, staff, django_user_model, sample_deal
) -> None:
    bob = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    game = services.game_create(owner=alice, deal=sample_deal)
    path = f"/ws/games/{game.game_id}/?ticket="

    async def scenario() -> None:
        banned = await connect(
            path
            + await ticket_of(alice, await database_sync_to_async(accounts.key_issue)(user=alice))
        )
        deactivated = await connect(
            path + await ticket_of(bob, await database_sync_to_async(accounts.key_issue)(user=bob))
        )
        for ws in (banned, deactivated):
            assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
        await database_sync_to_async(moderation.player_ban)(
            player=alice, moderator=staff, reason="bot"
        )
        assert (await ended(banned))[1] == 4001
        await database_sync_to_async(sql)(
            "UPDATE auth_user SET is_active = false WHERE id = %s", bob.pk
        )
        assert (await ended(deactivated))[1] == 4001

    asyncio.run(scenario())


def test_a_lost_notification_is_caught_by_the_sweep(alice, staff, sample_deal, settings) -> None:
    settings.RIGHTS_SWEEP_SECONDS = 0.3
    game = services.game_create(owner=alice, deal=sample_deal)
    key = accounts.key_issue(user=staff)

    async def scenario() -> None:
        ws = await connect(f"/ws/games/{game.game_id}/?ticket={await ticket_of(staff, key)}")
        assert shows_hidden(await ws.receive_json_from(timeout=5))

        def quietly() -> None:  # as if the notification were lost with its connection
            sql("ALTER TABLE auth_user DISABLE TRIGGER games_rights_account_changed")
            try:
                sql("UPDATE auth_user SET is_staff = false WHERE id = %s", staff.pk)
            finally:
                sql("ALTER TABLE auth_user ENABLE TRIGGER games_rights_account_changed")

        await database_sync_to_async(quietly)()
        assert (await ended(ws))[1] == 4001

    asyncio.run(scenario())


def test_rights_are_read_with_the_credential_they_came_with(alice, client) -> None:
    key = accounts.key_issue(user=alice)
    key_id = ApiKey.objects.get(digest=accounts.digest(key)).pk
    client.force_login(alice)
    session_key = client.cookies["sessionid"].value

    def read(**credential: Any) -> account_reads.Rights | None:
        found = {"key_id": None, "session_key": None, **credential}
        return account_reads.socket_rights(user_id=alice.pk, **found)

    rights = read(key_id=key_id)
    assert rights is not None and not rights.is_staff and rights.pk == alice.pk
    assert read(session_key=session_key) == rights == read()
    assert read(key_id=key_id + 1000) is None
    assert read(session_key="x" * 32) is None
    sql("UPDATE auth_user SET is_active = false WHERE id = %s", alice.pk)
    assert read() is None


def test_no_notification_for_a_key_used_or_a_sign_in(alice) -> None:
    """A key's last use and a login's last_login write rows the triggers watch, and must
    not end anything."""
    import psycopg

    from games.live.rights import CHANNEL, listen_parameters

    key_id = ApiKey.objects.get(digest=accounts.digest(accounts.key_issue(user=alice))).pk
    with psycopg.connect(**listen_parameters(), autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        sql("UPDATE games_api_key SET last_used_at = now() WHERE user_id = %s", alice.pk)
        sql("UPDATE auth_user SET last_login = now(), first_name = 'A' WHERE id = %s", alice.pk)
        assert list(listener.notifies(timeout=0.3)) == []
        sql("UPDATE auth_user SET is_staff = true WHERE id = %s", alice.pk)
        ApiKey.objects.filter(pk=key_id).delete()
        got = sorted(notify.payload for notify in listener.notifies(timeout=2, stop_after=2))
    assert got == [f"k:{key_id}", f"u:{alice.pk}"]


def test_the_listener_stops_when_idle_and_starts_again_for_the_next_socket(
    alice, staff, sample_deal, settings, monkeypatch
) -> None:
    from games.live import rights

    monkeypatch.setattr(rights, "LINGER_SECONDS", 0.2)
    settings.RIGHTS_SWEEP_SECONDS = 0.1
    game = services.game_create(owner=alice, deal=sample_deal)
    key = accounts.key_issue(user=staff)
    path = f"/ws/games/{game.game_id}/?ticket="

    async def scenario() -> None:
        first = await connect(path + await ticket_of(staff, key))
        await first.receive_json_from(timeout=5)
        watch = rights._watch()
        assert watch.listening.is_set() and watch.generation == 1
        await first.disconnect()
        for _ in range(50):
            await asyncio.sleep(0.1)
            if watch.listener is None:
                break
        assert watch.listener is None and not watch.listening.is_set()
        again = await connect(path + await ticket_of(staff, key))
        assert shows_hidden(await again.receive_json_from(timeout=5))
        assert watch.generation == 2
        await database_sync_to_async(sql)(
            "UPDATE auth_user SET is_staff = false WHERE id = %s", staff.pk
        )
        assert (await ended(again))[1] == 4001

    asyncio.run(scenario())
