"""Three players race over the REST API of process A while a watcher follows the race's
channel on process B (PostgreSQL and Redis shared), and an arena runs beside it. Every
body and frame about the race and the arena is scanned: while they run no seed and no card
that was never face-up leaves the server; once they end, everything is public."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from games.dailies import contests as domain
from games.dailies import secrets
from games.store import streams
from games.store.models import Game
from tests.e2e.conftest import ws_ticket
from tests.e2e.players import register

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The DAILY_SECRET of the live servers (tests/e2e/conftest.py).
E2E_SECRET = "e2e-daily-secret-" + "d9Wx" * 8


@pytest.fixture(scope="module")
def cluster(live_server_factory, redis_url):
    return live_server_factory(redis_url=redis_url), live_server_factory(redis_url=redis_url)


def walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


class Watcher(threading.Thread):
    """Collects every frame of a feed until a ``finish`` frame (or a timeout)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.frames: list[dict[str, Any]] = []
        self.ready = threading.Event()

    def run(self) -> None:
        with connect(self.url) as ws:
            self.ready.set()
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                try:
                    frame = json.loads(ws.recv(timeout=2))
                except TimeoutError:
                    ws.send(json.dumps({"type": "ping"}))
                    continue
                self.frames.append(frame)
                if frame["type"] == "finish":
                    deadline = min(deadline, time.monotonic() + 1.5)  # and what follows it


def play_a_little(
    client: httpx.Client, game: str, moves: int, seen: list[Any], resign: bool = True
) -> None:
    """Play up to ``moves`` legal actions (what /moves offers), then resign."""
    for _ in range(moves):
        offered = client.get(f"/api/v1/games/{game}/moves").json()["moves"]
        seen.append(offered)
        if not offered:
            break
        answer = client.post(f"/api/v1/games/{game}/commands", json=offered[0])
        assert answer.status_code == 201, answer.text
        seen.append(answer.json())
    if not resign:
        return
    answer = client.post(f"/api/v1/games/{game}/commands", json={"type": "resign"})
    assert answer.status_code in (201, 422), answer.text


def test_three_racers_a_watcher_on_another_process_and_nothing_leaks(cluster, settings):
    a, b = cluster
    settings.DAILY_SECRET = E2E_SECRET
    names = ("alice", "bob", "carol")
    players = {name: register(a.http, name) for name in names}
    bodies: list[Any] = []  # everything read while the race and the arena run

    race = (
        players["alice"]
        .post("/api/v1/races", json={"deals": 2, "countdown": 4, "time_limit": 60})
        .json()
    )
    bodies.append(race)
    code = race["code"]
    for name in ("bob", "carol"):
        joined = players[name].post(f"/api/v1/races/{code}/join")
        assert joined.status_code == 201, joined.text
        bodies.append(joined.json())
    now = dt.datetime.now(dt.UTC)
    arena = domain.arena_create(
        rules="classic", starts_at=now, ends_at=now + dt.timedelta(seconds=30), title="e2e"
    )

    watcher = Watcher(f"{b.ws}/ws/races/{code}/")
    arena_watcher = Watcher(f"{b.ws}/ws/arenas/{arena.id}/")
    watcher.start()
    arena_watcher.start()
    assert watcher.ready.wait(10) and arena_watcher.ready.wait(10)

    # Wait for the start the server announces, not for our own clock.
    deadline = time.monotonic() + 30
    while not any(f["type"] == "start" for f in watcher.frames):
        assert time.monotonic() < deadline, watcher.frames
        time.sleep(0.05)

    games: dict[str, list[str]] = {}
    for name, client in players.items():
        dealt = client.post(f"/api/v1/races/{code}/games")
        assert dealt.status_code == 201, dealt.text
        bodies.append(dealt.json())
        games[name] = [g["id"] for g in dealt.json()["results"]]
        assert all(g["seed"] is None for g in dealt.json()["results"])

    # While it runs: another racer's game is closed to everyone, on both processes.
    for base in (a.http, b.http):
        for reader in (players["bob"], httpx.Client(base_url=base, timeout=30)):
            refused = httpx.get(
                f"{base}/api/v1/games/{games['alice'][0]}/events", headers=reader.headers
            )
            assert refused.status_code == 403 and refused.json()["code"] == "contest_in_progress"
    ticket = ws_ticket(b.http, players["bob"].token)
    spectate = f"{b.ws}/ws/games/{games['alice'][0]}/?ticket={ticket}"
    with connect(spectate) as ws, pytest.raises(Exception) as closed:
        ws.recv(timeout=10)
    assert getattr(getattr(closed.value, "rcvd", None), "code", None) == 4403

    racers = [
        threading.Thread(
            target=lambda name=name, game=game, n=n: play_a_little(
                players[name], game, 3 + 2 * n, bodies, resign=game == games[name][0]
            )
        )
        for n, name in enumerate(names)
        for game in games[name]
    ]
    arena_games = []
    for client in players.values():
        played = client.post(f"/api/v1/arenas/{arena.id}/play")
        assert played.status_code == 201, played.text
        bodies.append(played.json())
        arena_games.append(played.json()["id"])
        play_a_little(client, played.json()["id"], 2, bodies)
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(timeout=120)
    for path in ("", "/standings", "/games"):
        for client in players.values():
            bodies.append(client.get(f"/api/v1/races/{code}{path}").json())
            bodies.append(client.get(f"/api/v1/arenas/{arena.id}{path}").json())
    bodies.append(httpx.get(f"{a.http}/api/v1/races?limit=200").json())
    bodies.append(httpx.get(f"{a.http}/api/v1/arenas?limit=200").json())
    for name, client in players.items():
        for game in games[name]:
            bodies.append(client.get(f"/api/v1/games/{game}").json())
            bodies.append(client.get(f"/api/v1/games/{game}/events").json())
            bodies.append(client.get(f"/api/v1/games/{game}/states/1").json())
    assert not any(f["type"] == "finish" for f in watcher.frames)
    during = bodies + list(watcher.frames) + list(arena_watcher.frames)
    for name, client in players.items():  # the last deals end: so does the race
        answer = client.post(f"/api/v1/games/{games[name][1]}/commands", json={"type": "resign"})
        assert answer.status_code in (201, 422), answer.text

    # Everyone finished every deal: the race ends at once, announced on process B.
    watcher.join(timeout=30)
    frames = watcher.frames
    finish = next(frame for frame in frames if frame["type"] == "finish")
    assert [f["type"] for f in frames[:2]] == ["race", "countdown"]
    standings = [f for f in frames if f["type"] == "standings"]
    assert len(standings) > 5
    assert {r["player"] for r in finish["results"]} == set(names)
    assert all(r["finished"] == 2 for r in finish["results"])
    final = httpx.get(f"{a.http}/api/v1/races/{code}/standings").json()
    assert final["status"] == "finished" and final["results"] == finish["results"]
    # The ranking each process applied result by result is the one read whole (a frame
    # sent while the race ran names no game: it goes to every watcher alike).
    assert without_games(standings[-1]["results"]) == without_games(final["results"])

    # The scan: nothing secret in anything read, or framed, before the finish.
    race_seeds = [secrets.contest_seed(race["id"], n) for n in (1, 2)]
    arena_seeds = [secrets.contest_seed(arena.id, 1)]
    text = json.dumps(during)
    for seed in race_seeds + arena_seeds:
        assert str(seed) not in text
    checked = 0
    for value in walk(during):
        if isinstance(value, dict) and "deal" in value:
            assert value["deal"] is None and value["seed"] is None
        if isinstance(value, dict) and {"id", "columns", "version", "reserve"} <= set(value):
            # A Game: every card it shows is face-up at that position of that version.
            assert value["seed"] is None and "reserve_cards" not in value
            state = streams.at_version(value["id"], value["version"]).state
            for shown, down in zip(value["columns"], state.down, strict=True):
                assert all(card is None for card in shown[:down])
                assert None not in shown[down:]
            checked += 1
    assert checked > 20
    assert Game.objects.filter(contest__in=[race["id"], arena.id]).count() == 9

    # After: the deals, the seeds and every replay are public, on both processes.
    assert finish["race"]["seeds"] == race_seeds
    for base in (a.http, b.http):
        replay = httpx.get(f"{base}/api/v1/games/{games['alice'][1]}/events").json()
        assert replay["results"][0]["data"]["seed"] == race_seeds[1]
        assert len(replay["results"][0]["data"]["deal"]) == 52
        other = httpx.get(
            f"{base}/api/v1/games/{games['carol'][0]}", headers=players["bob"].headers
        )
        assert other.status_code == 200 and other.json()["seed"] == race_seeds[0]
    assert len(httpx.get(f"{b.http}/api/v1/races/{code}/games").json()["results"]) == 6

    # The arena ends with its window; its feed says so, with the seeds of its deals.
    arena_watcher.join(timeout=60)
    arena_finish = [frame for frame in arena_watcher.frames if frame["type"] == "finish"]
    assert len(arena_finish) == 1 and arena_finish[0]["arena"]["seeds"] == arena_seeds
    public = httpx.get(f"{a.http}/api/v1/games/{arena_games[0]}").json()
    assert public["seed"] == arena_seeds[0]
    for client in players.values():
        client.close()


def test_a_watcher_on_another_process_sees_unaided_wins_ranked_first(
    cluster, settings, winning_line
):
    """Dora wins the race's deal first, with a hint; Eve wins it after her, unaided. A
    watcher on process B (the results reach it through Redis and its own ranking) sees Eve
    first and Dora's hint, in the standings and in the finish, as REST does."""
    a, b = cluster
    settings.DAILY_SECRET = E2E_SECRET
    dora, eve = register(a.http, "dora"), register(a.http, "eve")
    for _attempt in range(30):
        race = dora.post(
            "/api/v1/races",
            json={"rules": "wasp", "deals": 1, "countdown": 3, "time_limit": 120},
        ).json()
        line = winning_line("wasp", secrets.contest_seed(race["id"], 1))
        if line is not None:
            break
    assert line is not None
    assert eve.post(f"/api/v1/races/{race['code']}/join").status_code == 201
    watcher = Watcher(f"{b.ws}/ws/races/{race['code']}/")
    watcher.start()
    assert watcher.ready.wait(10)
    deadline = time.monotonic() + 30
    while not any(f["type"] == "start" for f in watcher.frames):
        assert time.monotonic() < deadline, watcher.frames
        time.sleep(0.05)

    games = {}
    for name, client in (("dora", dora), ("eve", eve)):
        dealt = client.post(f"/api/v1/races/{race['code']}/games")
        assert dealt.status_code == 201, dealt.text
        games[name] = dealt.json()["results"][0]["id"]
    hinted = dora.post(f"/api/v1/games/{games['dora']}/hints").json()
    assert hinted["recorded"] is True
    for name, client in (("dora", dora), ("eve", eve)):
        for command in line:
            answer = client.post(f"/api/v1/games/{games[name]}/commands", json=command)
            assert answer.status_code == 201, answer.text
        assert answer.json()["game"]["status"] == "won"

    watcher.join(timeout=30)  # both won their only deal: the race ends at once
    finish = next(frame for frame in watcher.frames if frame["type"] == "finish")
    standings = [f for f in watcher.frames if f["type"] == "standings"]
    final = httpx.get(f"{a.http}/api/v1/races/{race['code']}/standings").json()
    assert final["status"] == "finished"
    assert [(r["player"], r["won"], r["unaided"], r["hints"]) for r in final["results"]] == [
        ("eve", 1, 1, 0),
        ("dora", 1, 0, 1),
    ]
    dora_row, eve_row = final["results"][1], final["results"][0]
    assert dora_row["elapsed_ms"] < eve_row["elapsed_ms"]  # the faster win ranks second
    assert finish["results"] == final["results"]
    assert without_games(standings[-1]["results"]) == without_games(final["results"])
    # While the race ran, the watcher saw Dora first (won, then Eve playing), hint and all.
    assert any(
        [(r["player"], r["won"], r["hints"]) for r in frame["results"]]
        == [("dora", 1, 1), ("eve", 0, 0)]
        for frame in standings
    )
    dora.close()
    eve.close()


def without_games(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Standings rows without their game ids, which only the finish frame and the REST
    answer after the end carry."""
    return [{key: value for key, value in row.items() if key != "games"} for row in rows]
