"""docker-compose.yml, run for real and checked from outside, through its proxy only.

Run by ``scripts/compose-smoke`` (it needs a running Docker engine and docker-compose).
The steps, each printed with its time:

1. build the local stand-ins of the public images (``local_images``), cached by recipe;
2. build the app image and ``docker-compose up -d`` the deployment, every service on the
   host's network on a loopback port (``docker-compose.host.yml``), and wait until every
   health check passes and ``migrate`` has exited 0;
3. the job worker prepares today's daily challenge by itself: the proxy serves it;
   register; the solver worker fills the winnable pools: a winnable game is dealt;
4. register, create a game and play 20 commands through the proxy; two spectators, one on
   each web process, receive all 20 events in order, and the web processes' logs show that
   the proxy spread the commands over both;
5. kill web1: commands through the proxy still succeed, and web1's spectator resumes with
   ``?after=N`` with no gap;
6. start web1 again: healthy, and it serves requests again;
7. stop the database while a writer keeps sending commands: they are answered 503 with
   ``Retry-After``; start it again: the writer's retries (same ``Idempotency-Key``)
   succeed, and every acknowledged command is in the events table, once;
8. a WebSocket opens through the proxy with a ticket (``POST /api/v1/auth/ws-ticket``) and
   another tries a key in its URL (refused with 4401): the proxy's log then names their
   path but holds neither the key nor the ticket, nor any query string;
9. ``docker-compose down -v`` leaves no container, network or volume of the project.

Anything unexpected raises :class:`SmokeFailure`; the services' logs are then shown and
the deployment is taken down all the same (``SMOKE_KEEP=1`` leaves it up to look at).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import local_images
import yaml
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect

from games import engine

ROOT = Path(__file__).resolve().parents[2]
OVERRIDE = Path(__file__).resolve().parent / "docker-compose.host.yml"
SCALE_OVERRIDE = Path(__file__).resolve().parent / "docker-compose.scale-host.yml"
PROJECT = "scorpion-smoke"
#: Loopback ports of the services: the overrides' variables, with their defaults.
PORTS = {
    name: int(os.environ.get(name, default))
    for path in (OVERRIDE, SCALE_OVERRIDE)
    for name, default in re.findall(r"\$\{(SMOKE_\w+_PORT):-(\d+)\}", path.read_text())
}
PROXY = f"http://127.0.0.1:{PORTS['SMOKE_PROXY_PORT']}"
WEBS = ("web1", "web2")
SCALE_WEBS = ("scale-web1", "scale-web2", "scale-web3")
SCALE_PROXY = f"http://127.0.0.1:{PORTS['SMOKE_SCALE_PROXY_PORT']}"
#: A classic deal and a line of legal commands from it, long enough for every step.
RULES, SEED, PLAN_LENGTH = "classic", 20261130, 400
TIMINGS: list[tuple[str, float]] = []


class SmokeFailure(Exception):
    """The deployment did not behave as promised."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def say(message: str) -> None:
    print(f"   {message}", flush=True)


@contextlib.contextmanager
def step(title: str) -> Iterator[None]:
    """Print ``title``, then how long the block took; keep the time for the summary."""
    print(f"== {title}", flush=True)
    started = time.monotonic()
    yield
    took = time.monotonic() - started
    TIMINGS.append((title, took))
    print(f"   ok in {took:.1f} s", flush=True)


def wait_for(what: str, condition: Any, timeout: float, every: float = 0.5) -> Any:
    """Poll ``condition()`` until it returns something true; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        if result := condition():
            return result
        if time.monotonic() > deadline:
            raise SmokeFailure(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


# --- The deployment ----------------------------------------------------------------------


class Compose:
    """docker-compose on docker-compose.yml plus the host-network override."""

    def __init__(self, workdir: Path) -> None:
        self.base = workdir / "docker-compose.yml"
        self.base.write_text(yaml.safe_dump(host_network_base(), sort_keys=False))
        nginx_conf = workdir / "nginx.conf"
        nginx_conf.write_text(loopback_nginx_conf((ROOT / "deploy" / "nginx.conf").read_text()))
        scale_conf = workdir / "nginx-scale.conf"
        scale_conf.write_text(
            loopback_nginx_conf(
                (ROOT / "deploy" / "nginx-scale.conf").read_text(), SCALE_WEBS, "SCALE_PROXY"
            )
        )
        #: The scale profile (its services, its override) rather than the default deployment.
        self.scale = False
        #: The local image of each of the compose file's image variables, once built.
        self.images: dict[str, str] = {}
        #: Container id by service, once created.
        self.containers: dict[str, str] = {}
        self.settings = {
            **{name: str(port) for name, port in PORTS.items()},
            "SMOKE_NGINX_CONF": str(nginx_conf),
            "SMOKE_SCALE_NGINX_CONF": str(scale_conf),
            "POSTGRES_PASSWORD": secrets.token_hex(12),
            "SECRET_KEY": secrets.token_hex(32),
            "DAILY_SECRET": secrets.token_hex(32),
        }

    def command(self, *args: str) -> list[str]:
        files = ["-f", str(self.base), "-f", str(OVERRIDE)]
        if self.scale:
            files += ["-f", str(SCALE_OVERRIDE), "--profile", "scale"]
        return ["docker-compose", "--project-directory", str(ROOT), "-p", PROJECT, *files, *args]

    def run(self, *args: str, quiet: bool = True) -> str:
        """Run a docker-compose command; its output is returned (and shown if it fails)."""
        result = subprocess.run(
            self.command(*args),
            env={**os.environ, **self.settings, **self.images},
            stdout=subprocess.PIPE if quiet else None,
            stderr=subprocess.STDOUT if quiet else None,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            print(result.stdout or "")
            raise SmokeFailure(f"docker-compose {' '.join(args)} exited {result.returncode}")
        return result.stdout or ""

    def container(self, service: str) -> str:
        """The id of ``service``'s container (one each; a restart keeps it)."""
        if service not in self.containers:
            label = f"label=com.docker.compose.project={PROJECT}"
            each = (
                '{{.Label "com.docker.compose.service"}}-'
                '{{.Label "com.docker.compose.container-number"}} {{.ID}}'
            )
            listing = docker("ps", "-a", "--filter", label, "--format", each)
            for line in listing.splitlines():
                name, container = line.split()
                service, number = name.rsplit("-", 1)
                # A scaled service's containers are service#1, service#2…; #1 is the service.
                self.containers[f"{service}#{number}"] = container
                if number == "1":
                    self.containers[service] = container
        check(service in self.containers, f"no {service} container")
        return self.containers[service]

    def states(self, *services: str) -> dict[str, str]:
        """``running healthy``, ``running starting``, ``exited 137``, ``exited 0``, … each.

        Plain docker, one call: the smoke test polls this, and each docker-compose command
        costs a Python start, which a busy 2-core machine feels.
        """
        template = (
            "{{.State.Status}} "
            "{{if and .State.Running .State.Health}}{{.State.Health.Status}}"
            "{{else}}{{.State.ExitCode}}{{end}}"
        )
        ids = [self.container(service) for service in services]
        found = docker("inspect", "--format", template, *ids).splitlines()
        return dict(zip(services, found, strict=True))

    def state(self, service: str) -> str:
        return self.states(service)[service]

    def logs(self, service: str) -> str:
        return docker("logs", self.container(service), stderr=True)

    def psql(self, sql: str) -> list[list[str]]:
        """Rows of ``sql``, run by psql inside the db container (over its own socket)."""
        db = "primary" if self.scale else "db"
        port = str(PORTS["SMOKE_PRIMARY_PORT" if self.scale else "SMOKE_DB_PORT"])
        psql = ["psql", "-p", port, "-U", "scorpion", "-d", "scorpion", "-At", "-F", "\t"]
        out = docker("exec", self.container(db), *psql, "-c", sql)
        return [line.split("\t") for line in out.splitlines() if line]


def docker(*args: str, stderr: bool = False) -> str:
    """What ``docker ARGS`` prints on stdout (and stderr too, with ``stderr``)."""
    result = subprocess.run(["docker", *args], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SmokeFailure(f"docker {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout + (result.stderr if stderr else "")


def host_network_base() -> dict[str, Any]:
    """docker-compose.yml without published ports.

    On the host's network a service listens on the host itself, so Docker would discard
    published ports, and docker-compose 1.29 refuses them outright; an override file
    cannot remove a list, so this copy of the file drops them and nothing else.
    """
    config = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for service in config["services"].values():
        service.pop("ports", None)
    return {key: value for key, value in config.items() if not key.startswith("x-")}


def loopback_nginx_conf(conf: str, webs: tuple[str, ...] = WEBS, proxy: str = "PROXY") -> str:
    """deploy/nginx.conf (or nginx-scale.conf, with ``SCALE_WEBS``) with its addresses moved
    to the loopback ports, nothing else."""
    rewrites = {
        r"listen 80;": f"listen 127.0.0.1:{PORTS[f'SMOKE_{proxy}_PORT']};",
        **{rf"server {web}:8000": f"server 127.0.0.1:{port(web)}" for web in webs},
    }
    for pattern, replacement in rewrites.items():
        conf, count = re.subn(re.escape(pattern), replacement, conf)
        check(count == 1, f"deploy/nginx.conf: expected one '{pattern}', found {count}")
    check(not re.search(r"server [\w-]*web\d+:", conf), "the proxy names another web process")
    return conf


def port(web: str) -> int:
    return PORTS[f"SMOKE_{web.upper().replace('-', '_')}_PORT"]


def ensure_ports_free() -> None:
    for name, number in PORTS.items():
        with socket.socket() as probe:
            taken = probe.connect_ex(("127.0.0.1", number)) == 0
        check(not taken, f"127.0.0.1:{number} ({name}) is taken: choose another with {name}=…")


def wait_until_up(compose: Compose, timeout: float = 180) -> None:
    services = ("db", "redis", "worker", "solver", *WEBS, "proxy")
    if compose.scale:
        services = ("primary", "replica", "pgbouncer", "redis", "redis2", "scale-worker")
        services += ("scale-solver#1", "scale-solver#2", *SCALE_WEBS, "scale-proxy")
    expected = {service: "running healthy" for service in services}
    expected["scale-migrate" if compose.scale else "migrate"] = "exited 0"
    states: dict[str, str] = {}

    def all_up() -> bool:
        states.update(compose.states(*expected))
        failed = [s for s, state in states.items() if "unhealthy" in state or "exited 1" in state]
        check(not failed, f"failed: {failed} ({states})")
        return states == expected

    try:
        wait_for("every health check", all_up, timeout, every=1)
    finally:
        say(", ".join(f"{service}: {state}" for service, state in states.items()))


# --- Clients ------------------------------------------------------------------------------


class Player:
    """A player sending commands through the proxy, each with its own Idempotency-Key.

    ``play`` retries a command until it is acknowledged: after ``Retry-After`` on 503, after
    a second on a 502/504 or a lost connection (the proxy could not deliver it, or lost the
    answer). The same key makes a retry safe whether or not the first attempt was applied.
    """

    def __init__(self, game_id: str, token: str, base: str = PROXY) -> None:
        self.game_id = game_id
        self.client = httpx.Client(
            base_url=base, headers={"Authorization": f"Token {token}"}, timeout=30
        )
        self.acks: list[dict[str, Any]] = []  # {"key", "seq", "type", "data"} per 201
        self.refusals: list[tuple[int, str | None]] = []  # (status, Retry-After) of each retry
        self.attempts = 0

    def play(self, command: dict[str, Any], key: str, patience: float = 120) -> int:
        """Send ``command`` until it is acknowledged; return its event's seq."""
        started = time.monotonic()
        while True:
            self.attempts += 1
            try:
                response = self.client.post(
                    f"/api/v1/games/{self.game_id}/commands",
                    json=command,
                    headers={"Idempotency-Key": key},
                )
            except httpx.TransportError as error:
                self.refusals.append((0, type(error).__name__))
                wait = 1.0
            else:
                if response.status_code == 201:
                    event = response.json()["event"]
                    self.acks.append({"key": key, **{k: event[k] for k in ("seq", "type", "data")}})
                    return int(event["seq"])
                check(response.status_code in (502, 503, 504), f"{key}: {response.text}")
                retry_after = response.headers.get("Retry-After")
                self.refusals.append((response.status_code, retry_after))
                check(
                    response.status_code != 503
                    or (retry_after is not None and response.json()["code"] == "unavailable"),
                    f"a 503 without Retry-After or code 'unavailable': {response.headers}",
                )
                wait = float(retry_after) if retry_after else 1.0
            check(time.monotonic() - started < patience, f"{key} not acknowledged in time")
            time.sleep(wait)


class Spectator(threading.Thread):
    """A WebSocket spectator of one game through the proxy, resuming with ``?after=N``.

    It records every event's seq as received; when its connection is cut it reconnects
    with ``after`` set to the last seq it has, and records that it did.
    """

    def __init__(self, game_id: str, name: str, port: int = PORTS["SMOKE_PROXY_PORT"]) -> None:
        super().__init__(name=name, daemon=True)
        self.url = f"ws://127.0.0.1:{port}/ws/games/{game_id}/"
        self.seqs: list[int] = []
        #: The game's version this spectator has seen: its first snapshot's, then each event's.
        self.last_seen = 0
        self.resumed_after: list[int] = []
        self.connected = threading.Event()
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._watch()
        except BaseException as error:  # shown by the main thread
            self.error = error

    def _watch(self) -> None:
        after: int | None = None
        while not self.stopping.is_set():
            url = self.url if after is None else f"{self.url}?after={after}"
            try:
                with connect(url, open_timeout=10) as ws:
                    snapshot = json.loads(ws.recv(timeout=10))
                    check(snapshot["type"] == "snapshot", f"first frame: {snapshot}")
                    if after is None:
                        self.last_seen = snapshot["game"]["version"]
                    self.connected.set()
                    while not self.stopping.is_set():
                        with contextlib.suppress(TimeoutError):
                            frame = json.loads(ws.recv(timeout=0.5))
                            if frame["type"] == "event":
                                self.seqs.append(frame["event"]["seq"])
                                self.last_seen = frame["event"]["seq"]
                    return
            except (ConnectionClosed, InvalidHandshake, OSError):
                if self.stopping.is_set():
                    return
                if self.connected.is_set():  # cut while watching: resume where it stopped
                    after = self.last_seen
                    self.resumed_after.append(after)
                    self.connected.clear()
                time.sleep(0.5)

    def wait_for_seq(self, seq: int, timeout: float = 30) -> None:
        def received() -> bool:
            if self.error:
                raise self.error
            return self.last_seen >= seq

        wait_for(f"{self.name} to receive seq {seq}", received, timeout)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)


def web_log_counts(compose: Compose, pattern: str) -> dict[str, int]:
    """How many lines of each web process's log contain ``pattern``."""
    webs = SCALE_WEBS if compose.scale else WEBS
    return {web: compose.logs(web).count(pattern) for web in webs}


def spectators_on_each_web(compose: Compose, game_id: str) -> dict[str, Spectator]:
    """One spectator connected through the proxy to each web process.

    Which process the proxy chose shows in that process's log (daphne's WSCONNECT line);
    spectators are opened one by one until each process has one.
    """
    placed: dict[str, Spectator] = {}
    for attempt in range(8):
        before = web_log_counts(compose, '"WSCONNECT /ws/')
        spectator = Spectator(game_id, f"spectator-{attempt}")
        spectator.start()
        check(spectator.connected.wait(15), f"{spectator.name} could not connect")
        after = wait_for(
            "the WSCONNECT line",
            lambda before=before: (c := web_log_counts(compose, '"WSCONNECT /ws/')) != before and c,
            10,
        )
        web = next(web for web in WEBS if after[web] > before[web])
        if web in placed:
            spectator.stop()
            continue
        placed[web] = spectator
        say(f"{spectator.name} is on {web}")
        if len(placed) == len(WEBS):
            return placed
    raise SmokeFailure(f"the proxy never sent a spectator to each web process: {placed}")


def check_in_order(spectators: dict[str, Spectator], last: int) -> None:
    for web, spectator in spectators.items():
        spectator.wait_for_seq(last)
        check(
            spectator.seqs == list(range(2, last + 1)),
            f"{web}'s spectator got {spectator.seqs}, not 2..{last} in order",
        )


# --- The scenario -------------------------------------------------------------------------


def main() -> int:
    started = time.monotonic()
    with step("Docker engine and free ports"):
        say(docker("version", "--format", "engine {{.Server.Version}}").strip())
        version = ["docker-compose", "version", "--short"]
        found = subprocess.run(version, capture_output=True, text=True, check=False).stdout
        say(f"docker-compose {found.strip()}")
        # The generated compose file and nginx.conf: kept while the deployment is up.
        workdir = Path(tempfile.mkdtemp(prefix="scorpion-smoke-"))
        compose = Compose(workdir)
        compose.scale = True  # both deployments' services
        compose.run("down", "-v", "--remove-orphans")  # what a killed run may have left
        compose.scale = False
        ensure_ports_free()
    with step("images: the local stand-ins of the public ones, and the app's"):
        build_images(compose)
    failed = True
    try:
        scenario(compose)
        take_down(compose)
        compose.scale, compose.containers = True, {}
        scale_scenario(compose)
        failed = False
    finally:
        if failed:
            show_logs()
        if failed and os.environ.get("SMOKE_KEEP") == "1":
            say(f"left up (SMOKE_KEEP=1), files in {workdir}; the next run takes it down first")
        else:
            take_down(compose)
            shutil.rmtree(workdir)
    print("== timings")
    for title, took in TIMINGS:
        print(f"   {took:6.1f} s  {title}")
    print(f"   {time.monotonic() - started:6.1f} s  in all")
    print("compose-smoke: 1 passed, 0 failed")
    return 0


def build_images(compose: Compose) -> None:
    compose.images.update(local_images.build_all(say))
    started = time.monotonic()
    # Both deployments' images: `up` builds only the images that are missing, so the scale
    # profile's, built once, would run that old code ever after.
    compose.scale = True
    try:
        compose.run("build")
    finally:
        compose.scale = False
    say(f"the app images (docker-compose build): {time.monotonic() - started:.0f} s")


def scenario(compose: Compose) -> None:
    with step("docker-compose up -d, and every health check passes"):
        compose.run("up", "-d")
        wait_until_up(compose)

    with step("every web process runs the native solver core, built by the Dockerfile"):
        for web, count in web_log_counts(compose, "solver core: native").items():
            check(count >= 1, f"{web} does not say it runs the native solver core")

    with step("the worker prepares today's daily challenge, served through the proxy"):
        today = httpx.Client(base_url=PROXY, timeout=30)
        wait_for(
            "today's challenge",
            lambda: today.get("/api/v1/challenges/today").status_code == 200,
            120,
            every=1,
        )
        say(f"today: {today.get('/api/v1/challenges/today').json()['rules']}")

    with step("register and create a game through the proxy"):
        client = httpx.Client(base_url=PROXY, timeout=30)
        name, token, game_id = new_player_and_game(client, "smoke")
        say(f"player {name}, game {game_id}")

    with step("the solver worker fills the winnable pool: a winnable game through the proxy"):

        def winnable() -> bool:
            answer = client.post(
                "/api/v1/games",
                json={"rules": "classic", "winnable": True},
                headers={"Authorization": f"Token {token}"},
            )
            check(answer.status_code in (201, 503), f"a winnable game: {answer.text}")
            return answer.status_code == 201 and answer.json()["certified"] is not None

        wait_for("a winnable classic deal", winnable, 180, every=2)
    rules = engine.RULESETS[RULES]
    line = engine.legal_line(rules, engine.seeded_deal(rules, SEED), PLAN_LENGTH)
    plan = [engine.action_to_command(action) for action in line]
    player = Player(game_id, token)
    commands_path = f'"POST /api/v1/games/{game_id}/commands"'

    def play(first: int, last: int) -> None:
        for number in range(first, last):
            seq = player.play(plan[number], f"smoke-{number}")
            check(seq == number + 2, f"command {number} got seq {seq}, not {number + 2}")

    with step("a spectator on each web process, through the proxy"):
        spectators = spectators_on_each_web(compose, game_id)
    try:
        with step("play 20 commands; both spectators get all 20 events in order"):
            before = web_log_counts(compose, commands_path)
            play(0, 20)
            check(player.attempts == 20, f"{player.attempts} attempts for 20 commands")
            check_in_order(spectators, 21)
            served = diff(web_log_counts(compose, commands_path), before)
            say(f"commands served (web logs): {served}")
            check(all(served.values()), "the proxy did not use both web processes")

        with step("kill web1: commands still succeed, its spectator resumes with ?after=N"):
            compose.run("kill", "web1")
            check(compose.state("web1").startswith("exited"), "web1 is still running")
            wait_for("web1's spectator to resume", lambda: spectators["web1"].resumed_after, 15)
            before, attempts = web_log_counts(compose, commands_path), player.attempts
            play(20, 30)
            check_in_order(spectators, 31)
            served = diff(web_log_counts(compose, commands_path), before)
            say(f"commands served: {served}, attempts: {player.attempts - attempts} for 10")
            say(f"web1's spectator resumed with ?after={spectators['web1'].resumed_after}")
            check(served["web2"] == 10, "web2 did not serve every command")
            # nginx could not connect to web1, so it sent each command on to web2 itself.
            check(player.attempts - attempts == 10, "a command needed a retry by the client")

        with step("start web1 again: healthy, and it serves again"):
            compose.run("start", "web1")
            wait_for("web1 healthy", lambda: compose.state("web1") == "running healthy", 90)
            before = web_log_counts(compose, commands_path)
            play(30, 40)
            check_in_order(spectators, 41)
            served = diff(web_log_counts(compose, commands_path), before)
            say(f"commands served: {served}")
            check(served["web1"] > 0, "web1 gets no requests after its restart")

        with step("restart the db under a writer: 503 + Retry-After, then recovery"):
            outage(compose, player, plan)
            last = player.acks[-1]["seq"]
            check_in_order(spectators, last)
            resumed = {web: spectator.resumed_after for web, spectator in spectators.items()}
            say(f"spectators: {last - 1} events each, in order; resumed with after= {resumed}")

        with step("every acknowledged command is in the events table, once"):
            verify_events(compose, game_id, player)

        with step("WebSockets with a ticket and with a key: the proxy's log holds neither"):
            proxy_log_keeps_no_secret(compose, game_id, token)
    finally:
        for spectator in spectators.values():
            spectator.stop()


def new_player_and_game(client: httpx.Client, prefix: str) -> tuple[str, str, str]:
    """Register a player and create a public game of :data:`SEED` through ``client``:
    the player's name, key and the game's id."""
    name = f"{prefix}-{secrets.token_hex(4)}"
    response = client.post(
        "/api/v1/auth/register", json={"username": name, "password": secrets.token_hex(16)}
    )
    check(response.status_code == 201, f"register: {response.text}")
    token = response.json()["token"]
    response = client.post(
        "/api/v1/games",
        json={"rules": RULES, "seed": SEED, "public": True},
        headers={"Authorization": f"Token {token}"},
    )
    check(response.status_code == 201, f"create a game: {response.text}")
    return name, token, str(response.json()["id"])


def scale_scenario(compose: Compose) -> None:
    """The scale profile: a primary and its streaming replica, PgBouncer in transaction mode,
    two Redis servers, three web processes behind their proxy, two solver workers."""
    with step("scale profile: up with two solver workers, every health check passes"):
        compose.run(
            "up", "-d", "--scale", "scale-solver=2", "scale-proxy", "scale-worker", "scale-solver"
        )
        wait_until_up(compose, timeout=420)

    with step("scale: a game through the proxy, watched on another web process"):
        client = httpx.Client(base_url=SCALE_PROXY, timeout=30)
        _, token, game_id = new_player_and_game(client, "scale")
        watcher = Spectator(game_id, "scale-spectator", port("scale-web3"))
        watcher.start()
        check(watcher.connected.wait(15), "the spectator on scale-web3 could not connect")
        rules = engine.RULESETS[RULES]
        line = engine.legal_line(rules, engine.seeded_deal(rules, SEED), 20)
        player = Player(game_id, token, SCALE_PROXY)
        commands_path = f'"POST /api/v1/games/{game_id}/commands"'
        try:
            for number, action in enumerate(line):
                seq = player.play(engine.action_to_command(action), f"scale-{number}")
                check(seq == number + 2, f"command {number} got seq {seq}")
            check_in_order({"scale-web3": watcher}, 21)
        finally:
            watcher.stop()
        served = web_log_counts(compose, commands_path)
        say(f"commands served (web logs): {served}; the spectator on scale-web3 got 2..21")
        check(served["scale-web1"] + served["scale-web2"] > 0, "every command went to web3")

    replay = f"/api/v1/games/{game_id}/events"
    anonymous = httpx.Client(base_url=SCALE_PROXY, timeout=30)
    with step("scale: the replay is read from the replica"):
        before = replica_reads(compose)

        def from_replica() -> bool:
            answer = anonymous.get(replay)
            check(answer.status_code == 200, f"the replay: {answer.status_code} {answer.text}")
            return len(answer.json()["results"]) == 21 and replica_reads(compose) > before

        wait_for("a replay served by the replica", from_replica, 30)
        say(f"replica reads on the web processes: {before} then {replica_reads(compose)}")

    with step("scale: stop the replica, the replay is read again (from the primary)"):
        compose.run("stop", "replica")
        statuses = []
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            answer = anonymous.get(replay)
            statuses.append(answer.status_code)
            check(answer.status_code == 200, f"with the replica stopped: {answer.status_code}")
            check(len(answer.json()["results"]) == 21, "a replay without its events")
        say(f"{len(statuses)} reads with the replica stopped, every one 200")

    with step("scale: kill a solver worker in mid-job, the job finishes on the other"):
        job, task, killed = kill_a_solver_in_mid_job(compose)
        retried = f"job {task} {job} retried: its worker stopped heartbeating"
        workers = ("scale-worker", "scale-solver#1", "scale-solver#2")
        wait_for(
            f"job {job} found stalled",
            lambda: any(retried in compose.logs(name) for name in workers if name != killed),
            # JOBS_STALLED_SECONDS, and a few seconds until a worker looks.
            90,
            every=2,
        )
        # The job runs again, or, where its next run waited already, it ends as failed and
        # that one does its work: either way a run of the task from it on succeeds, on the
        # worker left (the task's lock let none run while the killed one held it).
        done = (
            f"SELECT id, status FROM procrastinate_jobs WHERE task_name = '{task}'"
            f" AND id >= {job} AND status = 'succeeded' ORDER BY id LIMIT 1"
        )
        # A whole run (POOL_FILL_SECONDS or POOL_FOLLOW_SECONDS): minutes on a busy machine.
        finished = wait_for(
            f"a {task} run to succeed after the kill", lambda: compose.psql(done), 300
        )
        status = compose.psql(f"SELECT status FROM procrastinate_jobs WHERE id = {job}")[0][0]
        say(f"job {task} {job} ({status}) found stalled after {killed} was killed; run"
            f" {finished[0][0]} succeeded on the other worker")  # fmt: skip

    with step("scale: the primary logged no error of a statement prepared through PgBouncer"):
        # In transaction mode a server session serves one client, then another: a statement
        # one prepared is found by the next ("prepared statement ... already exists").
        clashes = compose.logs("primary").count("prepared statement")
        check(clashes == 0, f"the primary logged {clashes} clashes of prepared statements")


def replica_reads(compose: Compose) -> int:
    """The GETs the replica served, summed over the scale profile's web processes."""
    total = 0.0
    for web in SCALE_WEBS:
        text = httpx.get(f"http://127.0.0.1:{port(web)}/metrics", timeout=10).text
        found = re.search(r'^scorpion_replica_reads_total\{side="replica"\} (\S+)$', text, re.M)
        total += float(found.group(1)) if found else 0.0
    return int(total)


def kill_a_solver_in_mid_job(compose: Compose) -> tuple[int, str, str]:
    """Wait for the pools' work to run on the solver queue (a fill while the pools fill,
    then the hint follower's run over the new deals, up to POOL_FOLLOW_SECONDS), kill the
    solver worker that runs it (its log says it started the job); return the job's id, its task and
    the container killed."""
    doing = (
        "SELECT id, task_name FROM procrastinate_jobs"
        " WHERE task_name IN ('fill_pools', 'follow_pools') AND status = 'doing'"
    )
    found = wait_for("a solver job in progress", lambda: compose.psql(doing), 90, every=1)[0]
    job, task = int(found[0]), str(found[1])

    def runner() -> str | None:
        # The line of the worker that started it: a worker's periodic deferrer names the
        # job too ("Periodic job follow_pools[5] … deferred"), and may be the other one.
        for name in ("scale-solver#1", "scale-solver#2"):
            if f"Starting job {task}[{job}]" in compose.logs(name):
                return name
        return None

    name = wait_for(f"the worker running job {job}", runner, 10)
    docker("kill", compose.container(name))
    say(f"job {task} {job}: killed {name} while it ran it")
    return job, task, name


def proxy_log_keeps_no_secret(compose: Compose, game_id: str, token: str) -> None:
    """Open the game's feed through the proxy with a ticket, and try it with the key in the
    URL (refused); the proxy's log must name the path, and never a key, a ticket or any
    query string (the spectators' ``?after=`` resumes included)."""
    client = httpx.Client(base_url=PROXY, headers={"Authorization": f"Token {token}"}, timeout=30)
    response = client.post("/api/v1/auth/ws-ticket")
    check(response.status_code == 201, f"ws-ticket: {response.text}")
    ticket = response.json()["ticket"]
    path = f"/ws/games/{game_id}/"
    feed = f"ws://127.0.0.1:{PORTS['SMOKE_PROXY_PORT']}{path}"
    before = compose.logs("proxy").count(f"GET {path} ")
    with connect(f"{feed}?ticket={ticket}", open_timeout=10) as ws:
        frame = json.loads(ws.recv(timeout=10))
        check(frame["type"] == "snapshot", f"with a ticket, the first frame: {frame}")
    # The proxy refuses a key in the URL itself: the handshake never reaches a web process.
    try:
        with connect(f"{feed}?token={token}", open_timeout=10):
            check(False, "with a key in the URL, the handshake succeeded")
    except InvalidStatus as refused:
        status = refused.response.status_code
        check(status == 403, f"with a key in the URL: HTTP {status}")
    # nginx writes a WebSocket's line when it closes.
    log = wait_for(
        "the proxy's log of both connections",
        lambda: (text := compose.logs("proxy")).count(f"GET {path} ") >= before + 2 and text,
        10,
    )
    check(token not in log, "the proxy's log holds the key")
    check(ticket not in log, "the proxy's log holds the ticket")
    # The access log never writes a query; nginx's error log names the request line of a
    # request it failed to proxy (a web process down during the outage above: the
    # spectators' ``?after=`` resumes), which deploy/nginx.conf documents: those lines
    # are checked for keys and tickets above, not for a query.
    access = [line for line in log.splitlines() if "[error]" not in line and "[warn]" not in line]
    queries = [line for line in access if "/ws/" in line and "?" in line]
    check(not queries, f"the proxy's access log holds query strings: {queries[:3]}")
    say(f"proxy log: {log.count(f'GET {path} ')} lines for {path}, no key, no ticket, no query")


def outage(compose: Compose, player: Player, plan: list[dict[str, Any]]) -> None:
    """Stop the database while a writer keeps playing, then start it again."""
    stop_writing = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        number = len(player.acks)
        try:
            while not stop_writing.is_set() and number < len(plan):
                player.play(plan[number], f"smoke-{number}")
                number += 1
        except BaseException as error:
            errors.append(error)

    refused_before = len(player.refusals)
    thread = threading.Thread(target=writer, name="writer", daemon=True)
    thread.start()
    wait_for("the writer to get going", lambda: len(player.acks) >= 42, 30, every=0.1)
    stopped = time.monotonic()
    compose.run("stop", "db")
    say(f"db stopped after {len(player.acks)} acknowledged commands")
    refusals = wait_for(
        "503 answers while the database is down",
        lambda: [r for r in player.refusals[refused_before:] if r[0] == 503][:2],
        60,
    )
    compose.run("start", "db")
    wait_for("db healthy", lambda: compose.state("db") == "running healthy", 60)
    down_for = time.monotonic() - stopped
    acked = len(player.acks)
    wait_for("the writer to recover", lambda: len(player.acks) >= acked + 5 or errors, 60)
    stop_writing.set()
    thread.join(timeout=120)
    if errors:
        raise errors[0]
    during = player.refusals[refused_before:]
    say(f"db down for {down_for:.1f} s; answers meanwhile: {summarise(during)}")
    say(f"503 answers carried Retry-After: {sorted({r for s, r in refusals if s == 503})}")
    say(f"{len(player.acks)} commands acknowledged in all")


def summarise(refusals: list[tuple[int, str | None]]) -> str:
    counts: dict[str, int] = {}
    for status, detail in refusals:
        label = f"{status} (Retry-After {detail})" if status == 503 else f"{status} {detail}"
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{n} × {label}" for label, n in counts.items()) or "none"


def verify_events(compose: Compose, game_id: str, player: Player) -> None:
    rows = compose.psql(
        "SELECT seq, type, data::text, coalesce(idempotency_key, '') FROM games_event "
        f"WHERE game_id = '{game_id}' ORDER BY seq"
    )
    stored = {int(seq): (kind, json.loads(data), key) for seq, kind, data, key in rows}
    check(sorted(stored) == list(range(1, len(rows) + 1)), f"seqs with gaps: {sorted(stored)}")
    lost = [
        ack
        for ack in player.acks
        if stored.get(ack["seq"]) != (ack["type"], ack["data"], ack["key"])
    ]
    keys = [key for _, _, key in stored.values() if key]
    check(not lost, f"acknowledged but not stored as acknowledged: {lost}")
    check(len(keys) == len(set(keys)) == len(player.acks), "an event without its acknowledgement")
    say(f"{len(player.acks)} acknowledged, {len(rows) - 1} stored after 'created': 0 lost, 0 twice")


def diff(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {web: after[web] - before[web] for web in after}


def show_logs() -> None:
    """Each container of the project: its state, the last outputs of its health check when
    it has one, and its last 40 lines of log. Plain docker, container by container: a run
    that failed in ``docker-compose up`` (a dependency unhealthy) has services that
    ``docker-compose logs`` does not list, and an unhealthy container says why only in its
    health check's output."""
    print("== the failed run's containers: state, health checks, last 40 lines of log")
    label = f"label=com.docker.compose.project={PROJECT}"
    try:
        listing = docker("ps", "-a", "--filter", label, "--format", "{{.ID}} {{.Names}}")
    except SmokeFailure as error:
        print(f"(no containers listed: {error})")
        return
    health = (
        "{{.State.Status}} exit {{.State.ExitCode}}"
        "{{if .State.Health}} {{.State.Health.Status}}"
        "{{range .State.Health.Log}}\n  check exit {{.ExitCode}}: {{.Output}}{{end}}{{end}}"
    )
    for line in listing.splitlines():
        container, name = line.split(maxsplit=1)
        with contextlib.suppress(SmokeFailure):
            state = docker("inspect", "--format", health, container)
            print(f"-- {name}: " + "\n".join(line for line in state.splitlines() if line.strip()))
            print(docker("logs", "--tail", "40", container, stderr=True).rstrip())


def take_down(compose: Compose) -> None:
    with step("docker-compose down -v: no container, network or volume is left"):
        compose.run("down", "-v", "--remove-orphans")
        label = f"label=com.docker.compose.project={PROJECT}"
        left = {
            "containers": docker("ps", "-a", "-q", "--filter", label).split(),
            "networks": docker("network", "ls", "-q", "--filter", label).split(),
            "volumes": docker("volume", "ls", "-q", "--filter", label).split(),
        }
        check(not any(left.values()), f"left behind: {left}")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SmokeFailure as failure:
        print(f"compose-smoke: FAILED: {failure}", flush=True)
        print("compose-smoke: 0 passed, 1 failed")
        sys.exit(1)
