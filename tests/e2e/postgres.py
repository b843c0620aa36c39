"""PostgreSQL clusters of a test's own: ``initdb`` and ``pg_ctl`` from the machine's
PostgreSQL binaries, in a temporary folder, on a free port of 127.0.0.1; and a streaming
replica of one (``pg_basebackup -R``). The machine's PostgreSQL is never touched."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]
BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def find_free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary folder, on its own port of 127.0.0.1."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port
        self.data = folder / "data"
        self.log = folder / "postgres.log"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run(
            f"{BINARIES[-1]}/initdb",
            *("-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync"),
        )

    def copy_of(self, primary: PrivatePostgres) -> None:
        """Make this cluster a streaming replica of ``primary`` (a base backup, ``-R``)."""
        self._run(
            f"{BINARIES[-1]}/pg_basebackup",
            *("-D", str(self.data), "-h", "127.0.0.1", "-p", str(primary.port)),
            *("-U", "postgres", "-R", "-X", "stream", "-c", "fast", "--no-sync"),
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(f"{BINARIES[-1]}/pg_ctl", "-D", str(self.data), "-l", str(self.log),
                  "-o", options, "-w", "start")  # fmt: skip

    def stop(self) -> None:
        self._run(f"{BINARIES[-1]}/pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


@contextlib.contextmanager
def cluster(*, migrated: bool = False) -> Iterator[PrivatePostgres]:
    """A started :class:`PrivatePostgres` (with the project's tables if ``migrated``),
    stopped and removed at the end; a skip without PostgreSQL binaries."""
    if not BINARIES:
        pytest.skip("no PostgreSQL binaries in /usr/lib/postgresql/*/bin")
    with _cluster() as made:
        made.init()
        made.start()
        if migrated:
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                cwd=PROJECT_DIR,
                env={**os.environ, "DATABASE_URL": made.url, "DEBUG": "1"},
                check=True,
                timeout=300,
            )
        yield made


@contextlib.contextmanager
def replica_of(primary: PrivatePostgres) -> Iterator[PrivatePostgres]:
    """A started streaming replica of ``primary``, stopped and removed at the end."""
    with _cluster() as made:
        made.copy_of(primary)
        made.start()
        yield made


@contextlib.contextmanager
def _cluster() -> Iterator[PrivatePostgres]:
    folder = Path(tempfile.mkdtemp(prefix="scorpion-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    made = PrivatePostgres(folder, find_free_port())
    try:
        yield made
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            made.stop()
        shutil.rmtree(folder, ignore_errors=True)
