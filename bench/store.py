"""Appending one event: our command path against raw PostgreSQL and the eventsourcing library.

    .venv/bin/python bench/store.py [--quick] [--rounds N]

Needs the bench extra for the library level: ``pip install -e '.[bench]'``. Five levels,
each at 1 and 8 clients, in the same run and in interleaved rounds (the machine is shared
and noisy, so every ratio printed is the median of the ratios of each round):

- ``raw``: psycopg alone, ``SELECT … FOR UPDATE`` of a stream's row and ``INSERT`` of an
  event in one transaction: the floor an event store can reach on this database;
- ``library``: the eventsourcing library (PostgreSQL, a pool of 10, its aggregate cache):
  get an aggregate, trigger an event, save it;
- ``service``: our command in process, ``games.writes.services.game_command`` with a wasp
  move, on a game of the client's own;
- ``rmove``: the same moves on a rated game (a move of a rated game writes what any move
  writes: its ratings change only when it ends);
- ``http``: the same command over HTTP to daphne;
- ``insert``: a bare DRF view inserting one row on the same daphne (``bench/api_app.py``);
- ``django``: the same command over HTTP to a daphne serving the application through
  Django's own ASGI handler (``bench/django_app.py``), the alternative to
  ``scorpion_server.handler``;
- ``finish``: the command that finishes an unrated game (a resignation, in process), whose
  statement writes the leaderboards' result and entries too;
- ``rated``: the same resignation of a rated game, whose statement also locks, updates and
  records both ratings (docs/ratings.md), each client's games of deals of its own;
- ``shared``: the same, the clients resigning games of the same deal at the same time, so
  that they queue on its rating's lock (the worst case: a daily deal's players finishing
  at the same moment).

Printed: operations per second, p50 and p99 per level; the ratios of the targets (service
≥ 1.5× library and ≥ 0.5× raw; http ≥ 0.85× insert, at both client counts; a rated
command at most 10% dearer than an unrated one: rmove ≥ 0.9× service and rated ≥ 0.9×
finish; shared / finish is printed without a target); and the round trips
each operation makes, counted on the wire (``bench/wire.py``), not assumed.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    ROOT,
    daphne,
    drop_database,
    fresh_database,
    percentile,
    register,
    server_env,
)
from bench.wire import RoundTripCounter  # noqa: E402
from games import engine  # noqa: E402

RULES = "wasp"
CLIENTS = (1, 8)
LEVELS = (
    "raw",
    "library",
    "service",
    "rmove",
    "http",
    "insert",
    "django",
    "finish",
    "rated",
    "shared",
)

Operation = Callable[[], None]


def legal_commands(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` commands legal in turn from the deal of ``seed``."""
    rules = engine.RULESETS[RULES]
    line = engine.legal_line(rules, engine.seeded_deal(rules, seed), count)
    return [engine.action_to_command(action) for action in line]


# --- raw psycopg ----------------------------------------------------------------------------


def raw_setup(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS bench_stream (id uuid PRIMARY KEY, version int NOT NULL)"
        )
        connection.execute(
            "CREATE TABLE IF NOT EXISTS bench_event (position bigserial PRIMARY KEY,"
            " stream uuid NOT NULL, seq int NOT NULL, data jsonb NOT NULL,"
            " UNIQUE (stream, seq))"
        )


def raw_client(url: str) -> Operation:
    """Lock the client's stream row and append an event, in one transaction."""
    connection = psycopg.connect(url)
    stream = uuid.uuid4()
    with connection.transaction():
        connection.execute("INSERT INTO bench_stream VALUES (%s, 0)", (stream,))
    seq = 0

    def op() -> None:
        nonlocal seq
        seq += 1
        with connection.transaction():
            connection.execute(
                "SELECT version FROM bench_stream WHERE id = %s FOR UPDATE", (stream,)
            )
            connection.execute(
                "INSERT INTO bench_event (stream, seq, data) VALUES (%s, %s, %s)",
                (stream, seq, '{"from": 1, "index": 4, "to": 7}'),
            )

    return op


# --- the eventsourcing library --------------------------------------------------------------


@functools.cache
def library_classes() -> tuple[type, type]:
    """The library's aggregate and application for the benchmark (defined once: the library
    registers each class by its name)."""
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Game(Aggregate):
        @event("Created")
        def __init__(self) -> None:
            self.moves = 0

        @event("Moved")
        def move(self, source: int, index: int, to: int) -> None:
            self.moves += 1

    class Games(Application[uuid.UUID]):
        def create(self) -> Any:
            game: Game = Game()
            self.save(game)
            return game.id

        def play(self, game_id: Any) -> None:
            game: Game = self.repository.get(game_id)
            game.move(1, 4, 7)
            self.save(game)

    return Game, Games


def library_app(url: str) -> Any:
    """An eventsourcing Application on the server of ``url``, with a pool and a cache."""
    _, games = library_classes()
    parts = urlsplit(url)
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": parts.path.lstrip("/"),
        "POSTGRES_HOST": parts.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(parts.port or 5432),
        "POSTGRES_USER": parts.username or "postgres",
        "POSTGRES_PASSWORD": parts.password or "",
        "POSTGRES_POOL_SIZE": "10",
        "AGGREGATE_CACHE_MAXSIZE": "1000",
    }
    return games(env=env)


def library_client(app: Any) -> Operation:
    game_id = app.create()
    return lambda: app.play(game_id)


# --- our service layer, in process ----------------------------------------------------------


def django_setup(url: str) -> None:
    os.environ.update(server_env(url))
    os.environ["DJANGO_SETTINGS_MODULE"] = "scorpion_server.settings"
    import django

    django.setup()


def service_client(name: str, seed: int, count: int, *, rated: bool = False) -> Operation:
    """A player with a wasp game of their own, sending its legal commands in turn; a rated
    game is started as in :func:`finishing_client`."""
    from django.contrib.auth import get_user_model

    from games.writes import services

    user = get_user_model().objects.create_user(name, password="pw-bench-2026")
    if rated:
        ruleset = engine.RULESETS[RULES]
        cards = engine.seeded_deal(ruleset, seed)
        game = services._start_game(
            owner=user, rules=ruleset, seed=seed, cards=cards, public=True, difficulty=0.5
        ).game_id
    else:
        game = services.game_create(owner=user, rules=RULES, seed=seed).game_id
    commands = iter(legal_commands(seed, count))

    def op() -> None:
        services.game_command(game_id=game, actor=user, command=next(commands))

    return op


def finishing_client(name: str, seeds: list[int], *, rated: bool) -> Operation:
    """A player with a game of each of ``seeds`` (made now, untimed), resigning one per
    operation. A rated game is started as a pool draw starts it, with its deal's difficulty
    (``services._start_game``), without the draw: the draw is the creation's cost, not the
    command's."""
    from django.contrib.auth import get_user_model

    from games.writes import services

    user = get_user_model().objects.create_user(name, password="pw-bench-2026")
    ruleset = engine.RULESETS[RULES]
    games = [
        services._start_game(
            owner=user,
            rules=ruleset,
            seed=seed,
            cards=engine.seeded_deal(ruleset, seed),
            public=True,
            difficulty=0.5 if rated else None,
        ).game_id
        for seed in seeds
    ]
    queue = iter(games)

    def op() -> None:
        services.game_command(game_id=next(queue), actor=user, command={"type": "resign"})

    return op


def seeds(count: int, client: int, supply: int) -> list[int]:
    """``supply`` seeds of a client's own: no other client of the run deals them."""
    start = 100_000 * (10 * count + client + 1)
    return list(range(start, start + supply))


# --- over HTTP ------------------------------------------------------------------------------


def http_client(base: str, name: str, seed: int, count: int) -> tuple[Operation, Operation]:
    """(a command, a bare insert) as one HTTP client with a game of its own."""
    token = register(base, name)
    client = httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60)
    created = client.post("/api/v1/games", json={"rules": RULES, "seed": seed})
    created.raise_for_status()
    game = created.json()["id"]
    commands = iter(legal_commands(seed, count))

    def command() -> None:
        response = client.post(f"/api/v1/games/{game}/commands", json=next(commands))
        assert response.status_code == 201, response.text

    def insert() -> None:
        response = client.post("/bench/insert", json={"game": game, "type": "deal"})
        assert response.status_code == 201, response.text

    return command, insert


# --- measuring ------------------------------------------------------------------------------


def run(operations: list[Operation], per_client: int) -> tuple[float, list[float]]:
    """(operations per second, latencies) with each client running ``per_client`` in turn."""
    latencies: list[list[float]] = [[] for _ in operations]
    barrier = threading.Barrier(len(operations) + 1)

    def work(index: int) -> None:
        op = operations[index]
        barrier.wait()
        try:
            for _ in range(per_client):
                start = time.perf_counter()
                op()
                latencies[index].append(time.perf_counter() - start)
        finally:
            from django.db import connections

            connections.close_all()  # hand this thread's connection back to Django's pool

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(operations))]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    flat = [value for values in latencies for value in values]
    return len(flat) / elapsed, flat


def measure(
    clients: dict[str, list[Operation]], per_client: int, rounds: int
) -> dict[str, tuple[list[float], list[float]]]:
    """Per level: (ops/s of each round, every latency). Levels take turns within a round,
    starting from a different one each round."""
    results: dict[str, tuple[list[float], list[float]]] = {level: ([], []) for level in clients}
    for operations in clients.values():  # warm connections, pools and caches
        run(operations, 2)
    for number in range(rounds):
        order = LEVELS[number % len(LEVELS) :] + LEVELS[: number % len(LEVELS)]
        for level in order:
            rate, latencies = run(clients[level], per_client)
            results[level][0].append(rate)
            results[level][1].extend(latencies)
    return results


def ratio(results: dict[str, tuple[list[float], list[float]]], top: str, bottom: str) -> float:
    """The median over rounds of ``top``'s rate over ``bottom``'s."""
    return statistics.median(
        a / b for a, b in zip(results[top][0], results[bottom][0], strict=True)
    )


# --- round trips on the wire ----------------------------------------------------------------

SAMPLES = 20


def count_service(url: str) -> None:
    """Child process: play ``SAMPLES`` commands through the proxied ``url`` and print the
    proxy's count before and after on request of the parent (stdin/stdout)."""
    django_setup(url)
    op = service_client("counted", 4242, SAMPLES + 2)
    op()  # warm: the pool's connection, the stream cache
    print("ready", flush=True)
    sys.stdin.readline()
    for _ in range(SAMPLES):
        op()
    print("done", flush=True)


def round_trips(url: str) -> dict[str, float]:
    """Round trips per operation of each level, counted by a proxy in front of PostgreSQL."""
    counts: dict[str, float] = {}
    with RoundTripCounter.in_front_of(url) as counter:
        proxied = counter.url(url)

        def per_op(op: Operation) -> float:
            op()
            counter.reset()
            for _ in range(SAMPLES):
                op()
            return counter.count / SAMPLES

        counts["raw"] = per_op(raw_client(proxied))
        os.environ.update(PGSSLMODE="disable", PGGSSENCMODE="disable")
        library = library_app(proxied)
        counts["library"] = per_op(library_client(library))
        library.close()
        child = subprocess.Popen(
            [sys.executable, __file__, "--count-service", proxied],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
        counter.reset()
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "done"
        counts["service"] = counter.count / SAMPLES
        child.wait(timeout=60)
        with daphne(server_env(proxied), "bench.api_app:application") as base:
            command, insert = http_client(base, "counted-http", 4243, SAMPLES + 2)
            counts["http"] = per_op(command)
            counts["insert"] = per_op(insert)
        with daphne(server_env(proxied), "bench.django_app:application") as base:
            counts["django"] = per_op(http_client(base, "counted-django", 4244, SAMPLES + 2)[0])
    return counts


# --- the run --------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer operations (smoke run)")
    parser.add_argument("--rounds", type=int, default=0, help="interleaved rounds")
    parser.add_argument("--count-service", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count_service:
        count_service(args.count_service)
        return
    per_client, rounds = (10, 3) if args.quick else (40, 10)
    rounds = args.rounds or rounds
    url = fresh_database("scorpion_bench_store")
    try:
        raw_setup(url)
        django_setup(url)
        library = library_app(url)
        print(f"database {url.rsplit('/', 1)[-1]}; {rounds} rounds of {per_client} operations")
        print("a client each; wasp moves; throughput is the median over rounds\n")
        with (
            daphne(server_env(url), "bench.api_app:application") as base,
            daphne(server_env(url), "bench.django_app:application") as django_base,
        ):
            table: dict[int, dict[str, tuple[list[float], list[float]]]] = {}
            for count in CLIENTS:
                supply = per_client * (rounds + 1) + 10
                http = [
                    http_client(base, f"h{count}x{n}", 300 + 10 * count + n, supply)
                    for n in range(count)
                ]
                plain = [
                    http_client(django_base, f"d{count}x{n}", 500 + 10 * count + n, supply)[0]
                    for n in range(count)
                ]
                clients = {
                    "raw": [raw_client(url) for _ in range(count)],
                    "library": [library_client(library) for _ in range(count)],
                    "service": [
                        service_client(f"s{count}x{n}", 100 + 10 * count + n, supply)
                        for n in range(count)
                    ],
                    "rmove": [
                        service_client(f"m{count}x{n}", 200 + 10 * count + n, supply, rated=True)
                        for n in range(count)
                    ],
                    "http": [command for command, _ in http],
                    "insert": [insert for _, insert in http],
                    "django": plain,
                    "finish": [
                        finishing_client(f"f{count}x{n}", seeds(count, n, supply), rated=False)
                        for n in range(count)
                    ],
                    "rated": [
                        finishing_client(f"r{count}x{n}", seeds(count, n, supply), rated=True)
                        for n in range(count)
                    ],
                    # Client n's k-th game: the same deal as every other client's k-th.
                    "shared": [
                        finishing_client(
                            f"x{count}x{n}", [9000 + k for k in range(supply)], rated=True
                        )
                        for n in range(count)
                    ],
                }
                table[count] = measure(clients, per_client, rounds)
        library.close()
        report(table, round_trips(url))
    finally:
        drop_database(url)


def report(
    table: dict[int, dict[str, tuple[list[float], list[float]]]], trips: dict[str, float]
) -> None:
    header = f"{'level':<9}" + "".join(
        f"{f'{count} ops/s':>11}{'p50 ms':>8}{'p99 ms':>8}" for count in CLIENTS
    )
    print(header + f"{'round trips':>13}")
    for level in LEVELS:
        line = f"{level:<9}"
        for count in CLIENTS:
            rates, latencies = table[count][level]
            line += f"{statistics.median(rates):>11.0f}"
            p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
            line += f"{p50 * 1e3:>8.2f}{p99 * 1e3:>8.2f}"
        trip = trips.get(level)
        print(line + (f"{trip:>13.1f}" if trip is not None else f"{'-':>13}"))
    print()
    targets = [
        ("service / library", "service", "library", 1.5),
        ("service / raw", "service", "raw", 0.5),
        ("http / insert", "http", "insert", 0.85),
        ("http / django", "http", "django", 1.0),  # the handler kept must beat Django's
        ("rmove / service", "rmove", "service", 0.9),  # a rated move: at most 10% dearer
        ("rated / finish", "rated", "finish", 0.9),  # a rated finish: at most 10% dearer
        ("shared / finish", "shared", "finish", 0.0),  # one deal's lock: no target
    ]
    for label, top, bottom, target in targets:
        figures = "  ".join(
            f"{count} client{'s' if count > 1 else ''}: {ratio(table[count], top, bottom):.2f}"
            for count in CLIENTS
        )
        print(f"{label:<18} {figures}" + (f"   (target >= {target})" if target else ""))
    print(json.dumps({"round_trips": trips}))


if __name__ == "__main__":
    main()
