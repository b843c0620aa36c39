"""Three players race today's daily challenge through the REST API of process A while a
watcher follows the standings over a real WebSocket on process B (PostgreSQL and Redis
shared)."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games.dailies.models import DailyChallenge
from tests.e2e.conftest import ws_ticket
from tests.e2e.players import register
from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def cluster(live_server_factory, redis_url):
    return live_server_factory(redis_url=redis_url), live_server_factory(redis_url=redis_url)


def play(client: httpx.Client, game: str, commands: list[dict[str, Any]]) -> None:
    for command in commands:
        response = client.post(f"/api/v1/games/{game}/commands", json=command)
        assert response.status_code == 201, response.text


def test_three_players_race_and_the_watcher_sees_every_change(cluster) -> None:
    a, b = cluster
    today = dt.datetime.now(dt.UTC).date()
    # Today's deal: one with a known winning line (instead of the secret seed's).
    DailyChallenge.objects.create(
        date=today, rules="classic", seed=WIN["seed"], created_at=dt.datetime.now(dt.UTC)
    )
    players = {name: register(a.http, name) for name in ("alice", "bob", "carol")}
    plans = {
        "alice": WIN["actions"],
        "bob": WIN["actions"][:25],
        "carol": [*WIN["actions"][:5], {"type": "resign"}],
    }
    frames: list[dict[str, Any]] = []
    with connect(f"{b.ws}/ws/challenges/today/") as watcher:
        frames.append(json.loads(watcher.recv(timeout=10)))
        games = {}
        for name, client in players.items():
            joined = client.post("/api/v1/challenges/today/join")
            assert joined.status_code == 201, joined.text
            games[name] = joined.json()["id"]
            assert joined.json()["seed"] is None and joined.json()["challenge"] == str(today)

        racers = [
            threading.Thread(target=play, args=(players[name], games[name], plans[name]))
            for name in players
        ]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(timeout=120)

        expected = httpx.get(f"{a.http}/api/v1/challenges/today/standings").json()["results"]
        deadline = time.monotonic() + 30
        while frames[-1]["results"] != expected and time.monotonic() < deadline:
            frames.append(json.loads(watcher.recv(timeout=30)))

    assert [(r["rank"], r["player"], r["status"]) for r in expected] == [
        (1, "alice", "won"),
        (2, "bob", "playing"),
        (3, "carol", "resigned"),
    ]
    assert frames[0] == {"type": "standings", "results": []}
    assert frames[-1]["results"] == expected
    # Pushed after changes, never going back: each player's move count only grows.
    seen: dict[str, int] = {}
    for frame in frames:
        for entry in frame["results"]:
            assert entry["moves"] >= seen.get(entry["player"], 0)
            seen[entry["player"]] = entry["moves"]
    assert len(frames) > 10
    assert all(set(entry) == set(expected[0]) for frame in frames for entry in frame["results"])

    # While the day runs, a racer cannot watch another's game, nor read it.
    token = players["bob"].headers["Authorization"].split()[1]
    with (
        connect(f"{b.ws}/ws/games/{games['alice']}/?ticket={ws_ticket(b.http, token)}") as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    refused = players["bob"].get(f"/api/v1/games/{games['alice']}")
    assert refused.status_code == 403 and refused.json()["code"] == "challenge_in_progress"
    for client in players.values():
        client.close()
