"""Daily challenge standings as the field grows: 10, 100, then 200 players racing.

    .venv/bin/python bench/daily.py [--quick]

A daphne process serves the real application on a fresh database. Players join today's
challenge concurrently over HTTP and keep playing it (a steady background rate shared by
the whole field) while a probe player sends commands one at a time and a watcher, in a
child process, follows ``/ws/challenges/today/``. For each probe command it times the
delay from sending it to the watcher holding standings that include it: the whole path
of a change (command, standings update in the same transaction, ranking, push, socket).
In the same run it times the ranking query alone (the recompute, one round trip that
PostgreSQL answers with the standings' JSON). Printed: p50/p99 per field size and the
ratios 200 vs 10 (target for the per-event push: <= 1.5).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import daphne, drop_database, fresh_database, percentile, server_env  # noqa: E402
from games import engine  # noqa: E402

SEED = 0
FIELD_SIZES = (10, 100, 200)
#: The probe of each field size joins last, so the field counts exactly that many players.
PROBES = {size: f"probe-{size}" for size in FIELD_SIZES}
#: A winning line of the day's deal (classic seed 0): every command of it is a move or a
#: deal, so each one raises the probe's move count in the standings.
WIN = json.loads(
    (Path(__file__).resolve().parents[1] / "tests/games/golden/classic_seed0_win.json").read_text()
)["actions"]


def legal_commands(offset: int, count: int) -> list[dict[str, Any]]:
    """Commands legal in turn on the day's deal; ``offset`` varies the choices."""
    rules = engine.RULESETS["classic"]
    line = engine.legal_line(rules, engine.seeded_deal(rules, SEED), count, offset=offset)
    return [engine.action_to_command(action) for action in line]


def setup_players(database: str, count: int) -> dict[str, str]:
    """Accounts and tokens made straight in the database (hashing 200 passwords over HTTP
    would only measure the password hasher), and today's challenge on a known deal."""
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
    os.environ.setdefault("SECRET_KEY", "bench-secret-key-not-for-production-0123456789abcdef")
    os.environ.setdefault("DAILY_SECRET", "bench-daily-secret-0123456789abcdef")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games.dailies.models import DailyChallenge

    today = dt.datetime.now(dt.UTC).date()
    DailyChallenge.objects.create(
        date=today, rules="classic", seed=SEED, created_at=dt.datetime.now(dt.UTC)
    )
    names = [*PROBES.values(), *(f"racer{n:03d}" for n in range(1, count))]
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=name, password="!") for name in names
    )
    tokens = Token.objects.bulk_create(Token(user=user, key=Token.generate_key()) for user in users)
    return {user.username: token.key for user, token in zip(users, tokens, strict=True)}


def recompute_seconds(rounds: int) -> float:
    """Median time of the ranking query (the standings' recompute) for today's race."""
    from django.db import connection

    from games.dailies import challenges
    from games.reads import selectors

    day = challenges.today()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        selectors.standings_ranked(day)
        samples.append(time.perf_counter() - start)
    connection.close()
    return statistics.median(samples)


def watcher(url: str, reports: Connection) -> None:
    """Child process: report ``(probe, its moves, time)`` whenever a probe's entry grows."""
    best: dict[str, int] = {}
    with connect(url, max_size=None) as ws:
        reports.send(("ready", 0, time.monotonic()))
        while True:
            frame = json.loads(ws.recv())
            for entry in frame["results"]:
                name, moves = entry["player"], entry["moves"]
                if name.startswith("probe-") and moves > best.get(name, -1):
                    best[name] = moves
                    reports.send((name, moves, time.monotonic()))


class Race:
    """The field: players' clients, their games and their next commands."""

    def __init__(self, base: str, tokens: dict[str, str]) -> None:
        self.base = base
        self.tokens = tokens
        self.clients: dict[str, httpx.Client] = {}
        self.games: dict[str, str] = {}
        self.plans: dict[str, list[dict[str, Any]]] = {}

    def join(self, names: list[str]) -> None:
        def one(name: str) -> None:
            client = httpx.Client(
                base_url=self.base,
                headers={"Authorization": f"Token {self.tokens[name]}"},
                timeout=60,
            )
            response = client.post("/api/v1/challenges/today/join")
            assert response.status_code == 201, response.text
            self.clients[name] = client
            self.games[name] = response.json()["id"]
            probe = name.startswith("probe-")
            self.plans[name] = list(WIN) if probe else legal_commands(len(self.plans), 400)

        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(one, names))

    def play(self, name: str) -> None:
        command = self.plans[name].pop(0)
        response = self.clients[name].post(
            f"/api/v1/games/{self.games[name]}/commands", json=command
        )
        assert response.status_code == 201, response.text

    def background(self, stop: threading.Event, rate: float) -> None:
        """The field plays at ``rate`` commands a second in all, spread over its players."""
        racers = [name for name in self.clients if not name.startswith("probe-")]
        with ThreadPoolExecutor(max_workers=8) as pool:
            turn = 0
            while not stop.is_set():
                pool.submit(self.play, racers[turn % len(racers)])
                turn += 1
                stop.wait(1 / rate)


def measure(race: Race, probe: str, reports: Connection, probes: int, rate: float) -> list[float]:
    stop = threading.Event()
    field = threading.Thread(target=race.background, args=(stop, rate))
    field.start()
    delays = []
    try:
        for _ in range(probes):
            time.sleep(0.05)
            while reports.poll():
                reports.recv()
            sent = time.monotonic()
            race.play(probe)
            moves = len(WIN) - len(race.plans[probe])
            while True:
                if not reports.poll(30):
                    raise RuntimeError("the watcher saw no standings with the probe's move")
                name, seen, at = reports.recv()
                if name == probe and seen >= moves:
                    delays.append(at - sent)
                    break
    finally:
        stop.set()
        field.join()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer probes (smoke run)")
    args = parser.parse_args()
    # A probe plays the day's winning line: 49 commands before its last, winning move.
    probes, rate = (12, 20.0) if args.quick else (45, 25.0)
    database = fresh_database("scorpion_bench_daily")
    try:
        tokens = setup_players(database, max(FIELD_SIZES))
        with daphne(server_env(database), "scorpion_server.asgi:application") as base:
            race = Race(base, tokens)
            receiving, reports = multiprocessing.get_context("spawn").Pipe(duplex=False)
            child = multiprocessing.get_context("spawn").Process(
                target=watcher,
                args=(f"{base.replace('http', 'ws')}/ws/challenges/today/", reports),
                daemon=True,
            )
            child.start()
            receiving.recv()
            rows = []
            racers = [name for name in tokens if not name.startswith("probe-")]
            for size in FIELD_SIZES:
                # The field grows to size - 1 racers (earlier probes count), then its probe.
                newcomers = racers[: size - 1 - len(race.clients)]
                racers = racers[len(newcomers) :]
                race.join(newcomers)
                race.join([PROBES[size]])
                assert len(race.clients) == size
                delays = measure(race, PROBES[size], receiving, probes, rate)
                recompute = recompute_seconds(200)
                rows.append((size, delays, recompute))
                p50, p99 = percentile(delays, 0.5) * 1e3, percentile(delays, 0.99) * 1e3
                print(
                    f"{size:>4} players: change -> watcher p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"
                    f" | ranking query (recompute) {recompute * 1e3:6.3f} ms",
                    flush=True,
                )
            child.kill()
    finally:
        drop_database(database)
    (_, small, small_q), (_, large, large_q) = rows[0], rows[-1]
    print(
        f"\nratio 200 vs 10 players: change -> watcher p50"
        f" {percentile(large, 0.5) / percentile(small, 0.5):.2f}"
        f", p99 {percentile(large, 0.99) / percentile(small, 0.99):.2f} (target <= 1.5);"
        f" ranking query alone {large_q / small_q:.2f}"
    )


if __name__ == "__main__":
    main()
