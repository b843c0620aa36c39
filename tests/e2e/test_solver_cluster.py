"""Solver work for requests across real daphne processes (``games.reads.solver_work``): it
runs in each server's pool of processes, not in the server; an account has one search at a
time across every process (the turn is in Redis); and a server stopped, even killed, leaves
no solver process behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.players import signed_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: A hint that searches for this long, whatever the machine (samples never run out).
LONG_HINT = {"HINT_SAMPLES": "1000000", "HINT_TIME_LIMIT": "2", "SOLVER_WAIT_MS": "10000"}


@pytest.fixture(scope="module")
def cluster(live_server_factory, redis_url):
    return (
        live_server_factory(redis_url=redis_url, **LONG_HINT),
        live_server_factory(redis_url=redis_url, **LONG_HINT),
    )


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def solver_processes(pid: int) -> list[int]:
    """The server's solver pool: its children started by ``multiprocessing.spawn``."""
    return [
        child
        for child in children(pid)
        if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()
    ]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def double_game(player) -> str:
    made = player.api.post("/games", json={"rules": "double", "seed": 11})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def test_the_search_runs_in_the_pool_not_in_the_server(cluster) -> None:
    a, _ = cluster
    player = signed_up(a, "cpu")
    game = double_game(player)
    pool = solver_processes(a.process.pid)
    assert pool, "the server started its solver processes"
    server_before = cpu_seconds(a.process.pid)
    pool_before = sum(cpu_seconds(pid) for pid in pool)

    hint = player.api.get(f"/games/{game}/hint")

    assert hint.status_code == 200, hint.text
    server = cpu_seconds(a.process.pid) - server_before
    searched = sum(cpu_seconds(pid) for pid in pool) - pool_before
    # The hint searched for two seconds of wall clock, in the pool: whatever CPU the loaded
    # machine gave it went there. The server only handled the request (a few ms of CPU),
    # where a search on its own threads would have spent up to two seconds.
    assert searched > 0.02, (server, searched)
    assert server < 0.25, (server, searched)
    assert all(
        os.getpriority(os.PRIO_PROCESS, pid) > os.getpriority(os.PRIO_PROCESS, a.process.pid)
        for pid in pool
    )


def test_one_search_at_a_time_per_account_across_processes(cluster) -> None:
    a, b = cluster
    greedy, other = signed_up(a, "greedy"), signed_up(a, "other")
    games = [double_game(greedy) for _ in range(2)]
    first: list[httpx.Response] = []
    asking = threading.Thread(
        target=lambda: first.append(greedy.api.get(f"/games/{games[0]}/hint"))
    )
    asking.start()
    time.sleep(0.5)  # the first hint searches for two seconds

    # Asked on the other process while the first is on its way: refused. A loaded machine
    # may deliver the first late, so it is asked until a refusal or the first's answer.
    answers: list[httpx.Response] = []
    while asking.is_alive() and not any(r.status_code == 429 for r in answers):
        answers.append(
            httpx.get(
                f"{b.http}/api/v1/games/{games[1]}/hint",
                headers={"Authorization": f"Token {greedy.token}"},
                timeout=30,
            )
        )
    others = other.api.get(f"/games/{double_game(other)}/hint")
    asking.join()

    refused = [r for r in answers + first if r.status_code == 429]
    assert refused, [r.status_code for r in answers + first]
    assert refused[0].json()["code"] == "solver_busy"
    assert refused[0].headers["Retry-After"] == "1"
    assert others.status_code == 200
    assert greedy.api.get(f"/games/{games[1]}/hint").status_code == 200


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["stopped", "killed"])
def test_a_server_leaves_no_solver_process_behind(live_server_factory, how) -> None:
    server = live_server_factory()
    pool = solver_processes(server.process.pid)
    assert pool

    server.process.send_signal(how)
    server.process.wait(timeout=30)

    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pool):
        assert time.monotonic() < deadline, f"solver processes outlived the server: {pool}"
        time.sleep(0.2)
