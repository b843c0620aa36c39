"""Rights that end on open sockets: how soon every socket closes, and what it costs.

    .venv/bin/python bench/rights.py [--quick] [--accounts N] [--rounds R]

On a fresh database, two daphne processes (A and B) share PostgreSQL and Redis, as deployed
(``games.live.rights``: triggers notify, each process listens). Four measures, each with
its baseline in the same run:

- **how soon**: ``N`` accounts each hold three sockets opened with credentials (two on B,
  one on A); every account then loses a right, one way after another: its password changed
  through the API on A, its key revoked through the API, deactivated by SQL, banned by SQL,
  its staff status taken away by SQL. Printed: the time from each change's commit (its
  answer, or the SQL's) to each socket's close, p50/p95/max per way (target: under 2 s).
- **opening**: sockets opened with a ticket against anonymous ones, to the same game on B,
  alternating: time from connecting to the snapshot, p50/p95 and their ratio. The ticket
  (taken in one statement) and the rights' read (one query) are the difference.
- **frames**: an event to 200 sockets opened with credentials against the same to 200
  anonymous ones (two games on B, commands through A alternating between them): time from
  sending the command to the last socket's frame, p50/p99 and their ratio (per frame the
  check is one attribute read: target about 1).
- **writes**: what the triggers cost PostgreSQL, each statement its own transaction (in
  a server-side loop, so no round trip is timed), triggers on and off in alternating
  rounds (``ALTER TABLE … DISABLE TRIGGER``), while both processes listen: ``is_staff``
  toggled (notifies), ``last_login`` written (does not), a key inserted then deleted (the
  delete notifies): microseconds per loop, without waiting for each commit's flush to disk
  (``synchronous_commit = off``, which would hide them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import psycopg
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    daphne,
    drop_database,
    fresh_database,
    percentile,
    redis,
    server_env,
)
from games import engine  # noqa: E402

SEED = 7
WAYS = ("password", "key", "deactivate", "ban", "staff")
TRIGGERS = {
    "auth_user": ["games_rights_account_changed"],
    "games_api_key": ["games_rights_key_deleted"],
}


def legal_commands(count: int) -> list[dict[str, Any]]:
    rules = engine.RULESETS["classic"]
    line = engine.legal_line(rules, engine.seeded_deal(rules, SEED), count)
    return [engine.action_to_command(action) for action in line]


class Account:
    """A registered player: name, password, key, and the API at ``base``."""

    def __init__(self, http: httpx.AsyncClient, name: str) -> None:
        self.http = http
        self.name = name
        self.password = f"pw-{name}-Bench-2026"
        self.token = ""
        self.changes = 0

    async def register(self) -> None:
        made = await self.http.post(
            "/api/v1/auth/register", json={"username": self.name, "password": self.password}
        )
        made.raise_for_status()
        self.token = made.json()["token"]

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.token}"}

    async def ticket(self, base: str) -> str:
        got = await self.http.post(f"{base}/api/v1/auth/ws-ticket", headers=self.headers())
        got.raise_for_status()
        return str(got.json()["ticket"])

    async def sign_in(self) -> None:
        got = await self.http.post(
            "/api/v1/auth/token", json={"username": self.name, "password": self.password}
        )
        got.raise_for_status()
        self.token = got.json()["token"]


async def watch(ws_base: str, game: str, ticket: str | None) -> Any:
    query = f"?ticket={ticket}" if ticket else ""
    ws = await connect(f"{ws_base}/ws/games/{game}/{query}", max_queue=None)
    assert json.loads(await ws.recv())["type"] == "snapshot"
    return ws


async def closed_at(ws: Any) -> float:
    """When ``ws`` closes (its frames read and dropped)."""
    try:
        while True:
            await ws.recv()
    except ConnectionClosed:
        return time.monotonic()


async def end_right(way: str, account: Account, database: psycopg.AsyncConnection[Any]) -> float:
    """End one right of ``account`` the ``way`` named; the moment it committed."""
    name = account.name
    if way == "password":
        account.changes += 1
        new = f"{account.password}-{account.changes}"
        got = await account.http.post(
            "/api/v1/auth/password",
            json={"password": account.password, "new_password": new},
            headers=account.headers(),
        )
        got.raise_for_status()
        committed = time.monotonic()
        account.password, account.token = new, got.json()["token"]
        return committed
    if way == "key":
        got = await account.http.delete("/api/v1/auth/token", headers=account.headers())
        got.raise_for_status()
        return time.monotonic()
    statement = {
        "deactivate": "UPDATE auth_user SET is_active = false WHERE username = %s",
        "ban": "INSERT INTO games_player (user_id, banned) SELECT id, true FROM auth_user"
        " WHERE username = %s ON CONFLICT (user_id) DO UPDATE SET banned = true",
        "staff": "UPDATE auth_user SET is_staff = false WHERE username = %s",
    }[way]
    await database.execute(statement, [name])
    return time.monotonic()


async def restore(way: str, account: Account, database: psycopg.AsyncConnection[Any]) -> None:
    """Give back what :func:`end_right` took (a new key where it was revoked)."""
    if way == "key":
        await account.sign_in()
    elif way == "deactivate":
        await database.execute(
            "UPDATE auth_user SET is_active = true WHERE username = %s", [account.name]
        )
    elif way == "ban":
        await database.execute(
            "UPDATE games_player SET banned = false WHERE user_id ="
            " (SELECT id FROM auth_user WHERE username = %s)",
            [account.name],
        )


async def how_soon(
    a: str, b: str, accounts: list[Account], game: str, database: Any, rounds: int
) -> dict[str, list[float]]:
    """Seconds from each change's commit to each of its sockets' close, by way."""
    took: dict[str, list[float]] = defaultdict(list)
    for _ in range(rounds):
        for way in WAYS:
            if way == "staff":
                await database.execute(
                    "UPDATE auth_user SET is_staff = true WHERE username = ANY(%s)",
                    [[account.name for account in accounts]],
                )
            held = []
            for account in accounts:
                sockets = [
                    await watch(b.replace("http", "ws"), game, await account.ticket(b)),
                    await watch(b.replace("http", "ws"), game, await account.ticket(b)),
                    await watch(a.replace("http", "ws"), game, await account.ticket(a)),
                ]
                held.append((account, [asyncio.ensure_future(closed_at(ws)) for ws in sockets]))
            await asyncio.sleep(0.2)
            for account, closes in held:
                committed = await end_right(way, account, database)
                done, _ = await asyncio.wait(closes, timeout=10)
                assert len(done) == len(closes), f"{way}: a socket stayed open 10 s"
                took[way] += [close.result() - committed for close in closes]
            for account, _ in held:
                await restore(way, account, database)
    return took


async def held(http: httpx.AsyncClient, base: str) -> tuple[float, float]:
    """The server's ``scorpion_rights_hold_seconds`` so far: its sum and count."""
    text = (await http.get(f"{base}/metrics")).text
    found = {}
    for row in text.splitlines():
        name, _, value = row.partition(" ")
        if name in ("scorpion_rights_hold_seconds_sum", "scorpion_rights_hold_seconds_count"):
            found[name.rsplit("_", 1)[1]] = float(value)
    return found["sum"], found["count"]


async def opening(base: str, account: Account, game: str, rounds: int) -> dict[str, list[float]]:
    """Seconds from connecting to the snapshot, with a ticket and anonymously, alternating;
    and (``held``) the mean time the server spent holding each ticket's rights."""
    took: dict[str, list[float]] = {"ticket": [], "anonymous": []}
    before = await held(account.http, base)
    ws_base = base.replace("http", "ws")
    for index in range(rounds + 5):
        for kind in ("ticket", "anonymous"):
            ticket = await account.ticket(base) if kind == "ticket" else None
            started = time.monotonic()
            ws = await watch(ws_base, game, ticket)
            if index >= 5:  # warm-up
                took[kind].append(time.monotonic() - started)
            await ws.close()
    after = await held(account.http, base)
    took["held"] = [(after[0] - before[0]) / (after[1] - before[1])]
    return took


async def frames(
    a: str, b: str, owner: Account, viewer: Account, count: int, rounds: int
) -> dict[str, list[float]]:
    """Seconds from sending a command to its frame at the last of ``count`` sockets, for a
    game watched with credentials and one watched anonymously, alternating."""
    games, sockets = {}, {}
    for kind in ("credentials", "anonymous"):
        made = await owner.http.post(
            "/api/v1/games", json={"rules": "classic", "seed": SEED}, headers=owner.headers()
        )
        made.raise_for_status()
        games[kind] = made.json()["id"]
        sockets[kind] = [
            await watch(
                b.replace("http", "ws"),
                games[kind],
                await viewer.ticket(b) if kind == "credentials" else None,
            )
            for _ in range(count)
        ]
    took: dict[str, list[float]] = {"credentials": [], "anonymous": []}
    commands = legal_commands(rounds + 3)
    for index, command in enumerate(commands):
        for kind in ("credentials", "anonymous"):
            started = time.monotonic()
            reads = [asyncio.ensure_future(ws.recv()) for ws in sockets[kind]]
            got = await owner.http.post(
                f"{a}/api/v1/games/{games[kind]}/commands", json=command, headers=owner.headers()
            )
            assert got.status_code == 201, got.text
            await asyncio.gather(*reads)
            if index >= 3:
                took[kind].append(time.monotonic() - started)
    for kind in sockets:
        for ws in sockets[kind]:
            await ws.close()
    return took


async def writes(database_url: str, user: str, rounds: int, each: int) -> dict[str, list[float]]:
    """Microseconds per statement, triggers on and off, alternating rounds."""
    took: dict[str, list[float]] = defaultdict(list)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as db:
        # A commit's flush to disk would hide what the triggers cost (and vary with the
        # machine's other writers): this session does not wait for it.
        await db.execute("SET synchronous_commit = off")
        row = await (
            await db.execute("SELECT id FROM auth_user WHERE username = %s", [user])
        ).fetchone()
        assert row is not None
        user_id = row[0]

        async def timed(label: str, body: str) -> None:
            """``body`` ``each`` times, each its own transaction, in one server-side loop:
            no round trip in what is timed."""
            loop = (
                f"DO $$ BEGIN FOR i IN 1..{each} LOOP {body.format(user=int(user_id))};"
                " COMMIT; END LOOP; END $$"
            )
            started = time.perf_counter()
            await db.execute(loop)
            took[label].append((time.perf_counter() - started) / each * 1e6)

        for _ in range(rounds):
            for on in (True, False):
                verb = "ENABLE" if on else "DISABLE"
                for table, names in TRIGGERS.items():
                    for name in names:
                        await db.execute(f"ALTER TABLE {table} {verb} TRIGGER {name}")
                state = "on" if on else "off"
                await timed(
                    f"is_staff toggled, triggers {state}",
                    "UPDATE auth_user SET is_staff = NOT is_staff WHERE id = {user}",
                )
                await timed(
                    f"last_login written, triggers {state}",
                    "UPDATE auth_user SET last_login = now() WHERE id = {user}",
                )
                await timed(
                    f"key inserted, then deleted, triggers {state}",
                    "INSERT INTO games_api_key (user_id, digest, prefix, name, created_at,"
                    " last_used_at, last_user_agent) VALUES ({user},"
                    " md5(random()::text) || md5(random()::text), 'bench', 'bench', now(), now(),"
                    " ''); COMMIT;"
                    " DELETE FROM games_api_key WHERE user_id = {user} AND prefix = 'bench'",
                )
        for table, names in TRIGGERS.items():
            for name in names:
                await db.execute(f"ALTER TABLE {table} ENABLE TRIGGER {name}")
    return took


def line(label: str, values: list[float], unit: float = 1e3, name: str = "ms") -> str:
    return (
        f"  {label:<42} n={len(values):4d}  p50 {percentile(values, 0.5) * unit:7.1f} {name}"
        f"  p95 {percentile(values, 0.95) * unit:7.1f} {name}"
        f"  max {max(values) * unit:7.1f} {name}"
    )


async def run(a: str, b: str, database_url: str, args: argparse.Namespace) -> None:
    async with (
        httpx.AsyncClient(base_url=a, timeout=60) as http,
        await psycopg.AsyncConnection.connect(database_url, autocommit=True) as database,
    ):
        accounts = [Account(http, f"holder{n}") for n in range(args.accounts)]
        for account in accounts:
            await account.register()
        owner = Account(http, "owner")
        await owner.register()
        made = await http.post(
            "/api/v1/games", json={"rules": "classic", "seed": SEED}, headers=owner.headers()
        )
        made.raise_for_status()
        game = made.json()["id"]

        soon = await how_soon(a, b, accounts, game, database, args.rounds)
        size = f"{args.accounts} accounts × 3 sockets × {args.rounds} rounds"
        print(f"how soon (commit to close; {size}):")
        for way in WAYS:
            print(line(way, soon[way]))
        every = [value for values in soon.values() for value in values]
        print(line("all", every) + "   (target: max < 2000 ms)")

        viewer = Account(http, "viewer")
        await viewer.register()
        opened = await opening(b, viewer, game, args.opening)
        print("\nopening (connect to snapshot, on B):")
        for kind in ("ticket", "anonymous"):
            print(line(kind, opened[kind]))
        ratio = percentile(opened["ticket"], 0.5) / percentile(opened["anonymous"], 0.5)
        print(f"  ticket / anonymous p50: {ratio:.2f}")
        print(
            f"  of which holding the rights (the server's own clock, mean):"
            f" {opened['held'][0] * 1e3:.1f} ms"
        )

        # Both processes listen while the remaining measures run.
        keep = [
            await watch(server.replace("http", "ws"), game, await viewer.ticket(server))
            for server in (a, b)
        ]
        sent = await frames(a, b, owner, viewer, args.sockets, args.frames)
        print(f"\nframes (command sent to its frame at the last of {args.sockets} sockets on B):")
        for kind, values in sent.items():
            print(line(kind, values))
        ratio = statistics.median(sent["credentials"]) / statistics.median(sent["anonymous"])
        p99 = percentile(sent["credentials"], 0.99) / percentile(sent["anonymous"], 0.99)
        print(f"  credentials / anonymous: p50 {ratio:.2f}, p99 {p99:.2f} (target: about 1)")

        cost = await writes(database_url, "owner", args.write_rounds, args.writes)
        print(f"\nwrites (each its own transaction; {args.write_rounds} rounds of {args.writes}):")
        for label in sorted(cost):
            values = cost[label]
            print(f"  {label:<46} median {statistics.median(values):7.1f} µs each")
        for ws in keep:
            await ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--accounts", type=int, default=10, help="accounts losing rights (10)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the five ways (3)")
    args = parser.parse_args()
    args.opening = 20 if args.quick else 100
    args.sockets = 50 if args.quick else 200
    args.frames = 10 if args.quick else 40
    args.writes = 100 if args.quick else 500
    args.write_rounds = 2 if args.quick else 5
    if args.quick:
        args.accounts, args.rounds = min(args.accounts, 3), 1
    database = fresh_database("scorpion_bench_rights")
    try:
        with redis() as redis_url:
            env = server_env(database, redis_url)
            with daphne(env) as a, daphne(env) as b:
                print(f"servers: A {a}, B {b}, on one PostgreSQL and one Redis\n")
                asyncio.run(run(a, b, database, args))
    finally:
        drop_database(database)


if __name__ == "__main__":
    main()
