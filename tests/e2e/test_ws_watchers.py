"""How many watch a game, counted across two daphne processes sharing Redis: viewers on
either process count, and each viewer who asked (``?watchers=1``) hears every change."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

import pytest
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from games.writes import accounts, services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def cluster(live_server_factory, redis_url):
    return live_server_factory(redis_url=redis_url), live_server_factory(redis_url=redis_url)


def watch(sockets: ExitStack, server: Any, game: Any, *, counting: bool = True) -> ClientConnection:
    query = "?watchers=1" if counting else ""
    ws = sockets.enter_context(ws_connect(f"{server.ws}/ws/games/{game}/{query}", open_timeout=10))
    assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
    return ws


def next_count(ws: ClientConnection) -> int:
    frame = json.loads(ws.recv(timeout=10))
    assert frame["type"] == "watchers", frame
    return int(frame["count"])


def settled_count(ws: ClientConnection) -> int:
    """The last count sent before a quiet second (processes announce independently)."""
    count = next_count(ws)
    while True:
        try:
            frame = json.loads(ws.recv(timeout=1))
        except TimeoutError:
            return count
        assert frame["type"] == "watchers", frame
        count = int(frame["count"])


def test_viewers_on_both_processes_count_for_everyone(cluster, django_user_model) -> None:
    a, b = cluster
    owner = django_user_model.objects.create_user("alice", password="pw-alice-123")
    accounts.key_issue(user=owner)
    game = services.game_create(owner=owner, seed=5).game_id

    with ExitStack() as sockets:
        on_a = watch(sockets, a, game)
        assert settled_count(on_a) == 1
        on_b = watch(sockets, b, game)
        quiet_b = watch(sockets, b, game, counting=False)
        assert settled_count(on_a) == 3
        assert settled_count(on_b) == 3
        quiet_b.close()
        assert settled_count(on_a) == 2
        assert settled_count(on_b) == 2
        on_b.close()
        assert settled_count(on_a) == 1
