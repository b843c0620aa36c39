"""Costly solver work, and what everyone else feels: sixteen analyses at once from one
account, or eight accounts flooding hints on ``double`` (``--hints``).

    .venv/bin/python bench/solver_load.py [--quick] [--rounds 3] [--idle 40]
    .venv/bin/python bench/solver_load.py --hints [--quick] [--rounds 3] [--idle 40]
                                          [--flood 15] [--accounts 8] [--hostile]

On a fresh database, a daphne process serves the real application and a solver worker
runs beside it as ``manage.py serve`` starts one (``manage.py worker --queues solver
--concurrency 2 --nice 10``). Two kinds of phase of the same traffic, alternating in the
same run (idle first and last, ``--rounds`` loaded phases between), so that the machine's
own drift counts alike in both:

- **idle**: a prober reads ``/healthz`` every 20 ms, and 4 other players each send legal
  commands to a game of their own, one after another (``--idle`` seconds in all);
- **loaded**: the same, while one account asks at once for the post-game analysis of 16
  ``double`` games resigned at once (deals the solver does not decide in
  ``ANALYSIS_INLINE_NODES``), then keeps asking, as ``Retry-After`` says, until all 16 are
  answered (new games each round).

Printed: ``/healthz`` p50/p99 in each phase (target: p99 < 50 ms loaded), the other
players' commands p50/p95 in each phase and loaded/idle p95 (target <= 1.5), the
analyses' answers (200, 202, 429, 503) and how long all 16 took.

With ``--hints`` the loaded phases are a hint flood instead: ``--accounts`` accounts (8),
each with ``double`` games of its own, keep two ``GET /hint`` requests each in flight for
``--flood`` seconds a phase, every one on a position not asked before (no cached answer),
and wait what ``Retry-After`` says after a 429 or 503 (``--hostile``: 50 ms, whatever it
says). The flood's clients run in a process (and a session) of their own, so that they
share neither an interpreter with the clients that measure nor the server's share of the
CPU. Printed: ``/healthz`` p50/p99 in
each phase (target: p99 <= 50 ms loaded), the other players' commands p50/p99 in each
phase and loaded/idle p99 (target <= 2), the hints' answers by status, and hints answered
a second.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
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
from games.engine.solver import solve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ANALYSES = 16
PLAYERS = 4
INLINE_NODES = 5_000
PLAYER_RULES = "wasp"
#: Requests each flooding account keeps in flight (``--hints``).
FLOODERS = 2
#: ``double`` games each flooding account asks hints on, one position each.
FLOOD_GAMES = 150


def costly_seeds(count: int) -> list[int]:
    """The first ``count`` double seeds whose deal the solver does not decide within
    ``INLINE_NODES``: each one's analysis is a job."""
    rules = engine.RULESETS["double"]
    seeds: list[int] = []
    seed = 0
    while len(seeds) < count:
        state = engine.new_game(rules, engine.seeded_deal(rules, seed))
        if solve(rules, state, INLINE_NODES).verdict == "unknown":
            seeds.append(seed)
        seed += 1
    return seeds


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def daphne_pid() -> int:
    """The daphne process this benchmark started (a child of this process)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"daphne" in command:
                return int(entry)
    raise RuntimeError("no daphne process")


def client(base: str, name: str) -> httpx.Client:
    token = register(base, name)
    return httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=120)


class Player:
    """Another player: a wasp game of their own and legal commands for it."""

    def __init__(self, base: str, name: str, seed: int) -> None:
        self.client = client(base, name)
        created = self.client.post("/api/v1/games", json={"rules": PLAYER_RULES, "seed": seed})
        created.raise_for_status()
        self.game = created.json()["id"]
        rules = engine.RULESETS[PLAYER_RULES]
        line = engine.legal_line(rules, engine.seeded_deal(rules, seed), 20_000)
        self.commands = [engine.action_to_command(action) for action in line]
        self.sent = 0

    def command(self) -> float:
        body = self.commands[self.sent]
        self.sent += 1
        start = time.perf_counter()
        response = self.client.post(f"/api/v1/games/{self.game}/commands", json=body)
        elapsed = time.perf_counter() - start
        assert response.status_code == 201, response.text
        return elapsed


@contextlib.contextmanager
def traffic(base: str, players: list[Player]) -> Iterator[dict[str, list[float]]]:
    """The prober and the players, running for the duration of the block."""
    got: dict[str, list[float]] = {"healthz": [], "command": []}
    stop = threading.Event()

    def probe() -> None:
        with httpx.Client(base_url=base, timeout=120) as prober:
            while not stop.is_set():
                start = time.perf_counter()
                assert prober.get("/healthz").status_code == 200
                got["healthz"].append(time.perf_counter() - start)
                stop.wait(0.02)

    def play(player: Player) -> None:
        while not stop.is_set():
            got["command"].append(player.command())

    threads = [threading.Thread(target=probe)]
    threads += [threading.Thread(target=play, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    try:
        yield got
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def analyse_all(attacker: httpx.Client, games: list[str]) -> tuple[collections.Counter[int], float]:
    """Ask for every game's analysis at once, each then asked again as ``Retry-After``
    says until answered 200; the answers' statuses and the seconds it all took."""
    answers: collections.Counter[int] = collections.Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(len(games))

    def ask(game: str) -> None:
        barrier.wait()
        while True:
            response = attacker.get(f"/api/v1/games/{game}/analysis")
            with lock:
                answers[response.status_code] += 1
            if response.status_code == 200:
                return
            assert response.status_code in (202, 429, 503), response.text
            time.sleep(float(response.headers["Retry-After"]))

    start = time.perf_counter()
    threads = [threading.Thread(target=ask, args=(game,)) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers, time.perf_counter() - start


class Flooder:
    """An account with ``double`` games of its own, to ask hints on each game once (its
    position at version 1: a hint never cached before)."""

    def __init__(self, base: str, name: str, seeds: list[int]) -> None:
        self.token = register(base, name)
        self.games: list[str] = []
        with httpx.Client(
            base_url=base, headers={"Authorization": f"Token {self.token}"}, timeout=120
        ) as api:
            for seed in seeds:
                made = api.post("/api/v1/games", json={"rules": "double", "seed": seed})
                made.raise_for_status()
                self.games.append(made.json()["id"])


def flood(
    base: str, flooders: list[tuple[str, list[str]]], seconds: float, hostile: bool, out: Any
) -> None:
    """In a process of its own (so that the flood's clients do not share the measuring
    clients' interpreter): every flooder ``(token, games)`` keeps :data:`FLOODERS` hint
    requests in flight for ``seconds``. Sends back the answers' statuses, the latency of each
    hint answered, and the games left unasked. The process starts a session of its own: where
    the kernel shares CPU between sessions first (autogroups), the flood's clients then
    spend their own share, as clients on other machines would, not the server's."""
    os.setsid()
    answers: collections.Counter[int] = collections.Counter()
    answered: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def ask(token: str, games: list[str]) -> None:
        game = None
        with httpx.Client(
            base_url=base, headers={"Authorization": f"Token {token}"}, timeout=120
        ) as api:
            while time.monotonic() < stop:
                with lock:
                    game = game or (games.pop() if games else None)
                if game is None:
                    return
                started = time.perf_counter()
                response = api.get(f"/api/v1/games/{game}/hint")
                took = time.perf_counter() - started
                with lock:
                    answers[response.status_code] += 1
                if response.status_code == 200:
                    answered.append(took)
                    game = None
                    continue
                assert response.status_code in (429, 503), response.text
                wait = 0.05 if hostile else float(response.headers.get("Retry-After", "1"))
                time.sleep(min(wait, max(0.0, stop - time.monotonic())))

    threads = [
        threading.Thread(target=ask, args=(token, games))
        for token, games in flooders
        for _ in range(FLOODERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.send((dict(answers), answered, [games for _, games in flooders]))


def flooded(
    base: str, flooders: list[Flooder], seconds: float, hostile: bool
) -> tuple[collections.Counter[int], list[float]]:
    """:func:`flood` in a child process; what it sent back (the flooders lose the games
    they asked about)."""
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(
        target=flood,
        args=(base, [(f.token, f.games) for f in flooders], seconds, hostile, sending),
    )
    child.start()
    answers, answered, left = receiving.recv()
    child.join()
    for flooder, games in zip(flooders, left, strict=True):
        flooder.games = games
    return collections.Counter(answers), answered


Phases = dict[str, list[float]]


def alternate(
    base: str, players: list[Player], rounds: int, idle_seconds: float, load: Any
) -> tuple[Phases, Phases, dict[str, float]]:
    """Idle and loaded phases of the players' and the prober's traffic, alternating (idle
    first and last, so that the machine's own drift counts alike in both); ``load(n)`` is
    the ``n``-th loaded phase's work. The latencies of each kind of phase, and daphne's CPU
    per request in each."""
    idle: Phases = {"healthz": [], "command": []}
    loaded: Phases = {"healthz": [], "command": []}
    web = daphne_pid()
    web_cpu = {"idle": 0.0, "loaded": 0.0}
    for number in range(rounds + 1):
        for phase, into in (("idle", idle), ("loaded", loaded)):
            if phase == "loaded" and number == rounds:
                break
            before = cpu_seconds(web)
            with traffic(base, players) as got:
                if phase == "idle":
                    time.sleep(idle_seconds / (rounds + 1))
                else:
                    load(number)
            merge(into, got)
            web_cpu[phase] += cpu_seconds(web) - before
    per_request = {
        phase: web_cpu[phase] / max(1, len(values["command"]) + len(values["healthz"]))
        for phase, values in (("idle", idle), ("loaded", loaded))
    }
    return idle, loaded, per_request


def hint_flood(args: argparse.Namespace) -> None:
    """The ``--hints`` run: idle phases and hint floods, alternating."""
    idle_seconds = 6.0 if args.quick else args.idle
    flood_seconds = 5.0 if args.quick else args.flood
    rounds = 1 if args.quick else args.rounds
    database = fresh_database("scorpion_bench_solver_load")
    env = server_env(database, JOBS_WORKER="external", POOL_TARGET="0")
    try:
        with daphne(env) as base:
            print(f"server: daphne on {base}; {args.accounts} accounts flood hints on double")
            flooders = [
                Flooder(base, f"flooder{n}", list(range(n * FLOOD_GAMES, (n + 1) * FLOOD_GAMES)))
                for n in range(args.accounts)
            ]
            players = [Player(base, f"player{n}", 300 + n) for n in range(PLAYERS)]
            answers: collections.Counter[int] = collections.Counter()
            answered: list[float] = []

            def load(_: int) -> None:
                nonlocal answers
                phase_answers, phase_answered = flooded(base, flooders, flood_seconds, args.hostile)
                answers += phase_answers
                answered.extend(phase_answered)

            idle, loaded, per_request = alternate(base, players, rounds, idle_seconds, load)
            print("idle:")
            print(summary("/healthz", idle["healthz"], 0.99))
            print(summary("commands", idle["command"], 0.99))
            print(f"loaded ({rounds} × {flood_seconds:.0f} s of hints flooded on double):")
            print(summary("/healthz", loaded["healthz"], 0.99))
            print(summary("commands", loaded["command"], 0.99))
            shown = ", ".join(f"{status}: {count}" for status, count in sorted(answers.items()))
            print(
                f"hint answers: {shown}; {len(answered) / (rounds * flood_seconds):.1f} hints"
                f" answered a second, p50 {percentile(answered, 0.5) * 1e3:.0f} ms,"
                f" p95 {percentile(answered, 0.95) * 1e3:.0f} ms"
            )
            for phase in ("idle", "loaded"):
                print(
                    f"daphne's CPU per request (its solver processes apart), {phase}:"
                    f" {per_request[phase] * 1e3:.2f} ms"
                )
            healthz = percentile(loaded["healthz"], 0.99)
            ratio = percentile(loaded["command"], 0.99) / percentile(idle["command"], 0.99)
            print(
                f"/healthz p99 loaded {healthz * 1e3:.1f} ms (target <= 50 ms); other players'"
                f" commands p99 loaded/idle {ratio:.2f} (target <= 2)"
            )
    finally:
        drop_database(database)


def summary(name: str, values: list[float], share: float) -> str:
    return (
        f"{name:>9}: {len(values):5d} requests, p50 {percentile(values, 0.5) * 1e3:6.1f} ms,"
        f" p{round(share * 100)} {percentile(values, share) * 1e3:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a shorter idle phase")
    parser.add_argument("--idle", type=float, default=40.0, help="seconds of idle phases")
    parser.add_argument(
        "--concurrency", type=int, default=2, help="the solver worker's jobs at once (2)"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="idle and loaded phases, alternating (3)"
    )
    parser.add_argument("--hints", action="store_true", help="flood hints instead of analyses")
    parser.add_argument("--flood", type=float, default=15.0, help="seconds of each hint flood")
    parser.add_argument("--accounts", type=int, default=8, help="accounts flooding hints (8)")
    parser.add_argument(
        "--hostile", action="store_true", help="flooders ignore Retry-After (wait 50 ms)"
    )
    args = parser.parse_args()
    if args.hints:
        hint_flood(args)
        return
    idle_seconds = 5.0 if args.quick else args.idle
    rounds = 1 if args.quick else args.rounds
    seeds = costly_seeds(ANALYSES * rounds)
    database = fresh_database("scorpion_bench_solver_load")
    # No pool to fill: the solver worker's only work is the analyses.
    env = server_env(
        database,
        JOBS_WORKER="external",
        ANALYSIS_INLINE_NODES=str(INLINE_NODES),
        POOL_TARGET="0",
    )
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker", "--queues", "solver"]
        + ["--concurrency", str(args.concurrency), "--nice", "10"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with daphne(env) as base:
            print(f"server: daphne on {base} and a solver worker (pid {worker.pid})")
            print(f"costly double seeds: {seeds}\n")
            attacker = client(base, "attacker")
            games = []
            for seed in seeds:
                made = attacker.post("/api/v1/games", json={"rules": "double", "seed": seed})
                game = made.json()["id"]
                resign = {"type": "resign"}
                assert attacker.post(f"/api/v1/games/{game}/commands", json=resign).is_success
                games.append(game)
            players = [Player(base, f"player{n}", 300 + n) for n in range(PLAYERS)]
            answers: collections.Counter[int] = collections.Counter()
            took: list[float] = []
            cpu = 0.0

            def load(number: int) -> None:
                nonlocal answers, cpu
                before = cpu_seconds(worker.pid)
                batch = games[number * ANALYSES : (number + 1) * ANALYSES]
                answered, seconds = analyse_all(attacker, batch)
                cpu += cpu_seconds(worker.pid) - before
                answers += answered
                took.append(seconds)

            idle, loaded, per_request = alternate(base, players, rounds, idle_seconds, load)
            report(idle, loaded, answers, took, cpu)
            for phase in ("idle", "loaded"):
                print(f"daphne's CPU per request, {phase}: {per_request[phase] * 1e3:.2f} ms")
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        drop_database(database)


def merge(into: dict[str, list[float]], got: dict[str, list[float]]) -> None:
    for name, values in got.items():
        into[name] += values


def report(
    idle: dict[str, list[float]],
    loaded: dict[str, list[float]],
    answers: collections.Counter[int],
    took: list[float],
    cpu: float,
) -> None:
    print("idle:")
    print(summary("/healthz", idle["healthz"], 0.99))
    print(summary("commands", idle["command"], 0.95))
    seconds = ", ".join(f"{value:.1f}" for value in took)
    print(
        f"loaded ({len(took)} × {ANALYSES} analyses at once of one account; all answered in"
        f" {seconds} s; the solver worker's CPU {cpu:.1f} s in all):"
    )
    print(summary("/healthz", loaded["healthz"], 0.99))
    print(summary("commands", loaded["command"], 0.95))
    shown = ", ".join(f"{status}: {count}" for status, count in sorted(answers.items()))
    print(f"analysis answers: {shown}")
    healthz = percentile(loaded["healthz"], 0.99)
    ratio = percentile(loaded["command"], 0.95) / percentile(idle["command"], 0.95)
    print(
        f"/healthz p99 loaded {healthz * 1e3:.1f} ms (target < 50 ms); other players' commands"
        f" p95 loaded/idle {ratio:.2f} (target <= 1.5)"
    )


if __name__ == "__main__":
    main()
