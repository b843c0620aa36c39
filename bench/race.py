"""Race standings as the field grows: 10, 100, then 500 racers.

    .venv/bin/python bench/race.py [--quick]

A daphne process serves the real application on a fresh database. For each field size a
race of one deal is made and joined (entries written straight to the database, as hashing
passwords over HTTP would only time the hasher), it starts, and every racer is dealt their
game over HTTP. The field then keeps playing at a steady rate shared by all its racers,
the same rate whatever its size, while a probe racer sends commands one at a time and a
watcher, in a child process, follows ``/ws/races/{id}/``. For each probe command it times
the delay from sending it to the watcher holding standings that include it: the whole path
of a change (command, the racer's result upserted by the command's own statement, the
result published, applied to the ranking each process holds, the push, the socket). The
sizes take turns, a batch of probes each, so that other load on the machine falls on all
alike. In the same run it times what a feed does per change (apply
one result to the ranking it holds, render the standings) and the whole read it does on
connecting. Printed: p50/p99 per field size, and the ratios against the 10-racer baseline
of the same run (target for p99 at 500: at most 1.5).
"""

from __future__ import annotations

import argparse
import contextlib
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
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import daphne, drop_database, fresh_database, percentile, server_env  # noqa: E402
from games import engine  # noqa: E402

FIELD_SIZES = (10, 100, 500)


def django_setup(database: str) -> None:
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
    env = server_env(database)
    os.environ.setdefault("SECRET_KEY", env["SECRET_KEY"])
    os.environ["DAILY_SECRET"] = env["DAILY_SECRET"]
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def make_players(count: int) -> dict[str, str]:
    """Accounts and their tokens, straight in the database."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    model = get_user_model()
    names = [f"racer{n:03d}" for n in range(count)]
    users = model.objects.bulk_create(model(username=name, password="!") for name in names)
    tokens = Token.objects.bulk_create(Token(user=user, key=Token.generate_key()) for user in users)
    return {user.username: token.key for user, token in zip(users, tokens, strict=True)}


def make_race(names: list[str]) -> tuple[str, int]:
    """A race of one classic deal joined by ``names`` (the first made it), started now;
    its id and its deal's seed."""
    from django.contrib.auth import get_user_model

    from games import clock
    from games.dailies import contests, secrets
    from games.dailies.models import Contest, Entrant

    users = list(get_user_model().objects.filter(username__in=names).order_by("username"))
    race = contests.race_create(
        creator=users[0],
        rules="classic",
        deals=1,
        starts_at=clock.now() + dt.timedelta(hours=1),
        time_limit=dt.timedelta(hours=2),
        public=True,
    )
    joined = clock.now()
    Entrant.objects.bulk_create(
        Entrant(contest=race, player=user, joined_at=joined) for user in users[1:]
    )
    Contest.objects.filter(id=race.id).update(
        starts_at=clock.now(), ends_at=clock.now() + dt.timedelta(hours=2)
    )
    return str(race.id), secrets.contest_seed(race.id, 1)


def ranking_seconds(race_id: str, rounds: int) -> tuple[float, float]:
    """Median times of reading the ranking whole (``load_board``: what a feed does on
    connecting, or after a join or a ban) and of applying one game's new result to it and
    rendering the standings (what a feed does for each command)."""
    from django.db import connection

    from games.dailies import contests
    from games.reads import selectors

    race = selectors.race_get(race_id)
    reads, changes = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        board = contests.load_board(race)
        board.text()
        reads.append(time.perf_counter() - start)
    row = dict(next(iter(board.results.values())))
    for _ in range(rounds):
        row = {**row, "version": row["version"] + 1, "moves": row["moves"] + 1}
        start = time.perf_counter()
        board.apply(row)
        board.text()
        changes.append(time.perf_counter() - start)
    connection.close()
    return statistics.median(reads), statistics.median(changes)


def watcher(url: str, probe: str, reports: Connection) -> None:
    """Child process: report ``(the probe's moves, time)`` whenever they grow."""
    best = -1
    with connect(url, max_size=None) as ws, contextlib.suppress(ConnectionClosed):
        reports.send((-1, time.monotonic()))
        while True:
            frame = json.loads(ws.recv())
            if frame["type"] != "standings":
                continue
            for entry in frame["results"]:
                if entry["player"] == probe and entry["moves"] > best:
                    best = entry["moves"]
                    reports.send((best, time.monotonic()))


class Field:
    """The racers' clients, games and next commands."""

    def __init__(self, base: str, race: str, seed: int, tokens: dict[str, str]) -> None:
        self.base, self.race, self.seed, self.tokens = base, race, seed, tokens
        self.clients: dict[str, httpx.Client] = {}
        self.games: dict[str, str] = {}
        self.plans: dict[str, list[dict[str, Any]]] = {}

    def deal(self, names: list[str]) -> None:
        rules = engine.RULESETS["classic"]
        cards = engine.seeded_deal(rules, self.seed)

        def one(index_name: tuple[int, str]) -> None:
            index, name = index_name
            client = httpx.Client(
                base_url=self.base,
                headers={"Authorization": f"Token {self.tokens[name]}"},
                timeout=60,
            )
            response = client.post(f"/api/v1/races/{self.race}/games")
            assert response.status_code == 201, response.text
            self.clients[name] = client
            self.games[name] = response.json()["results"][0]["id"]
            line = engine.legal_line(rules, cards, 300, offset=index)
            self.plans[name] = [engine.action_to_command(action) for action in line]

        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(one, enumerate(names)))

    def play(self, name: str) -> dict[str, Any]:
        command = self.plans[name].pop(0)
        response = self.clients[name].post(
            f"/api/v1/games/{self.games[name]}/commands", json=command
        )
        assert response.status_code == 201, response.text
        return command

    def background(self, probe: str, stop: threading.Event, rate: float) -> None:
        """The field plays ``rate`` commands a second in all, spread over its racers."""
        racers = [name for name in self.clients if name != probe]
        with ThreadPoolExecutor(max_workers=8) as pool:
            turn = 0
            while not stop.is_set():
                pool.submit(self.play, racers[turn % len(racers)])
                turn += 1
                stop.wait(1 / rate)

    def close(self) -> None:
        for client in self.clients.values():
            client.close()


def measure(
    field: Field, probe: str, reports: Connection, probes: int, rate: float, moves: list[int]
) -> list[float]:
    """Time ``probes`` commands of the probe while the field plays; ``moves`` counts the
    probe's moves so far (kept between batches)."""
    stop = threading.Event()
    background = threading.Thread(target=field.background, args=(probe, stop, rate))
    background.start()
    delays: list[float] = []
    try:
        while len(delays) < probes:
            time.sleep(0.05)
            while reports.poll():
                reports.recv()
            sent = time.monotonic()
            command = field.play(probe)
            if command["type"] == "restart":
                continue  # a restart leaves the count of moves as it is: nothing to see
            moves[0] += 1
            while True:
                if not reports.poll(30):
                    raise RuntimeError("the watcher saw no standings with the probe's move")
                seen, at = reports.recv()
                if seen >= moves[0]:
                    delays.append(at - sent)
                    break
    finally:
        stop.set()
        background.join()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer probes (smoke run)")
    args = parser.parse_args()
    # The field sizes take turns, a batch of probes each, so that whatever else loads the
    # machine meanwhile falls on every size alike.
    batches, batch, rate = (2, 10, 20.0) if args.quick else (6, 25, 25.0)
    database = fresh_database("scorpion_bench_race")
    delays: dict[int, list[float]] = {size: [] for size in FIELD_SIZES}
    costs: dict[int, tuple[float, float]] = {}
    children = []
    fields: dict[int, tuple[Field, str, Connection, list[int]]] = {}
    try:
        django_setup(database)
        tokens = make_players(max(FIELD_SIZES) + len(FIELD_SIZES))
        names = sorted(tokens)
        with daphne(server_env(database), "scorpion_server.asgi:application") as base:
            spawn = multiprocessing.get_context("spawn")
            for size in FIELD_SIZES:
                racers, names = names[:size], names[size:]
                race, seed = make_race(racers)
                probe = racers[-1]
                field = Field(base, race, seed, tokens)
                field.deal(racers)
                receiving, reports = spawn.Pipe(duplex=False)
                url = f"{base.replace('http', 'ws')}/ws/races/{race}/"
                child = spawn.Process(target=watcher, args=(url, probe, reports), daemon=True)
                child.start()
                children.append(child)
                receiving.recv()
                fields[size] = (field, probe, receiving, [0])
                costs[size] = ranking_seconds(race, 50)
            for _ in range(batches):
                for size in FIELD_SIZES:
                    field, probe, receiving, moves = fields[size]
                    delays[size] += measure(field, probe, receiving, batch, rate, moves)
    finally:
        for child in children:
            child.kill()
        for field, *_ in fields.values():
            field.close()
        drop_database(database)
    for size in FIELD_SIZES:
        p50, p99 = percentile(delays[size], 0.5) * 1e3, percentile(delays[size], 0.99) * 1e3
        read, change = costs[size]
        print(
            f"{size:>4} racers: command -> watcher p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"
            f" ({len(delays[size])} probes) | per change {change * 1e3:6.3f} ms,"
            f" whole read {read * 1e3:6.3f} ms",
            flush=True,
        )
    print()
    small = FIELD_SIZES[0]
    for size in FIELD_SIZES[1:]:
        p50 = percentile(delays[size], 0.5) / percentile(delays[small], 0.5)
        p99 = percentile(delays[size], 0.99) / percentile(delays[small], 0.99)
        target = " (target <= 1.5)" if size == FIELD_SIZES[-1] else ""
        print(
            f"ratio {size} vs {small} racers: p50 {p50:.2f}, p99 {p99:.2f}{target};"
            f" per change {costs[size][1] / costs[small][1]:.2f}"
        )


if __name__ == "__main__":
    main()
