"""Command throughput and latency of the real server, against a one-row-insert baseline.

    .venv/bin/python bench/api.py [--quick]

A daphne process serves the real application on real PostgreSQL (``DATABASE_URL``, else
the embedded one; a fresh database is created and dropped). With 1, 4 and 8 concurrent
players, each sending legal commands to a game of their own, it measures commands per
second and p50/p99 latency; in the same run, at the same concurrency, the same clients
call a minimal DRF endpoint that inserts one row in one transaction (bench/api_app.py).
Printed: command throughput / baseline throughput (target >= 0.5 at 8 players) and the
latency of a command on a game with 1,000 events / one with 10 events (target <= 1.2).
Then ``POST /games {"winnable": true}`` from the pool (``manage.py fill_pools`` filled it
first) at 8 clients: its p95 (target <= 50 ms), against ``POST /games`` of a random seed
in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    daphne,
    drop_database,
    fresh_database,
    percentile,
    register,
    server_env,
)
from games import engine  # noqa: E402

RULES = "wasp"


def legal_commands(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` commands legal in turn from the deal of ``seed``."""
    rules = engine.RULESETS[RULES]
    line = engine.legal_line(rules, engine.seeded_deal(rules, seed), count)
    return [engine.action_to_command(action) for action in line]


class Player:
    """One client: a token, a game of its own and the commands to send to it."""

    def __init__(self, base: str, name: str, seed: int, count: int) -> None:
        self.token = register(base, name)
        self.client = httpx.Client(
            base_url=base, headers={"Authorization": f"Token {self.token}"}, timeout=60
        )
        created = self.client.post("/api/v1/games", json={"rules": RULES, "seed": seed})
        created.raise_for_status()
        self.game = created.json()["id"]
        self.commands = legal_commands(seed, count)
        self.sent = 0

    def command(self) -> float:
        body = self.commands[self.sent]
        self.sent += 1
        start = time.perf_counter()
        response = self.client.post(f"/api/v1/games/{self.game}/commands", json=body)
        elapsed = time.perf_counter() - start
        assert response.status_code == 201, response.text
        return elapsed

    def baseline(self) -> float:
        start = time.perf_counter()
        response = self.client.post("/bench/insert", json={"game": self.game, "type": "deal"})
        elapsed = time.perf_counter() - start
        assert response.status_code == 201, response.text
        return elapsed


def run_concurrently(
    players: list[Player], kind: str, per_player: int
) -> tuple[float, list[float]]:
    """(requests per second, latencies) with every player sending ``per_player`` requests."""
    latencies: list[list[float]] = [[] for _ in players]
    barrier = threading.Barrier(len(players) + 1)

    def work(index: int) -> None:
        call = getattr(players[index], kind)
        barrier.wait()
        for _ in range(per_player):
            latencies[index].append(call())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(players))]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    flat = [value for values in latencies for value in values]
    return len(flat) / elapsed, flat


def throughput(base: str, per_player: int, rounds: int) -> None:
    print(
        f"{'players':>7} {'commands/s':>11} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'baseline/s':>11} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>6}"
    )
    for concurrency in (1, 4, 8):
        players = [
            Player(
                base,
                f"p{concurrency}x{n}",
                seed=100 * concurrency + n,
                count=per_player * rounds + 5,
            )
            for n in range(concurrency)
        ]
        for player in players:  # warm connections and the server's caches
            player.command()
            player.baseline()
        ratios, cmd_rates, base_rates = [], [], []
        cmd_latencies: list[float] = []
        base_latencies: list[float] = []
        for _ in range(rounds):  # alternate, so noise hits both alike
            rate, latencies = run_concurrently(players, "command", per_player)
            cmd_rates.append(rate)
            cmd_latencies += latencies
            rate_b, latencies_b = run_concurrently(players, "baseline", per_player)
            base_rates.append(rate_b)
            base_latencies += latencies_b
            ratios.append(rate / rate_b)
        print(
            f"{concurrency:>7} {statistics.median(cmd_rates):>11.0f}"
            f" {percentile(cmd_latencies, 0.5) * 1e3:>8.1f}"
            f" {percentile(cmd_latencies, 0.99) * 1e3:>8.1f}"
            f" {statistics.median(base_rates):>11.0f}"
            f" {percentile(base_latencies, 0.5) * 1e3:>8.1f}"
            f" {percentile(base_latencies, 0.99) * 1e3:>8.1f}"
            f" {statistics.median(ratios):>6.2f}",
            flush=True,
        )
        for player in players:
            player.client.close()
    print("ratio = command throughput / baseline throughput (target >= 0.5 at 8 players)")


def long_game_latency(base: str, samples: int) -> None:
    """Latency of a command on a game with 1,000 events against one with 10."""
    short = Player(base, "short-game", seed=7, count=samples + 20)
    long = Player(base, "long-game", seed=8, count=1000 + samples + 20)
    for _ in range(8):
        short.command()
    for _ in range(998):
        long.command()
    assert short.sent == 8 and long.sent == 998  # versions 9 and 999 from created: ~10, ~1000
    timings: dict[str, list[float]] = {"short": [], "long": []}
    for _ in range(samples):  # alternate between the games
        timings["short"].append(short.command())
        timings["long"].append(long.command())
    short_p50 = percentile(timings["short"], 0.5)
    long_p50 = percentile(timings["long"], 0.5)
    print(
        f"\ncommand latency p50: game with ~10 events {short_p50 * 1e3:.2f} ms,"
        f" with ~1,000 events {long_p50 * 1e3:.2f} ms;"
        f" ratio {long_p50 / short_p50:.2f} (target <= 1.2)"
    )
    short.client.close()
    long.client.close()


WINNABLE_CLIENTS = 8


def winnable_creation(base: str, env: dict[str, str], per_client: int, rounds: int) -> None:
    """p50/p95 of ``POST /games {"winnable": true}`` at 8 clients, each game a deal of the
    classic pool, against ``POST /games`` of a random seed, alternating rounds."""
    games = WINNABLE_CLIENTS * per_client * rounds
    subprocess.run(
        [sys.executable, "manage.py", "fill_pools", "--rules", "classic", "--target", str(games)],
        cwd=Path(__file__).resolve().parents[1],
        env={**env, "POOL_FOLLOW_HINTS": "0"},
        check=True,
        stdout=subprocess.DEVNULL,
    )
    clients = []
    for n in range(WINNABLE_CLIENTS):
        token = register(base, f"winnable{n}")
        clients.append(
            httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60)
        )

    def create(client: httpx.Client, body: dict[str, Any]) -> float:
        start = time.perf_counter()
        response = client.post("/api/v1/games", json=body)
        elapsed = time.perf_counter() - start
        assert response.status_code == 201, response.text
        assert ("certified" in response.json()) == ("winnable" in body)
        return elapsed

    for client in clients:  # warm connections
        create(client, {"rules": "classic"})
    timings: dict[str, list[float]] = {"winnable": [], "random": []}
    bodies = {"winnable": {"rules": "classic", "winnable": True}, "random": {"rules": "classic"}}
    for _ in range(rounds):
        for kind, body in bodies.items():
            barrier = threading.Barrier(len(clients))

            def work(
                client: httpx.Client, body: dict[str, Any], kind: str, barrier: threading.Barrier
            ) -> None:
                barrier.wait()
                for _ in range(per_client):
                    timings[kind].append(create(client, body))

            threads = [
                threading.Thread(target=work, args=(client, body, kind, barrier))
                for client in clients
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    for client in clients:
        client.close()
    made = len(timings["winnable"])
    print(f"\nPOST /games at {WINNABLE_CLIENTS} clients, {made} games of each kind:")
    for kind in ("winnable", "random"):
        print(
            f"  {kind:>8}: p50 {percentile(timings[kind], 0.5) * 1e3:6.1f} ms,"
            f" p95 {percentile(timings[kind], 0.95) * 1e3:6.1f} ms"
        )
    p95 = percentile(timings["winnable"], 0.95)
    ratio = p95 / percentile(timings["random"], 0.95)
    print(f"  winnable p95 {p95 * 1e3:.1f} ms (target <= 50 ms); winnable/random p95 {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests (smoke run)")
    parser.add_argument(
        "--only-winnable", action="store_true", help="only the winnable creation figures"
    )
    args = parser.parse_args()
    per_player, rounds, samples = (15, 3, 40) if args.quick else (40, 5, 200)
    database = fresh_database("scorpion_bench_api")
    try:
        env = server_env(database)
        with daphne(env, "bench.api_app:application") as base:
            print(f"server: daphne on {base}, database {database.rsplit('/', 1)[-1]}\n")
            if not args.only_winnable:
                throughput(base, per_player, rounds)
                long_game_latency(base, samples)
            winnable_creation(base, env, per_client=5 if args.quick else 10, rounds=rounds)
    finally:
        drop_database(database)


if __name__ == "__main__":
    main()
