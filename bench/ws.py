"""Live spectating: from a command's acknowledgement to its event at the last spectator.

    .venv/bin/python bench/ws.py [--quick]

For 50, 200 and 500 spectators of one game, on the in-memory and on the Redis channel
layer, it sends commands over HTTP and times, for each, the delay from the 201 response
to the moment the last spectator has the event's frame. Baseline, measured in the same
run on the same sockets, alternating with the commands: one raw channel-layer group send
of a frame of the same size (no database, no replay), timed from its trigger's response.
Printed: p50/p99 of both and their ratio (target: p99 within 1.5x the baseline), timed
from the acknowledgement as asked, and from the request's sending: a command publishes on
commit, before its response is even rendered, so from the acknowledgement it looks better
than a raw send that answers only after its send; from the sending, the command's whole
path (HTTP, lock, replay, append, commit, publish) is compared with the raw send's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    daphne,
    drop_database,
    fresh_database,
    percentile,
    redis,
    register,
    server_env,
)
from games import engine  # noqa: E402

SEED = 7
RULES = "wasp"
#: Rounds played before the measured ones, and thrown away.
WARM_UP = 3


def legal_commands(count: int) -> list[dict[str, Any]]:
    """Commands legal in turn from the benchmark game's deal."""
    rules = engine.RULESETS[RULES]
    line = engine.legal_line(rules, engine.seeded_deal(rules, SEED), count)
    return [engine.action_to_command(action) for action in line]


def spectators_process(url: str, count: int, reports: Connection) -> None:
    """Child process: ``count`` WebSocket clients; for every frame, once all of them have
    it, report ``(key, time the last one got it)`` (``time.monotonic`` is system-wide)."""

    async def run() -> None:
        arrivals: dict[str, int] = {}
        sockets = []
        for _ in range(count):
            ws = await connect(url, max_queue=None, max_size=None)
            json.loads(await ws.recv())  # the snapshot
            sockets.append(ws)
        reports.send(("ready", 0.0))

        async def listen(ws: Any) -> None:
            async for text in ws:
                frame = json.loads(text)
                key = f"event:{frame['event']['seq']}" if frame["type"] == "event" else frame["key"]
                arrivals[key] = arrivals.get(key, 0) + 1
                if arrivals[key] == count:
                    reports.send((key, time.monotonic()))

        await asyncio.gather(*(listen(ws) for ws in sockets))

    asyncio.run(run())


def measure(base: str, token: str, spectators: int, rounds: int) -> dict[str, list[float]]:
    """Delays (seconds) from acknowledgement to the last spectator, commands and baseline.

    Spectators live in a child process so that their work never delays the moment this
    process sees an acknowledgement.
    """
    with httpx.Client(
        base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60
    ) as client:
        created = client.post("/api/v1/games", json={"rules": RULES, "seed": SEED})
        created.raise_for_status()
        game = created.json()["id"]
        receiving, reports = multiprocessing.get_context("spawn").Pipe(duplex=False)
        child = multiprocessing.get_context("spawn").Process(
            target=spectators_process,
            args=(f"{base.replace('http', 'ws')}/ws/games/{game}/", spectators, reports),
            daemon=True,
        )
        child.start()
        delays: dict[str, list[float]] = {
            "command": [],
            "baseline": [],
            "command_sent": [],
            "baseline_sent": [],
        }

        def last_arrival(key: str) -> float:
            if not receiving.poll(120):
                raise RuntimeError(f"spectators did not all get {key}")
            got, at = receiving.recv()
            assert got == key, (got, key)
            return float(at)

        try:
            last_arrival("ready")
            for index, command in enumerate(legal_commands(WARM_UP + rounds)):
                # A command: acknowledged by its 201 (its event is published on commit).
                sent = time.monotonic()
                response = client.post(f"/api/v1/games/{game}/commands", json=command)
                acknowledged = time.monotonic()
                assert response.status_code == 201, response.text
                body = response.json()
                arrived = last_arrival(f"event:{body['event']['seq']}")
                delays["command"].append(arrived - acknowledged)
                delays["command_sent"].append(arrived - sent)
                # The baseline: one raw group send of a frame of the same size.
                size = len(json.dumps({"type": "event", **body}))
                key = f"raw:{index}"
                text = json.dumps({"type": "bench", "key": key, "pad": ""})
                text = text[:-2] + "x" * max(0, size - len(text)) + text[-2:]
                sent = time.monotonic()
                response = client.post("/bench/raw-send", json={"game": game, "text": text})
                acknowledged = time.monotonic()
                response.raise_for_status()
                arrived = last_arrival(key)
                delays["baseline"].append(arrived - acknowledged)
                delays["baseline_sent"].append(arrived - sent)
            for samples in delays.values():
                del samples[:WARM_UP]  # the first rounds warm caches and threads up
        finally:
            child.kill()
            child.join()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke run)")
    args = parser.parse_args()
    rounds = 10 if args.quick else 40
    sizes = (50, 200, 500)
    database = fresh_database("scorpion_bench_ws")
    rows = []
    try:
        with redis() as redis_url:
            for layer in ("in-memory", "redis"):
                env = server_env(database, redis_url if layer == "redis" else None)
                with daphne(env, "bench.ws_app:application") as base:
                    token = register(base, f"ws-{layer.replace('-', '')}")
                    for spectators in sizes:
                        delays = measure(base, token, spectators, rounds)
                        rows.append((layer, spectators, delays))
                        print_row(layer, spectators, delays, flush=True)
    finally:
        drop_database(database)
    print(
        "\n'from ack': from the 201 (or the baseline trigger's 200) to the last spectator;"
        "\n'from send': from sending the request, so the command's database work counts too."
        "\ntarget: command p99 <= 1.5x baseline p99"
    )


def print_row(layer: str, spectators: int, delays: dict[str, list[float]], flush: bool) -> None:
    for label, command, baseline in (
        ("from ack ", delays["command"], delays["baseline"]),
        ("from send", delays["command_sent"], delays["baseline_sent"]),
    ):
        c50, c99 = percentile(command, 0.5) * 1e3, percentile(command, 0.99) * 1e3
        b50, b99 = percentile(baseline, 0.5) * 1e3, percentile(baseline, 0.99) * 1e3
        print(
            f"{layer:<10}{spectators:>4} spectators {label}: command p50 {c50:6.1f} ms"
            f" p99 {c99:6.1f} ms | baseline p50 {b50:6.1f} ms p99 {b99:6.1f} ms"
            f" | p99 ratio {c99 / b99:5.2f}",
            flush=flush,
        )


if __name__ == "__main__":
    main()
