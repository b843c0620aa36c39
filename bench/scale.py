"""Unit costs for a capacity model, and one web process against three, in one run.

    .venv/bin/python bench/scale.py [--quick]

Everything runs here, on a PostgreSQL cluster of its own (``initdb`` on a free port, so
that its CPU and WAL are this benchmark's alone), a private Redis and daphne processes,
measured from outside: the CPU time of each process and its children (``/proc``), and the
primary's log position (``pg_current_wal_lsn()``). Printed:

- **commands**: CPU ms per command of the web process (HTTP, the command path) and of
  PostgreSQL, and WAL bytes per command: clients play legal moves, each on a game of its
  own, over HTTP;
- **spectator frames**: CPU ms per frame delivered, of the web process the spectators are
  on (another process plays the moves: every frame crosses Redis) and of Redis;
- **hints**: CPU ms per hint of the web process and its solver processes, each hint on a
  position never asked before;
- **certified deals**: CPU ms per deal the winnable pool certifies (the candidates it
  rejects included, and the hint follower's game), in a process of its own;
- **one against three web processes**: commands per second with the same clients spread
  over one, then three daphne processes.

docs/scaling.md turns these into capacity.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import redis as redis_client
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, daphne, free_port, redis, register, server_env  # noqa: E402
from games import engine  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


# --- CPU of a process tree, from /proc ------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def tree_cpu(root: int) -> float:
    """Seconds of CPU of ``root`` and its descendants (ended children included, as their
    parent counts them once it has waited for them)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))):
            parents[int(entry.name)] = int(fields[1])
    family, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in family:
                family.add(pid)
                frontier.append(pid)
    total = 0
    for pid in family:
        if fields := _stat(pid):
            total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / TICK


# --- a PostgreSQL cluster of the benchmark's own --------------------------------------------


@contextlib.contextmanager
def private_postgres() -> Iterator[tuple[str, int]]:
    """``(url, postmaster pid)`` of a fresh cluster, migrated; removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-pg-"))
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    binaries = BINARIES[-1]

    def run(*command: str) -> None:
        subprocess.run([*as_postgres, *command], check=True, capture_output=True, timeout=120)

    run(f"{binaries}/initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    run(f"{binaries}/pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w",
        "start")  # fmt: skip
    try:
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=server_env(url),
            check=True,
        )
        yield url, int((data / "postmaster.pid").read_text().split()[0])
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            run(f"{binaries}/pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def wal_position(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()
    assert row is not None
    return int(row[0])


# --- the workloads ----------------------------------------------------------------------------


@functools.cache
def moves(seed: int, count: int) -> list[dict[str, Any]]:
    rules = engine.RULESETS["classic"]
    line = engine.legal_line(rules, engine.seeded_deal(rules, seed), count)
    return [engine.action_to_command(action) for action in line]


def play(bases: list[str], tokens: list[str], per_game: int, seconds: float = 0.0) -> int:
    """Each client (one per token) plays games of its own on ``bases[i % len(bases)]``,
    ``per_game`` moves each: one game, or as many as it can in ``seconds``; the commands
    acknowledged. The moves are worked out before the clock starts."""
    rounds = 1 if not seconds else 6
    lines = [
        [(seed, moves(seed, per_game)) for seed in range(index * 100, index * 100 + rounds)]
        for index in range(len(tokens))
    ]
    done = [0] * len(tokens)
    deadline = time.monotonic() + seconds if seconds else None

    def client(index: int, token: str) -> None:
        base = bases[index % len(bases)]
        with httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}) as http:
            for seed, line in lines[index]:
                game = http.post("/api/v1/games", json={"rules": "classic", "seed": seed})
                game.raise_for_status()
                for command in line:
                    answer = http.post(f"/api/v1/games/{game.json()['id']}/commands", json=command)
                    assert answer.status_code == 201, answer.text
                    done[index] += 1
                    if deadline is not None and time.monotonic() >= deadline:
                        return

    threads = [threading.Thread(target=client, args=pair) for pair in enumerate(tokens)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done)


async def watch(url: str, spectators: int, last_seq: int, ready: threading.Event) -> int:
    """``spectators`` sockets on ``url`` until each has seen ``last_seq``; frames received."""
    sockets = [await connect(url, max_queue=None) for _ in range(spectators)]
    for ws in sockets:
        assert json.loads(await ws.recv())["type"] == "snapshot"
    ready.set()

    async def listen(ws: Any) -> int:
        frames = 0
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
            frames += 1
            if frame.get("event", {}).get("seq", 0) >= last_seq:
                await ws.close()
                return frames

    return sum(await asyncio.gather(*(listen(ws) for ws in sockets)))


def certify_cost(database_url: str, deals: int) -> dict[str, float]:
    """CPU ms per certified deal, measured in a process of its own (this file, --certify)."""
    out = subprocess.run(
        [sys.executable, __file__, "--certify", str(deals)],
        cwd=ROOT,
        env={**server_env(database_url), "DJANGO_SETTINGS_MODULE": "scorpion_server.settings"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def _certify(deals: int) -> None:
    import django

    django.setup()
    from django.conf import settings

    from games.pools import certify

    rules = engine.RULESETS["classic"]
    started, certified, index = time.process_time(), 0, 0
    while certified < deals:
        found, _ = certify.certify(rules, index)
        certified += found is not None
        index += 1
    spent = time.process_time() - started
    print(
        json.dumps(
            {
                "ms_per_deal": 1000 * spent / deals,
                "candidates_per_deal": index / deals,
                "budget": settings.POOL_SOLVER_BUDGET,
            }
        )
    )


# --- the run ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer of everything (a try)")
    parser.add_argument("--certify", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.certify:
        _certify(args.certify)
        return
    quick = args.quick
    clients, per_client = (4, 25) if quick else (8, 50)
    spectators, frames_moves = (50, 30) if quick else (200, 60)
    hints = 8 if quick else 24
    throughput_seconds = 4.0 if quick else 10.0
    results: dict[str, Any] = {}
    with private_postgres() as (database, postmaster), redis() as redis_url:
        redis_pid = int(redis_client.Redis.from_url(redis_url).info("server")["process_id"])
        processes: list[subprocess.Popen[bytes]] = []
        env = server_env(database, redis_url, SOLVER_RATE="off", DB_POOL_MAX_SIZE="20")
        with contextlib.ExitStack() as stack:
            bases = [stack.enter_context(daphne(env, started=processes)) for _ in range(3)]
            a, b = processes[0].pid, processes[1].pid
            tokens = [register(bases[0], f"scale{n}") for n in range(max(clients, 12))]
            play(bases[:1], tokens[:2], 5)  # warm: caches, pools, imports

            # Commands on process A.
            cpu_a, cpu_db, wal = tree_cpu(a), tree_cpu(postmaster), wal_position(database)
            cpu_redis = tree_cpu(redis_pid)
            commands = play(bases[:1], tokens[:clients], per_client)
            results["commands"] = {
                "count": commands,
                "web_ms": 1000 * (tree_cpu(a) - cpu_a) / commands,
                "postgres_ms": 1000 * (tree_cpu(postmaster) - cpu_db) / commands,
                "redis_ms": 1000 * (tree_cpu(redis_pid) - cpu_redis) / commands,
                "wal_bytes": (wal_position(database) - wal) / commands,
            }

            # Frames: spectators on B of a game played on A.
            http = httpx.Client(base_url=bases[0], headers={"Authorization": f"Token {tokens[0]}"})
            game = http.post("/api/v1/games", json={"rules": "classic", "seed": 77}).json()["id"]
            ready = threading.Event()
            url = f"{bases[1].replace('http', 'ws')}/ws/games/{game}/"
            received: list[int] = []
            watcher = threading.Thread(
                target=lambda: received.append(
                    asyncio.run(watch(url, spectators, frames_moves + 1, ready))
                )
            )
            watcher.start()
            assert ready.wait(120), "the spectators did not connect"
            time.sleep(0.5)
            # Redis's CPU while nothing is sent (the processes' blocking receives): taken
            # off what the frames cost it.
            idle_redis, idle_from = tree_cpu(redis_pid), time.monotonic()
            time.sleep(2.0)
            idle_rate = (tree_cpu(redis_pid) - idle_redis) / (time.monotonic() - idle_from)
            cpu_b, cpu_redis, frames_from = tree_cpu(b), tree_cpu(redis_pid), time.monotonic()
            for command in moves(77, frames_moves):
                assert http.post(f"/api/v1/games/{game}/commands", json=command).status_code == 201
            watcher.join(180)
            redis_spent = tree_cpu(redis_pid) - cpu_redis
            redis_spent -= idle_rate * (time.monotonic() - frames_from)
            frames = received[0]
            results["frames"] = {
                "count": frames,
                "spectators": spectators,
                "web_ms": 1000 * (tree_cpu(b) - cpu_b) / frames,
                # Redis carries each frame once to the spectators' process, whatever their
                # number: its cost is per command published.
                "redis_ms_per_command": 1000 * max(0.0, redis_spent) / frames_moves,
                "redis_idle_ms_per_second": 1000 * idle_rate,
            }

            # Hints on A: positions never asked before.
            games = [
                http.post("/api/v1/games", json={"rules": "classic", "seed": 500 + n}).json()["id"]
                for n in range(hints)
            ]
            cpu_a = tree_cpu(a)
            for game in games:
                answer = http.get(f"/api/v1/games/{game}/hint")
                assert answer.status_code == 200, answer.text
            results["hints"] = {"count": hints, "web_ms": 1000 * (tree_cpu(a) - cpu_a) / hints}

            # One against three web processes (each warmed first: caches, pools, imports).
            play(bases[1:], tokens[:2], 5)
            pids = [process.pid for process in processes]
            # What a web process spends doing nothing (its event loop, the channel layer's
            # receive, the rights listener): a cost per process, not per command.
            spent, idle_from = [tree_cpu(pid) for pid in pids], time.monotonic()
            time.sleep(3.0)
            idle_ms = 1000 * (sum(tree_cpu(pid) for pid in pids) - sum(spent)) / len(pids)
            idle_ms /= time.monotonic() - idle_from
            spent = [tree_cpu(pid) for pid in pids]
            done_one = play(bases[:1], tokens[:12], 150, throughput_seconds)
            spent_one = sum(tree_cpu(pid) for pid in pids) - sum(spent)
            spent = [tree_cpu(pid) for pid in pids]
            done_three = play(bases, tokens[:12], 150, throughput_seconds)
            spent_three = sum(tree_cpu(pid) for pid in pids) - sum(spent)
            one, three = done_one / throughput_seconds, done_three / throughput_seconds
            results["throughput"] = {
                "one": one,
                "three": three,
                "ratio": three / one,
                # CPU of the web processes a command, in each layout.
                "one_ms": 1000 * spent_one / done_one,
                "three_ms": 1000 * spent_three / done_three,
                "idle_ms_per_second": idle_ms,
            }
        results["certified"] = certify_cost(database, 3 if quick else 10)
    report(results)


def report(results: dict[str, Any]) -> None:
    c, f, h, d, t = (results[k] for k in ("commands", "frames", "hints", "certified", "throughput"))
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"command        {c['web_ms']:7.2f} ms web  {c['postgres_ms']:6.2f} ms PostgreSQL"
          f"  {c['redis_ms']:6.3f} ms Redis  {c['wal_bytes']:7.0f} WAL bytes"
          f"   ({c['count']} commands)")  # fmt: skip
    print(f"frame          {f['web_ms']:7.3f} ms web  ({f['count']} frames, {f['spectators']}"
          f" spectators on another process; Redis {f['redis_ms_per_command']:.2f} ms a"
          " command they watched)")  # fmt: skip
    print(f"hint           {h['web_ms']:7.1f} ms web and solver processes   ({h['count']} hints)")
    print(f"certified deal {d['ms_per_deal']:7.0f} ms   ({d['candidates_per_deal']:.2f}"
          f" candidates a deal, budget {d['budget']})")  # fmt: skip
    print(f"commands/s     one process {t['one']:.0f}, three {t['three']:.0f}:"
          f" ratio {t['ratio']:.2f}; web CPU a command {t['one_ms']:.2f} ms against"
          f" {t['three_ms']:.2f} ms; an idle web process {t['idle_ms_per_second']:.0f} ms"
          " of CPU a second")  # fmt: skip
    print(json.dumps(results))


if __name__ == "__main__":
    main()
