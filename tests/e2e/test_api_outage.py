"""A real server whose database is down answers the API with 503 and Retry-After, never 500.

daphne runs in a subprocess with ``DATABASE_URL`` pointing at a port where nothing listens:
once without the connection pool (the connection is refused) and once with it (the pool
never gets a connection and times out).
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    "pool", [{"DB_POOL_MAX_SIZE": "0"}, {"DB_POOL_MAX_SIZE": "2", "DB_POOL_TIMEOUT": "1"}]
)
def test_the_api_answers_503_while_the_database_is_down(free_port, tmp_path, pool):
    closed = _unused_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")},
        "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{closed}/scorpion",
        "DEBUG": "0",
        "SECRET_KEY": "e2e-secret-key-" + "k7Qz" * 12,
        "DAILY_SECRET": "e2e-daily-secret-" + "d9Wx" * 8,
        **pool,
    }
    log = tmp_path / "daphne.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(free_port),
             "scorpion_server.asgi:application"],
            cwd=PROJECT_DIR,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{free_port}"
            _wait_for(base, server, log)
            answers = [
                httpx.get(f"{base}/api/v1/games", timeout=30),
                httpx.get(f"{base}/api/v1/players/alice", timeout=30),
                httpx.post(
                    f"{base}/api/v1/auth/token",
                    json={"username": "alice", "password": "pw"},
                    timeout=30,
                ),
            ]
        finally:
            server.terminate()
            server.wait(timeout=30)

    for answer in answers:
        assert answer.status_code == 503, (answer.text, log.read_text())
        assert answer.json()["code"] == "unavailable"
        assert answer.headers["Retry-After"] == "5"


def _wait_for(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"daphne exited with {server.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    pytest.fail(f"daphne did not answer /healthz:\n{log.read_text()}")


def _unused_port() -> int:
    """A port of 127.0.0.1 where nothing listens (bound for a moment, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
