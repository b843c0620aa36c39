"""Reads never write: every GET path of the OpenAPI document, asked by an anonymous
visitor, a player and staff, leaves the game data exactly as it was.

The world is made so that the old temptations are all there: a daily challenge open today
(its owner's hint would count), a race whose start has come but which nobody sealed yet,
an arena rotation with no arena made, a finished game whose analysis nobody asked for.
Sessions, keys and caches may change; the tables below may not.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from typing import Any

import pytest
from django.db import connection

from games import clock
from games.dailies import challenges as dailies
from games.writes import contests, puzzles, services
from tests.puzzle_helpers import make_puzzle

pytestmark = pytest.mark.django_db

NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
DAY = NOON.date()

#: Every table of game data: the event store and every read model kept from it, the
#: contests, the days, bans, the moderation log, and WebSocket tickets (a GET mints none).
GAME_DATA = (
    "games_event",
    "games_game",
    "games_standing",
    "games_daily_challenge",
    "games_contest",
    "games_contest_entrant",
    "games_contest_result",
    "games_board_result",
    "games_board_entry",
    "games_player",
    "games_moderation_log",
    "games_rating_player",
    "games_rating_deal",
    "games_rated_game",
    "games_rating_change",
    "games_ws_ticket",
    "games_public_log",
    "games_puzzle",
    "games_puzzle_miner",
    "games_puzzle_attempt",
    "games_puzzle_result",
    "games_puzzle_player",
    "games_puzzle_rating",
    "games_puzzle_rating_change",
    "games_puzzle_day",
    "games_puzzle_streak",
)


def fingerprint() -> dict[str, tuple[int, str]]:
    """Each table's row count and a digest of all its rows."""
    found = {}
    with connection.cursor() as cursor:
        for table in GAME_DATA:
            cursor.execute(
                f"SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '')"
                f" FROM {table} AS t"
            )
            found[table] = cursor.fetchone()
    return found


class Moving:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at


@pytest.fixture
def world(settings, player) -> dict[str, Any]:
    """Games of every kind, and the values of every path parameter."""
    settings.ARENA_ROTATION = "classic:weekly,wasp:daily"
    settings.LOG_STREAM_SECONDS, settings.LOG_POLL_SECONDS = 1, 0.1  # the stream ends soon
    moving = Moving(NOON - dt.timedelta(days=1))
    with clock.frozen(moving):
        (alice, alice_token), (bob, _) = player("alice"), player("bob")
        yesterday, _ = dailies.prepare(DAY - dt.timedelta(days=1))
        closed, _ = services.challenge_join(date=yesterday.date, player=bob)
        services.game_command(game_id=closed.game_id, actor=bob, command={"type": "resign"})
        moving.at = NOON
        dailies.prepare(DAY)
        open_day, _ = services.challenge_join(date=DAY, player=alice)
        playing = services.game_create(owner=alice, seed=1)
        private = services.game_create(owner=alice, seed=2, public=False)
        finished = services.game_create(owner=bob, seed=3)
        services.game_command(game_id=finished.game_id, actor=bob, command={"type": "resign"})
        race = contests.race_create(
            creator=alice, rules="classic", deals=1, time_limit=dt.timedelta(minutes=10),
            countdown=dt.timedelta(seconds=30),
        )  # fmt: skip
        contests.race_join(race=race, player=bob)
        arena = contests.arena_schedule(
            rules="wasp",
            starts_at=NOON - dt.timedelta(hours=1),
            ends_at=NOON + dt.timedelta(hours=1),
        )
        arena_game, _ = contests.arena_play(arena=arena, player=bob)
        # Puzzles: one of Alice's being played, one Bob gave up, and today's.
        for name in ("open_two_ways", "hidden_only_move", "reveal_then_open"):
            make_puzzle(name)
        solving = puzzles.puzzle_next(player=alice)
        given_up = puzzles.puzzle_next(player=bob)
        puzzles.puzzle_give_up(attempt_id=given_up.id, player=bob)
        puzzles.puzzle_days_prepare(DAY)
        moving.at = NOON + dt.timedelta(minutes=1)  # the race's start has come, unsealed
    return {
        "clock": moving,
        "owner_token": alice_token,
        "game_id": [
            str(game.game_id) for game in (open_day, closed, playing, private, finished, arena_game)
        ],
        "version": ["1"],
        "step": ["0", "1"],
        "date": ["today", DAY.isoformat(), (DAY - dt.timedelta(days=1)).isoformat()],
        "race": [race.code],
        "arena": [str(arena.id)],
        "username": ["alice", "bob"],
        "scope": ["daily", "classic"],
        "metric": ["wins", "best_time", "streak", "rating"],
        "rules": ["classic", "wasp"],
        "name": [
            "2026-11.scorpion.gz",
            "2026-11.scorpion.gz.sha256",
            "2026-11.puzzles.csv.gz",
            "2026-11.puzzles.csv.gz.sha256",
        ],
        "attempt": [str(solving.id), str(given_up.id)],
    }


def get_paths(openapi: Any) -> list[str]:
    """Every path of the OpenAPI document that answers GET."""
    return [path for path, item in (openapi.spec / "paths").items() if "get" in item]


def concrete(path: str, values: dict[str, Any]) -> list[str]:
    """``path`` with each of its parameters replaced by every value the world has."""
    names = re.findall(r"{(\w+)}", path)
    filled = []
    for combination in itertools.product(*(values[name] for name in names)):
        url = path
        for name, value in zip(names, combination, strict=True):
            url = url.replace("{" + name + "}", value)
        filled.append(url)
    return filled


def test_every_get_of_the_api_leaves_the_game_data_unchanged(api, openapi, player, world) -> None:
    staff = api.as_user(player("root", is_staff=True, is_superuser=True)[1])
    stranger = api.as_user(player("carol")[1])
    owner = api.as_user(world["owner_token"])
    paths = get_paths(openapi)
    assert len(paths) >= 20, paths  # the whole document, not an excerpt
    with clock.frozen(world["clock"]):
        before = fingerprint()
        asked = 0
        for path in paths:
            for url in concrete(path, world):
                for client in (api, stranger, owner, staff):
                    response = client.get(url)
                    assert response.status_code < 500, (url, response.content)
                    asked += 1
        after = fingerprint()
    assert asked > 100
    changed = {table for table in GAME_DATA if before[table] != after[table]}
    assert not changed, f"a GET wrote to {sorted(changed)}"
