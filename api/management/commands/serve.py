"""``manage.py serve``: migrate, collect static files, start a job worker, and run daphne in
this process; its first line says where it serves and which solver core runs (native or
python).

Running daphne in the same process as the settings keeps the embedded PostgreSQL (started
when the settings load, stopped at exit) alive exactly as long as the server. daphne runs
as ``scorpion_server.transport`` configures it: the body and message limits are the
transport's. With ``JOBS_WORKER=local`` (the default) two job workers (``manage.py worker``,
``games.jobs``: the solver's queue, and the rest) run beside it as child processes on the
same database, stopped with the server, so that one command runs everything a small site
needs.
"""

import contextlib
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.engine import solver
from games.jobs import SOLVER_QUEUE, health, runner
from scorpion_server import static, transport
from scorpion_server.env import url_of_database

logger = logging.getLogger("scorpion.serve")


class Command(BaseCommand):
    help = (
        "Apply migrations, collect static files, start a job worker (JOBS_WORKER=local) and "
        "serve HTTP and WebSocket with daphne."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
        parser.add_argument(
            "--no-migrate",
            action="store_true",
            help="Skip migrations (a deployment with several processes migrates once, apart).",
        )

    def handle(self, *args: Any, host: str, port: str, no_migrate: bool, **options: Any) -> None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise CommandError(f"PORT must be a TCP port number (1-65535); got {port!r}.")
        json_logs = settings.LOG_FORMAT == "json"

        def say(line: str) -> None:
            """A step of the start, for whoever watches it."""
            if json_logs:
                logger.info(line)
            else:
                self.stdout.write(line)
                self.stdout.flush()

        if not no_migrate:
            _migrate(say, max(0, options["verbosity"] - 1))
        began = time.monotonic()
        collected = static.collect_once()
        if collected:
            say(f"static files collected for this version in {time.monotonic() - began:.1f} s")

        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{port}"
        with _local_worker(say):
            core = solver.CORE
            if json_logs:  # every line a JSON object: through the log, and no plain access log
                logger.info("Scorpion server on %s/, solver core: %s", url, core)
            else:
                self.stdout.write(
                    f"Scorpion server on {url}/  (API docs: {url}/api/docs/; solver core: {core})"
                )
                self.stdout.flush()
            if settings.JOBS_WORKER == "local" and settings.POOL_RULES:
                threading.Thread(
                    target=_pool_progress, args=(say,), name="pool-progress", daemon=True
                ).start()
            transport.run(host, port, quiet=json_logs)
        runner.exit_now(0)  # stopped: the rest of a stop is the interpreter's teardown


def _migrate(say: Callable[[str], None], verbosity: int) -> None:
    """Apply the migrations, saying how many first (a fresh database takes seconds)."""
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if not plan:
        return
    say(f"applying {len(plan)} database migrations…")
    began = time.monotonic()
    call_command("migrate", interactive=False, verbosity=verbosity)
    say(f"migrations applied in {time.monotonic() - began:.1f} s")


#: The fresh deals each pool needs before the start is said to be over.
FIRST_DEALS = 5


def _pool_progress(say: Callable[[str], None]) -> None:
    """Say, every two seconds until every pool of ``POOL_RULES`` holds its first
    :data:`FIRST_DEALS` fresh deals (a winnable game can be dealt from each), how many
    each holds; then once that they do."""
    began = time.monotonic()
    last = ""
    try:
        while True:
            pools = health.pools()
            connection.close()
            short = [pool for pool in pools if pool.fresh < FIRST_DEALS]
            if not short:
                if last:
                    say(f"pools: every ruleset has {FIRST_DEALS} winnable deals or more")
                return
            line = "pools filling: " + ", ".join(
                f"{pool.rules} {min(pool.fresh, FIRST_DEALS)}/{FIRST_DEALS}" for pool in pools
            )
            if line != last:
                say(f"{line} ({time.monotonic() - began:.0f} s)")
                last = line
            time.sleep(2)
    except Exception as error:  # progress is a courtesy: never in the server's way
        logger.debug("pool progress stopped: %r", error)


@contextlib.contextmanager
def _local_worker(say: Callable[[str], None]) -> Iterator[None]:
    """With ``JOBS_WORKER=local``, two job workers (``manage.py worker``) on this server's
    database for as long as the server runs: one for the solver's queue
    (``SOLVER_WORKER_CONCURRENCY`` jobs at once, at ``SOLVER_WORKER_NICE``), one for every
    other queue, so that a burst of solver work never delays the clock's, and the web
    process keeps the CPU first. Both die with this process even when this one is killed,
    and :class:`_Supervisor` starts again one that dies."""
    if settings.JOBS_WORKER != "local":
        yield
        return
    env = {**os.environ, "DATABASE_URL": url_of_database(connection.settings_dict)}
    manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "worker"]
    commands = [
        [*manage, "--exclude-queues", SOLVER_QUEUE, "--die-with-parent"],
        [
            *manage,
            *("--queues", SOLVER_QUEUE),
            *("--concurrency", str(settings.SOLVER_WORKER_CONCURRENCY)),
            *("--nice", str(settings.SOLVER_WORKER_NICE)),
            "--die-with-parent",
        ],
    ]
    supervisor = _Supervisor(commands, env)
    supervisor.start()
    say(f"job workers started (pids {', '.join(str(w.pid) for w in supervisor.workers)})")
    try:
        yield
    finally:
        supervisor.stop()


class _Supervisor(threading.Thread):
    """Keeps the local workers running: one that exits while the server runs is started
    again after a wait that doubles from 0.5 s to 30 s (back to 0.5 s once it ran a
    minute), each start counted as a ``restart`` incident (``games.jobs.health``)."""

    def __init__(self, commands: list[list[str]], env: dict[str, str]) -> None:
        super().__init__(name="worker-supervisor", daemon=True)
        self.commands = commands
        self.env = env
        self.workers = [self._spawn(command) for command in commands]
        self.started = [time.monotonic() for _ in commands]
        self.waits = [0.5 for _ in commands]
        self.stopping = threading.Event()

    def _spawn(self, command: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, env=self.env)

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            for k, worker in enumerate(self.workers):
                code = worker.poll()
                if code is None or self.stopping.is_set():
                    continue
                if time.monotonic() - self.started[k] > 60:
                    self.waits[k] = 0.5
                if self.stopping.wait(self.waits[k]):
                    return
                self.waits[k] = min(30.0, self.waits[k] * 2)
                self.workers[k] = self._spawn(self.commands[k])
                self.started[k] = time.monotonic()
                logger.warning(
                    "job worker %d exited (%s); started again as %d",
                    worker.pid,
                    code,
                    self.workers[k].pid,
                )
                runner.record_restart(f"local worker {' '.join(self.commands[k][3:5])}: {code}")

    def stop(self) -> None:
        """SIGTERM to every worker; they exit within ``JOBS_STOP_SECONDS`` and a second
        (their running jobs queued again), else SIGKILL."""
        self.stopping.set()
        for worker in self.workers:
            if worker.poll() is None:
                worker.terminate()
        deadline = time.monotonic() + settings.JOBS_STOP_SECONDS + 1.2
        for worker in self.workers:
            try:
                worker.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
