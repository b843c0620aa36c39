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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from games.engine import solver
from games.jobs import SOLVER_QUEUE
from scorpion_server import transport
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
        if not no_migrate:
            verbosity = max(0, options["verbosity"] - 1)
            call_command("migrate", interactive=False, verbosity=verbosity)
        call_command("collectstatic", interactive=False, verbosity=0)

        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{port}"
        json_logs = settings.LOG_FORMAT == "json"
        with _local_worker():
            core = solver.CORE
            if json_logs:  # every line a JSON object: through the log, and no plain access log
                logger.info("Scorpion server on %s/, solver core: %s", url, core)
            else:
                self.stdout.write(
                    f"Scorpion server on {url}/  (API docs: {url}/api/docs/; solver core: {core})"
                )
                self.stdout.flush()
            transport.run(host, port, quiet=json_logs)


@contextlib.contextmanager
def _local_worker() -> Iterator[None]:
    """With ``JOBS_WORKER=local``, two job workers (``manage.py worker``) on this server's
    database for as long as the server runs: one for the solver's queue
    (``SOLVER_WORKER_CONCURRENCY`` jobs at once, at ``SOLVER_WORKER_NICE``), one for every
    other queue, so that a burst of solver work never delays the clock's, and the web
    process keeps the CPU first. Both die with this process even when this one
    is killed."""
    if settings.JOBS_WORKER != "local":
        yield
        return
    env = {**os.environ, "DATABASE_URL": url_of_database(connection.settings_dict)}
    manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "worker"]
    queues = [
        ["--exclude-queues", SOLVER_QUEUE],
        [
            *("--queues", SOLVER_QUEUE),
            *("--concurrency", str(settings.SOLVER_WORKER_CONCURRENCY)),
            *("--nice", str(settings.SOLVER_WORKER_NICE)),
        ],
    ]
    workers = [
        subprocess.Popen([*manage, *which, "--die-with-parent"], env=env) for which in queues
    ]
    logger.info("job workers started (pids %s)", ", ".join(str(w.pid) for w in workers))
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
