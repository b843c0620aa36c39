"""How many watch a game (``?watchers=1``), in process on the in-memory channel layer: the
count follows arrivals and departures, only clients that asked get it, and every viewer
counts. Across processes (Redis) see tests/e2e/test_ws_watchers.py."""

import asyncio
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from games.live import presence as watchers
from games.writes import services
from scorpion_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(django_user_model):
    owner = django_user_model.objects.create_user("alice", password="pw-alice-123")
    return services.game_create(owner=owner, seed=3)


async def watch(game_id: Any, *, counting: bool) -> WebsocketCommunicator:
    query = "?watchers=1" if counting else ""
    ws = WebsocketCommunicator(application, f"/ws/games/{game_id}/{query}")
    connected, _ = await ws.connect(timeout=5)
    assert connected
    assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
    return ws


async def count(ws: WebsocketCommunicator) -> int:
    frame = await ws.receive_json_from(timeout=5)
    assert frame["type"] == "watchers", frame
    return int(frame["count"])


def test_the_count_follows_viewers_and_reaches_only_those_who_asked(game) -> None:
    async def scenario() -> None:
        first = await watch(game.game_id, counting=True)
        assert await count(first) == 1
        quiet = await watch(game.game_id, counting=False)
        assert await count(first) == 2  # a viewer who did not ask still counts
        second = await watch(game.game_id, counting=True)
        assert await count(first) == 3
        assert await count(second) == 3
        await quiet.disconnect()
        assert await count(first) == 2
        assert await count(second) == 2
        await second.disconnect()
        assert await count(first) == 1
        assert await first.receive_nothing(timeout=0.5)
        await first.disconnect()
        await asyncio.sleep(0.3)  # the last announcement, to nobody, finishes

    asyncio.run(scenario())


def test_a_burst_of_arrivals_is_announced_once_with_the_latest_count(game, monkeypatch) -> None:
    monkeypatch.setattr(watchers, "ANNOUNCE_DELAY", 1.0)  # a window wider than the burst

    async def scenario() -> None:
        first = await watch(game.game_id, counting=True)
        assert await count(first) == 1
        crowd = [await watch(game.game_id, counting=False) for _ in range(5)]
        counts = [await count(first)]
        while not await first.receive_nothing(timeout=1.5):
            counts.append(await count(first))
        assert counts[-1] == 6
        assert len(counts) <= 2  # five arrivals, one announcement (two if a window closed)
        for ws in [*crowd, first]:
            await ws.disconnect()
        await asyncio.sleep(0.5)  # the last announcement, to nobody, finishes

    asyncio.run(scenario())
