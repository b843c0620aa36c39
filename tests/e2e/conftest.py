"""Real servers and a real browser for end-to-end tests: daphne processes on the test
database, and Debian's chromium driven by Playwright.

``live_server_factory`` starts ``daphne scorpion_server.asgi:application`` in a subprocess
pointed at the database pytest-django created (so rows a transactional test commits are
visible to it) and, when asked, at a Redis shared by several processes. Tests talk to the
servers over real HTTP and real WebSockets.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from scorpion_server.env import url_of_database

PROJECT_DIR = Path(__file__).resolve().parents[2]
#: Secrets strong enough for DEBUG off (scorpion_server.env refuses weak ones).
E2E_SECRET_KEY = "e2e-secret-key-" + "k7Qz" * 12
E2E_DAILY_SECRET = "e2e-daily-secret-" + "d9Wx" * 8
#: How long a server may take to answer /healthz: ``serve`` collects the static files into its
#: fresh data folder first, which took over a minute on two loaded cores with the suite's
#: other workers beside it (test_serve.py allows as long).
START_TIMEOUT_SECONDS = 120
#: Debian's chromium, which the browser tests drive through Playwright (no browser download).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium, or a skip (a failure under ``SCORPION_REQUIRE_BROWSER=1``)."""
    if not os.access(CHROMIUM, os.X_OK):
        reason = f"{CHROMIUM} is missing (.ci/run installs Debian's chromium package)"
        if os.environ.get("SCORPION_REQUIRE_BROWSER", "") == "1":
            pytest.fail(f"{reason}; SCORPION_REQUIRE_BROWSER=1 requires it")
        pytest.skip(reason)
    return CHROMIUM


@pytest.fixture(scope="session")
def chromium_args() -> list[str]:
    """Command-line flags for launching :data:`CHROMIUM` headless in a container."""
    return list(CHROMIUM_ARGS)


@dataclass
class LiveServer:
    """A running daphne process."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="session")
def live_database_url(django_db_setup: None, django_db_blocker: object) -> str:
    """The test database, as servers started by tests must reach it."""
    from django.db import connection

    return url_of_database(connection.settings_dict)


def ws_ticket(base: str, token: str) -> str:
    """A single-use WebSocket ticket (``?ticket=``) of the account ``token`` opens, asked
    from the server at ``base`` (``http://…``): a key never goes in a URL."""
    response = httpx.post(
        f"{base}/api/v1/auth/ws-ticket", headers={"Authorization": f"Token {token}"}, timeout=30
    )
    assert response.status_code == 201, response.text
    return str(response.json()["ticket"])


def find_free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_until_healthy(server: LiveServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"daphne exited with {server.process.returncode}:\n{server.log_text()}")
        try:
            if httpx.get(f"{server.http}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    log = server.log_text()
    pytest.fail(f"daphne did not answer /healthz in {START_TIMEOUT_SECONDS} s:\n{log}")


@pytest.fixture(scope="module")
def live_server_factory(
    live_database_url: str,
) -> Iterator[Callable[..., LiveServer]]:
    """Start daphne servers on the test database; all are stopped when the module ends."""
    started: list[LiveServer] = []
    workdir = Path(tempfile.mkdtemp(prefix="scorpion-live-"))

    def start(
        *,
        redis_url: str | None = None,
        serve: bool = False,
        daphne_args: tuple[str, ...] = (),
        **env_overrides: str,
    ) -> LiveServer:
        """A daphne process (with ``daphne_args``); with ``serve``, started as production
        starts it (``manage.py serve --no-migrate``: the transport's limits,
        scorpion_server.transport)."""
        port = find_free_port()
        env = {
            name: value
            for name, value in os.environ.items()
            if name not in ("REDIS_URL", "TEST_REDIS_URL", "DATABASE_URL")
        }
        env.update(
            DATABASE_URL=live_database_url,
            DEBUG="0",
            SECRET_KEY=E2E_SECRET_KEY,
            DAILY_SECRET=E2E_DAILY_SECRET,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            THROTTLE_ANON="1000000/minute",
            THROTTLE_USER="1000000/minute",
            THROTTLE_AUTH="1000000/minute",
            WS_SOCKETS_PER_ADDRESS="0",
            WS_MESSAGE_RATE="off",
            DB_POOL_MAX_SIZE="10",
            LOG_LEVEL="WARNING",
            DAILY_SOLVER_BUDGET="5000",
            SOLVER_WAIT_MS="30000",  # as in tests/conftest.py: slow when loaded, never 503
            # Jobs run only where a test starts a worker (manage.py serve with JOBS_WORKER=local).
            JOBS_WORKER="external",
        )
        if redis_url:
            env["REDIS_URL"] = redis_url
        env.update(env_overrides)
        log = workdir / f"daphne-{port}.log"
        # A data directory of its own: no static files collected by an earlier `serve` in the
        # checkout (a bare daphne then serves the source files, as they are now).
        env.setdefault("SCORPION_DATA_DIR", str(workdir / f"data-{port}"))
        if serve:
            command = [
                *(sys.executable, "manage.py", "serve", "--no-migrate"),
                *("--host", "127.0.0.1", "--port", str(port)),
            ]
        else:
            command = [
                *(sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)),
                *daphne_args,
                "scorpion_server.asgi:application",
            ]
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                cwd=PROJECT_DIR,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        server = LiveServer(port=port, process=process, log=log)
        started.append(server)
        _wait_until_healthy(server)
        return server

    yield start
    for server in started:
        server.process.terminate()
    for server in started:
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


# --- the browser (the web client's tests) --------------------------------------------------------


#: How long a browser test waits for a page to show what it expects, or to act.
EXPECT_SECONDS = 20


@pytest.fixture(scope="module")
def browser(chromium: str, chromium_args: list[str]) -> Iterator[Any]:
    """One chromium for a test module; each test opens its own contexts (``pages``)."""
    from playwright.sync_api import expect, sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the tests' ORM calls (users,
    # challenges) are plain synchronous code that runs between browser calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # What a page is waited for: a CI machine running the suite beside the compose smoke's
    # image builds (load 14 on two cores) took over 5 s, Playwright's default, for a sign-up.
    # These tests judge what the page does, never how fast (the benches time that).
    expect.set_options(timeout=EXPECT_SECONDS * 1000)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=chromium_args)
        yield launched
        launched.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``$SCORPION_SCREENSHOTS``, or a folder under pytest's temporary
    directory; its path is printed (``-s``) and written to ``web-screenshots.txt`` in
    pytest's base temporary folder."""
    folder = Path(os.environ.get("SCORPION_SCREENSHOTS") or tmp_path_factory.mktemp("web-shots"))
    folder.mkdir(parents=True, exist_ok=True)
    (tmp_path_factory.getbasetemp() / "web-screenshots.txt").write_text(f"{folder}\n")
    print(f"\nweb client screenshots: {folder}")
    return folder


@pytest.fixture
def pages(browser: Any, server: Any) -> Iterator[Callable[..., Any]]:
    """Open a page in a fresh browser context, signed in as ``player`` (anything with
    ``name`` and ``token``) if given, ``size`` pixels wide and high, with a touch screen if
    ``touch``. Any script error or CSP violation on any page fails the test."""
    contexts: list[Any] = []
    problems: list[str] = []

    def open_page(
        player: Any = None,
        *,
        lang: str = "en",
        path: str = "/",
        size: tuple[int, int] = (1280, 900),
        touch: bool = False,
    ) -> Any:
        context = browser.new_context(
            viewport={"width": size[0], "height": size[1]},
            locale="en-GB",
            has_touch=touch,
            is_mobile=touch,
        )
        seed = {"scorpion.lang": lang}
        if player:
            seed |= {"scorpion.token": player.token, "scorpion.username": player.name}
        # Stored once per tab, as the sign-in page would have.
        context.add_init_script(
            "if (!sessionStorage.getItem('seeded')) {"
            f" for (const [k, v] of Object.entries({json.dumps(seed)})) localStorage.setItem(k, v);"
            " sessionStorage.setItem('seeded', '1'); }"
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(EXPECT_SECONDS * 1000)
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("console", lambda message: _console(message, problems))
        page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
        page.goto(server.http + path)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert problems == []


def _console(message: Any, problems: list[str]) -> None:
    # Chromium logs every 4xx answer as "Failed to load resource"; refused moves are 422s.
    if message.type == "error" and "Failed to load resource" not in message.text:
        problems.append(f"console: {message.text}")
