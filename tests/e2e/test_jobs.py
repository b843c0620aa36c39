"""The server's job worker does the clock's work by itself: ``manage.py serve`` starts a
worker beside daphne (``JOBS_WORKER=local``), and with nobody asking, today's and
tomorrow's daily challenges are certified, the rotation's arenas made and the winnable
pools filled (by the solver's worker) in the shared database; the server then serves
today's. Stopping the server stops its workers."""

from __future__ import annotations

import datetime as dt
import os
import time

import httpx
import pytest

from games import pools
from games.dailies import challenges as dailies
from games.dailies.models import Contest, DailyChallenge

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_servers_worker_prepares_the_days_and_the_arenas(live_server_factory, settings) -> None:
    server = live_server_factory(
        serve=True,
        JOBS_WORKER="local",
        DAILY_PREPARE_AHEAD_SECONDS="86400",  # tomorrow is due at once
        ARENA_ROTATION="classic:weekly",
        POOL_RULES="classic,wasp",
        POOL_TARGET="2",
        POOL_FOLLOW_HINTS="0",
        ANALYSIS_INLINE_NODES="1",  # every analysis the solver does not decide at once is a job
    )
    today = dt.datetime.now(dt.UTC).date()
    wanted = {today, today + dt.timedelta(days=1)}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            made = set(DailyChallenge.objects.values_list("date", flat=True))
            filled = {pools.fresh_count(rules) for rules in ("classic", "wasp")}
            if (
                wanted <= made
                and Contest.objects.filter(kind="arena").count() == 2
                and filled == {2}
            ):
                break
            time.sleep(0.5)
        else:
            pytest.fail(f"only {sorted(made)} prepared, pools {filled}:\n{server.log_text()}")
        settings.DAILY_SECRET = "e2e-daily-secret-" + "d9Wx" * 8  # the server's (conftest.py)
        for day in wanted:
            row = DailyChallenge.objects.get(date=day)
            assert row.seed == dailies.certify(day).seed and row.solution
        body = httpx.get(f"{server.http}/api/v1/challenges/today", timeout=30).json()
        assert body["date"] == today.isoformat() and body["solution"] is None
        tomorrow = (today + dt.timedelta(days=1)).isoformat()
        assert httpx.get(f"{server.http}/api/v1/challenges/{tomorrow}").status_code == 404
        # A winnable game from the pool; its analysis, a job of the solver's worker, polled.
        player = httpx.Client(base_url=f"{server.http}/api/v1", timeout=30)
        answer = player.post("/auth/register", json={"username": "ada", "password": "pw-ada-12345"})
        player.headers["Authorization"] = f"Token {answer.json()['token']}"
        game = player.post("/games", json={"rules": "classic", "winnable": True}).json()
        assert game["certified"]["label"] in ("easy", "medium", "hard", "expert")
        assert player.post(f"/games/{game['id']}/commands", json={"type": "resign"}).is_success
        asked = player.get(f"/games/{game['id']}/analysis")
        assert asked.status_code == 202, asked.text
        deadline = time.monotonic() + 60
        while (
            polled := player.get(asked.headers["Location"].removeprefix("/api/v1"))
        ).status_code == 202:
            assert time.monotonic() < deadline, server.log_text()
            time.sleep(float(polled.headers["Retry-After"]) / 4)
        assert polled.status_code == 200 and polled.json()["winnable"] is True
        workers = _workers_of(server.process.pid)
        assert len(workers) == 2, server.log_text()  # the clock's, and the solver's
    finally:
        server.process.terminate()  # no worker left to write after this test's cleanup
        server.process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(map(_alive, workers)), "a worker outlived its server"


def _workers_of(pid: int) -> list[int]:
    """The child processes of ``pid`` running ``manage.py worker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().split(b"\0")
        except OSError:
            continue
        if parent == pid and b"worker" in command:
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
