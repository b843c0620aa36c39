"""Moderation reaches live viewers after commit (in process, real PostgreSQL): a race's
watchers get standings without a banned player or a voided result, and back after an unban
or a restore; a game's spectators get the ``result_voided`` event frame."""

import asyncio
import datetime as dt
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import clock
from games.dailies import challenges
from games.store import streams
from games.writes import moderation, services
from scorpion_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
DAY = NOW.date()


@pytest.fixture(autouse=True)
def _noon():
    streams.cache.clear()
    with clock.frozen(NOW):
        yield
    streams.cache.clear()


@pytest.fixture
def people(django_user_model):
    challenges.prepare(DAY)  # as the scheduled job would
    make = django_user_model.objects.create_user
    return (
        make("alice", password="pw-alice-123"),
        make("bob", password="pw-bob-123"),
        make("mod", password="pw-mod-123", is_staff=True),
    )


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def standings_until(ws: WebsocketCommunicator, wanted: list[str]) -> list[str]:
    """Read standings frames until one ranks exactly ``wanted`` (a watcher may receive the
    same standings more than once)."""
    while True:
        frame = await ws.receive_json_from(timeout=5)
        assert frame["type"] == "standings"
        players = [entry["player"] for entry in frame["results"]]
        if players == wanted:
            return players


join = database_sync_to_async(services.challenge_join)
ban = database_sync_to_async(moderation.player_ban)
unban = database_sync_to_async(moderation.player_unban)
void = database_sync_to_async(moderation.result_void)
restore = database_sync_to_async(moderation.result_restore)


def test_race_watchers_see_bans_and_voids_in_the_pushed_standings(people) -> None:
    alice, bob, mod = people

    async def scenario() -> None:
        game, _ = await join(date=DAY, player=alice)
        with clock.frozen(NOW + dt.timedelta(minutes=1)):
            await join(date=DAY, player=bob)
        ws = await connect("/ws/challenges/2026-11-30/")
        await standings_until(ws, ["alice", "bob"])
        await ban(player=alice, moderator=mod, reason="multi-accounting")
        await standings_until(ws, ["bob"])
        await unban(player=alice, moderator=mod, reason="appeal")
        await standings_until(ws, ["alice", "bob"])
        await void(game_id=game.game_id, moderator=mod, reason="bot")
        await standings_until(ws, ["bob"])
        await restore(game_id=game.game_id, moderator=mod, reason="human after all")
        await standings_until(ws, ["alice", "bob"])
        await ws.disconnect()

    asyncio.run(scenario())


def test_spectators_receive_the_void_as_an_event_frame(people, sample_deal) -> None:
    alice, _, mod = people
    game = services.game_create(owner=alice, deal=sample_deal)

    async def scenario() -> list[dict[str, Any]]:
        ws = await connect(f"/ws/games/{game.game_id}/")
        frames = [await ws.receive_json_from(timeout=5)]
        await void(game_id=game.game_id, moderator=mod, reason="abusive name")
        frames.append(await ws.receive_json_from(timeout=5))
        await ws.disconnect()
        return frames

    snapshot, voided = asyncio.run(scenario())
    assert snapshot["type"] == "snapshot" and snapshot["game"]["version"] == 1
    assert voided["type"] == "event"
    event = voided["event"]
    assert (event["seq"], event["type"], event["by"]) == (2, "result_voided", "mod")
    assert event["data"] == {"reason": "abusive name"}
    assert voided["game"]["version"] == 2 and voided["game"]["columns"][0][0] is None
