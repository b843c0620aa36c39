"""Live spectating across real daphne processes sharing PostgreSQL and Redis.

Moves go over HTTP to process A; spectators watch over real WebSockets, mostly on process
B, so every frame crosses the Redis channel layer. Each spectator must see every event,
in order, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from typing import Any

import httpx
import pytest
import redis
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect_sync

from games import engine
from games.live import publish
from games.store import events as vocabulary
from games.writes import accounts, services
from tests.e2e.conftest import ws_ticket

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def cluster(live_server_factory, redis_url):
    """Two daphne processes, A and B, on one PostgreSQL and one Redis."""
    return live_server_factory(redis_url=redis_url), live_server_factory(redis_url=redis_url)


@pytest.fixture
def player(django_user_model):
    user = django_user_model.objects.create_user("alice", password="pw-alice-123")
    return user, accounts.key_issue(user=user)


def legal_commands(rules_name: str, seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` commands that are legal in turn from the deal of ``seed``."""
    rules = engine.RULESETS[rules_name]
    line = engine.legal_line(rules, engine.seeded_deal(rules, seed), count)
    return [engine.action_to_command(action) for action in line]


def recorded(command: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The event type and data that ``command`` is stored as."""
    fact = vocabulary.of_action(engine.action_from_command(command))
    return fact.TYPE, fact.to_json()


def send_commands(base: str, token: str, game_id: object, commands: list[dict[str, Any]]) -> None:
    with httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}) as client:
        for command in commands:
            response = client.post(f"/api/v1/games/{game_id}/commands", json=command, timeout=30)
            assert response.status_code == 201, response.text


def seqs_of(frames: list[dict[str, Any]]) -> list[int]:
    return [frame["event"]["seq"] for frame in frames if frame["type"] == "event"]


def read_until(ws: Any, last_seq: int, timeout: float = 60) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while not frames or frames[-1].get("event", {}).get("seq", 0) < last_seq:
        frames.append(json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic()))))
    return frames


def test_spectator_on_b_sees_every_move_sent_to_a_in_order(cluster, player) -> None:
    a, b = cluster
    user, token = player
    game = services.game_create(owner=user, rules="classic", seed=21)
    commands = legal_commands("classic", 21, 40)
    with ws_connect_sync(f"{b.ws}/ws/games/{game.game_id}/") as ws:
        snapshot = json.loads(ws.recv(timeout=10))
        assert snapshot["type"] == "snapshot" and snapshot["game"]["version"] == 1
        send_commands(a.http, token, game.game_id, commands)
        frames = read_until(ws, 41)
    assert seqs_of(frames) == list(range(2, 42))
    assert [(frame["event"]["type"], frame["event"]["data"]) for frame in frames] == [
        recorded(command) for command in commands
    ]
    assert frames[-1]["game"]["version"] == 41


def test_resume_after_n_while_a_writer_keeps_appending(cluster, player) -> None:
    a, b = cluster
    user, token = player
    game = services.game_create(owner=user, rules="cards4", seed=22)
    commands = legal_commands("cards4", 22, 60)
    with ws_connect_sync(f"{b.ws}/ws/games/{game.game_id}/") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        send_commands(a.http, token, game.game_id, commands[:10])
        first = read_until(ws, 11)
    last_seen = first[-1]["event"]["seq"]
    assert seqs_of(first) == list(range(2, 12))
    writer = threading.Thread(
        target=send_commands, args=(a.http, token, game.game_id, commands[10:])
    )
    writer.start()
    try:
        time.sleep(0.2)  # let the writer get going before the reconnect
        with ws_connect_sync(f"{b.ws}/ws/games/{game.game_id}/?after={last_seen}") as ws:
            frames = read_until(ws, 61)
    finally:
        writer.join(timeout=120)
    assert frames[0]["type"] == "snapshot" and frames[0]["game"]["version"] == last_seen
    assert seqs_of(frames) == list(range(last_seen + 1, 62))


async def spectate(url: str, last_seq: int, ready: asyncio.Event, count: list[int]) -> list[int]:
    async with ws_connect(url, max_queue=None) as ws:
        snapshot = json.loads(await ws.recv())
        assert snapshot["type"] == "snapshot"
        count[0] += 1
        if count[0] == count[1]:
            ready.set()
        seqs: list[int] = []
        while not seqs or seqs[-1] < last_seq:
            frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=120))
            seqs.append(frame["event"]["seq"])
        return seqs


def test_two_hundred_spectators_each_get_every_event_once(cluster, player) -> None:
    a, b = cluster
    user, token = player
    game = services.game_create(owner=user, rules="wasp", seed=23)
    commands = legal_commands("wasp", 23, 100)
    spectators = 200

    async def scenario() -> list[list[int]]:
        ready = asyncio.Event()
        count = [0, spectators]
        tasks = [
            asyncio.ensure_future(
                spectate(f"{(b if n % 4 else a).ws}/ws/games/{game.game_id}/", 101, ready, count)
            )
            for n in range(spectators)
        ]
        await asyncio.wait_for(ready.wait(), timeout=120)
        await asyncio.to_thread(send_commands, a.http, token, game.game_id, commands)
        return await asyncio.gather(*tasks)

    results = asyncio.run(scenario())
    assert len(results) == spectators
    for seqs in results:
        assert seqs == list(range(2, 102))


def test_private_game_refuses_strangers_over_real_sockets(
    cluster, player, django_user_model
) -> None:
    _, b = cluster
    user, token = player
    stranger = django_user_model.objects.create_user("mallory", password="pw-mallory-123")
    stranger_token = accounts.key_issue(user=stranger)
    game = services.game_create(owner=user, seed=24, public=False)
    for query in ("", f"?ticket={ws_ticket(b.http, stranger_token)}"):
        with (
            ws_connect_sync(f"{b.ws}/ws/games/{game.game_id}/{query}") as ws,
            pytest.raises(ConnectionClosed) as closed,
        ):
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    ticket = ws_ticket(b.http, token)
    with ws_connect_sync(f"{b.ws}/ws/games/{game.game_id}/?ticket={ticket}") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"


def test_an_abrupt_disconnect_leaves_no_group_membership(cluster, player, redis_url) -> None:
    _, b = cluster
    user, _ = player
    game = services.game_create(owner=user, seed=25)
    group_key = f"asgi:group:{publish.game_group(game.game_id)}"
    client = redis.Redis.from_url(redis_url)
    with contextlib.ExitStack() as stack:
        sockets = []
        for _ in range(3):
            ws = stack.enter_context(ws_connect_sync(f"{b.ws}/ws/games/{game.game_id}/"))
            assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
            sockets.append(ws)
        # One member: B's feed of the game, however many of B's sockets watch it.
        assert client.zcard(group_key) == 1
        for ws in sockets:
            # No closing handshake: the TCP connection just goes away.
            ws.socket.shutdown(socket.SHUT_RDWR)
            ws.socket.close()
        deadline = time.monotonic() + 20
        while client.zcard(group_key) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.zcard(group_key) == 0
