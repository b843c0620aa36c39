"""Watching a daily challenge's race over WebSocket (in process, real PostgreSQL):
standings first, after every change, never older ones after newer; no spectating of
another player's game while the day runs."""

import asyncio
import datetime as dt
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from games import clock
from games.dailies import challenges as dailies
from games.live import publish
from games.store import streams
from games.writes import accounts, services
from scorpion_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
DAY = NOW.date()


async def ticket(token: str) -> str:
    """A WebSocket ticket of the account ``token`` opens: a key never goes in a URL."""

    def issue() -> str:
        found = accounts.key_authenticate(key=token)
        assert found is not None
        return accounts.ws_ticket_issue(user=found[0], key_id=found[1].pk)

    return await database_sync_to_async(issue)()


@pytest.fixture(autouse=True)
def _noon():
    streams.cache.clear()
    with clock.frozen(NOW):
        yield
    streams.cache.clear()


@pytest.fixture
def racers(django_user_model):
    dailies.prepare(DAY)  # as the scheduled job would, before any timeout runs
    return [
        django_user_model.objects.create_user(name, password=f"pw-{name}-123")
        for name in ("alice", "bob", "carol")
    ]


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


join = database_sync_to_async(services.challenge_join)
command = database_sync_to_async(services.game_command)


def players(frame: dict[str, Any]) -> list[str]:
    assert frame["type"] == "standings"
    return [entry["player"] for entry in frame["results"]]


def test_standings_first_then_after_every_change(racers) -> None:
    alice, bob, carol = racers

    async def scenario() -> list[dict[str, Any]]:
        ws = await connect("/ws/challenges/2026-11-30/")
        frames = [await ws.receive_json_from(timeout=5)]
        game, _ = await join(date=DAY, player=alice)
        frames.append(await ws.receive_json_from(timeout=5))
        with clock.frozen(NOW + dt.timedelta(minutes=1)):  # bob joins after alice
            await join(date=DAY, player=bob)
        frames.append(await ws.receive_json_from(timeout=5))
        await command(game_id=game.game_id, actor=alice, command={"type": "resign"})
        frames.append(await ws.receive_json_from(timeout=5))
        await join(date=DAY, player=alice)  # joining again changes nothing: no push
        assert await ws.receive_nothing(timeout=0.3)
        await ws.disconnect()
        return frames

    frames = asyncio.run(scenario())
    assert players(frames[0]) == []
    assert players(frames[1]) == ["alice"]
    assert sorted(players(frames[2])) == ["alice", "bob"]
    # Only wins rank by status; the rest rank by sequences, revealed cards, score, then
    # who joined first (docs/api.md#standings): alice resigned, level with bob, and stays first.
    assert [(r["player"], r["status"]) for r in frames[3]["results"]] == [
        ("alice", "resigned"),
        ("bob", "playing"),
    ]
    # While the day runs, the frames (alike for every watcher) name no game.
    assert all(r["game"] is None for frame in frames for r in frame["results"])


def test_a_burst_of_announcements_is_one_read_for_every_watcher(racers) -> None:
    alice, bob, _ = racers
    layer = get_channel_layer()

    async def scenario() -> list[Any]:
        watchers = [await connect("/ws/challenges/today/") for _ in range(3)]
        for ws in watchers:
            assert players(await ws.receive_json_from(timeout=5)) == []
        await join(date=DAY, player=alice)
        await join(date=DAY, player=bob)
        # Announcements without a change: each watcher gets the same standings again,
        # never older ones, and a ping asks for them too.
        for _ in range(5):
            await layer.group_send(publish.challenge_group(DAY), {"type": "standings.changed"})
        await watchers[0].send_json_to({"type": "ping"})
        seen = []
        for ws in watchers:
            frames = []
            while not await ws.receive_nothing(timeout=0.3):
                frames.append(await ws.receive_json_from(timeout=5))
            seen.append(frames)
        for ws in watchers:
            await ws.disconnect()
        return seen

    for frames in asyncio.run(scenario()):
        standings_frames = [frame for frame in frames if frame["type"] == "standings"]
        assert sorted(players(standings_frames[-1])) == ["alice", "bob"]
        counts = [len(players(frame)) for frame in standings_frames]
        assert counts == sorted(counts) and counts[0] >= 1


def test_a_watcher_never_takes_older_standings_after_newer_ones() -> None:
    from games.live.standings import Watcher

    sent: list[str] = []

    async def send(text_data: str) -> None:
        sent.append(text_data)

    watcher = Watcher(send)

    async def scenario() -> None:
        await watcher.deliver(5, "newer")
        await watcher.deliver(3, "older, read before but delivered after")
        await watcher.deliver(5, "the same again")
        await watcher.deliver(6, "newest")

    asyncio.run(scenario())
    assert sent == ["newer", "the same again", "newest"]


def test_spectating_another_players_daily_game_is_refused_while_open(racers) -> None:
    alice, bob, _ = racers
    game, _ = services.challenge_join(date=DAY, player=alice)
    bob_token = accounts.key_issue(user=bob)
    alice_token = accounts.key_issue(user=alice)

    async def scenario() -> tuple[int, dict[str, Any], int, int]:
        stranger = await connect(f"/ws/games/{game.game_id}/?ticket={await ticket(bob_token)}")
        refused = (await stranger.receive_output(timeout=5))["code"]
        owner = await connect(f"/ws/games/{game.game_id}/?ticket={await ticket(alice_token)}")
        snapshot = await owner.receive_json_from(timeout=5)
        await owner.disconnect()
        anonymous = await connect(f"/ws/games/{game.game_id}/")
        refused_anonymous = (await anonymous.receive_output(timeout=5))["code"]
        unknown = await connect("/ws/challenges/2027-01-01/")
        missing = (await unknown.receive_output(timeout=5))["code"]
        for ws in (stranger, anonymous, unknown):
            await ws.disconnect()
        return refused, snapshot, refused_anonymous, missing

    refused, snapshot, refused_anonymous, unknown = asyncio.run(scenario())
    assert refused == refused_anonymous == 4403 and unknown == 4404
    assert snapshot["game"]["challenge"] == "2026-11-30" and snapshot["game"]["seed"] is None
    assert str(dailies.certify(DAY).seed) not in str(snapshot)
