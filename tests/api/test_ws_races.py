"""The race and arena feeds over WebSocket (in process, real PostgreSQL): the countdown, the
start, live standings and the finish, each transition driven by the injectable clock (the
test moves it and pings; nothing sleeps until a deadline); moderation leaves the results."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import clock
from games.dailies import contests as domain
from games.dailies import secrets
from games.dailies.models import Contest
from games.store import streams
from games.writes import contests, moderation, services
from scorpion_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

T0 = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at

    def move(self, **delta: float) -> None:
        self.at += dt.timedelta(**delta)


@pytest.fixture
def now():
    streams.cache.clear()
    moving = Clock(T0)
    with clock.frozen(moving):
        yield moving
    streams.cache.clear()


@pytest.fixture
def people(django_user_model):
    made = {
        name: django_user_model.objects.create_user(name, password=f"pw-{name}-123")
        for name in ("alice", "bob")
    }
    made["root"] = django_user_model.objects.create_user(
        "root", password="pw-root-123", is_staff=True
    )
    return made


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def until(ws: WebsocketCommunicator, kind: str, frames: list[dict[str, Any]]) -> dict:
    """Receive frames (kept in ``frames``) until one of type ``kind``."""
    while True:
        frame = await ws.receive_json_from(timeout=5)
        frames.append(frame)
        if frame["type"] == kind:
            return frame


async def settle(ws: WebsocketCommunicator, frames: list[dict[str, Any]]) -> None:
    while not await ws.receive_nothing(timeout=0.3):
        frames.append(await ws.receive_json_from(timeout=5))


sync = database_sync_to_async


def test_countdown_start_standings_and_finish_by_the_clock(now, people) -> None:
    alice, bob = people["alice"], people["bob"]
    race = contests.race_create(
        creator=alice,
        rules="classic",
        deals=1,
        countdown=dt.timedelta(seconds=60),
        time_limit=dt.timedelta(minutes=5),
    )
    seed = secrets.contest_seed(race.id, 1)

    async def scenario() -> list[dict[str, Any]]:
        frames: list[dict[str, Any]] = []
        ws = await connect(f"/ws/races/{race.code}/")
        opening = [await ws.receive_json_from(timeout=5) for _ in range(3)]
        frames += opening
        assert [f["type"] for f in opening] == ["race", "countdown", "standings"]
        assert opening[0]["race"]["status"] == "scheduled"
        assert opening[1]["seconds"] == 60
        await sync(contests.race_join)(race=race, player=bob)
        standings = await until(ws, "standings", frames)
        assert [r["player"] for r in standings["results"]] == ["alice", "bob"]

        now.move(seconds=59)
        await ws.send_json_to({"type": "ping"})
        countdown = await until(ws, "countdown", frames)
        assert countdown["seconds"] == 1
        now.move(seconds=1)  # the start: nobody waits for it, the next look sees it
        await ws.send_json_to({"type": "ping"})
        start = await until(ws, "start", frames)
        assert start["race"]["status"] == "running" and start["race"]["seeds"] is None

        games, _ = await sync(contests.race_games)(race=race, player=alice)
        await until(ws, "standings", frames)
        await sync(services.game_command)(
            game_id=games[0].game_id, actor=alice, command={"type": "resign"}
        )
        standings = await until(ws, "standings", frames)
        assert standings["results"][0]["finished"] == 1
        # Live frames name games as an anonymous reader may read them: not while it runs.
        assert all(row["games"] is None for row in standings["results"])

        now.move(minutes=5)  # the time limit
        await ws.send_json_to({"type": "ping"})
        finish = await until(ws, "finish", frames)
        assert finish["race"]["status"] == "finished" and finish["race"]["seeds"] == [seed]
        assert [r["player"] for r in finish["results"]] == ["alice", "bob"]
        assert finish["results"][0]["games"] == [str(games[0].game_id)]
        await settle(ws, frames)
        await ws.disconnect()
        return frames

    frames = asyncio.run(scenario())
    finish_at = next(i for i, f in enumerate(frames) if f["type"] == "finish")
    assert str(seed) not in json.dumps(frames[:finish_at])
    assert sum(f["type"] == "start" for f in frames) == 1
    assert sum(f["type"] == "finish" for f in frames) == 1


def test_a_race_everyone_finished_ends_at_once(now, people) -> None:
    alice, bob = people["alice"], people["bob"]
    race = contests.race_create(
        creator=alice,
        rules="classic",
        deals=1,
        countdown=dt.timedelta(0),
        starts_at=T0,
        time_limit=dt.timedelta(minutes=5),
    )
    Contest.objects.filter(id=race.id).update(starts_at=T0 + dt.timedelta(seconds=1))
    race.refresh_from_db()
    contests.race_join(race=race, player=bob)
    now.move(seconds=1)

    async def scenario() -> dict[str, Any]:
        frames: list[dict[str, Any]] = []
        ws = await connect(f"/ws/races/{race.id}/")
        await until(ws, "standings", frames)
        for player in (alice, bob):
            games, _ = await sync(contests.race_games)(race=race, player=player)
            await sync(services.game_command)(
                game_id=games[0].game_id, actor=player, command={"type": "resign"}
            )
        finish = await until(ws, "finish", frames)  # no ping, no clock move
        await ws.disconnect()
        return finish

    finish = asyncio.run(scenario())
    assert finish["race"]["finished_at"] == "2026-11-30T12:00:01.000Z"
    assert finish["race"]["seeds"] == [secrets.contest_seed(race.id, 1)]


def test_an_arena_leaderboard_moderation_and_the_end_of_its_window(now, people) -> None:
    alice, bob, root = people["alice"], people["bob"], people["root"]
    arena = domain.arena_create(
        rules="classic", starts_at=T0, ends_at=T0 + dt.timedelta(hours=1), title="test arena"
    )

    async def scenario() -> list[dict[str, Any]]:
        frames: list[dict[str, Any]] = []
        ws = await connect(f"/ws/arenas/{arena.id}/")
        first = [await ws.receive_json_from(timeout=5) for _ in range(2)]
        assert first[0]["type"] == "arena" and first[0]["arena"]["status"] == "running"
        assert first[1] == {"type": "standings", "results": []}
        for player in (alice, bob):
            game, made = await sync(contests.arena_play)(arena=arena, player=player)
            assert made and game.summary.round == 1
            await until(ws, "standings", frames)
        same, made = await sync(contests.arena_play)(arena=arena, player=alice)
        assert not made and same.summary.round == 1
        await sync(services.game_command)(
            game_id=same.game_id, actor=alice, command={"type": "resign"}
        )
        await until(ws, "standings", frames)
        second, made = await sync(contests.arena_play)(arena=arena, player=alice)
        assert made and second.summary.round == 2
        standings = await until(ws, "standings", frames)
        alice_row = next(r for r in standings["results"] if r["player"] == "alice")
        assert alice_row["played"] == 2
        # A banned player leaves the leaderboard; so does a voided game's score.
        await sync(moderation.player_ban)(player=bob, moderator=root, reason="bot")
        standings = await until(ws, "standings", frames)
        assert [r["player"] for r in standings["results"]] == ["alice"]
        await sync(moderation.result_void)(
            game_id=second.game_id, moderator=root, reason="shared deal"
        )
        standings = await until(ws, "standings", frames)
        assert standings["results"][0]["played"] == 1

        now.move(hours=1)  # the end of the window
        await ws.send_json_to({"type": "ping"})
        finish = await until(ws, "finish", frames)
        assert finish["arena"]["seeds"] == [secrets.contest_seed(arena.id, n) for n in (1, 2)]
        await ws.disconnect()
        return frames

    asyncio.run(scenario())
    # The end closes the arena: no more deals; the final table stays.
    with pytest.raises(Exception) as closed:
        contests.arena_play(arena=arena, player=alice)
    assert getattr(closed.value, "code", "") == "contest_closed"
    now.move(days=30)
    assert [r["player"] for r in json.loads(domain.ranked(arena)[1])] == ["alice"]


def test_the_rotation_makes_one_arena_per_period_and_the_next_ahead(now, settings) -> None:
    settings.ARENA_ROTATION = "classic:weekly,wasp:daily"
    made = contests.rotation_arenas()
    again = contests.rotation_arenas()
    assert [a.id for a in made] == [a.id for a in again]
    weekly, next_week, daily, tomorrow = made
    assert weekly.starts_at == dt.datetime(2026, 11, 30, tzinfo=dt.UTC)  # a Monday
    assert weekly.ends_at - weekly.starts_at == dt.timedelta(days=7)
    assert next_week.starts_at == weekly.ends_at and next_week.title.endswith("2026-W50")
    assert daily.rules == "wasp" and daily.ends_at == dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    assert tomorrow.starts_at == daily.ends_at
    now.move(days=1)
    later = contests.rotation_arenas()
    assert later[0].id == weekly.id and later[2].id == tomorrow.id
    assert Contest.objects.filter(kind="arena").count() == 5


def test_the_rotation_command(now, settings) -> None:
    from io import StringIO

    from django.core.management import call_command

    settings.ARENA_ROTATION = "classic:weekly"
    out = StringIO()
    call_command("arena_rotation", stdout=out)
    call_command("arena_rotation", stdout=out)
    assert Contest.objects.filter(kind="arena").count() == 2
    assert "Classic weekly arena 2026-W49" in out.getvalue()
    assert "Classic weekly arena 2026-W50" in out.getvalue()


def test_the_points_table() -> None:
    from games.dailies.arenas import points

    assert points(status="won", sequences=4, elapsed_ms=0) == 150
    assert points(status="won", sequences=4, elapsed_ms=15_000 * 10) == 140
    assert points(status="won", sequences=4, elapsed_ms=3_600_000) == 100
    assert points(status="playing", sequences=3, elapsed_ms=5) == 30
    assert points(status="resigned", sequences=0, elapsed_ms=5) == 0
    assert points(status="won", sequences=4, elapsed_ms=0, voided=True) == 0


def test_a_result_without_hints_makes_a_feed_read_the_ranking_again() -> None:
    """During a rolling upgrade a server that does not count hints yet publishes results
    without them: a feed's ranking refuses such a result (the feed then reads the ranking
    from the database, where the column's default holds) instead of guessing."""
    board = domain.Board(uuid.uuid4(), Contest.Kind.RACE, T0)
    board.enter(7, "alice", 0, 1, False)
    result = {
        "game": "g1",
        "player": 7,
        "round": 1,
        "status": "won",
        "moves": 60,
        "score": 700,
        "sequences": 4,
        "revealed": 12,
        "finished_ms": int(T0.timestamp() * 1000) + 90_000,
        "points": 80,
        "version": 64,
        "voided": False,
    }
    assert board.apply(result) is False
    assert board.apply({**result, "hints": 3}) is True
    (row,) = json.loads(board.text())
    assert (row["won"], row["unaided"], row["hints"], row["elapsed_ms"]) == (1, 0, 3, 90_000)
