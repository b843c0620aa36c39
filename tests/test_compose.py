"""docker-compose.yml agrees with the settings, the proxy and the smoke test's override.

The file is loaded and checked service by service; then the settings are booted, in a
subprocess, with exactly the environment a web service gets, to prove they accept it and
derive the intended database and channel layer from it. The deployment itself runs in
scripts/compose-smoke (CI runs it); these checks hold what it cannot see: the public
defaults it replaces, and that its override moves addresses and nothing else.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
OVERRIDE = ROOT / "deploy" / "smoke" / "docker-compose.host.yml"
PLACEHOLDER = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")
TEST_VALUES = {
    "POSTGRES_PASSWORD": "compose-db-password",
    "SECRET_KEY": "compose-secret-key-" + "Zq8vL2pW" * 5,
    "DAILY_SECRET": "compose-daily-secret-" + "Hk4nR7tY" * 2,
}


def substitute(value: str) -> str:
    """Fill ``${VAR:?…}`` / ``${VAR:-default}`` the way compose does, with test values."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in TEST_VALUES:
            return TEST_VALUES[name]
        default = re.match(r"\$\{\w+:-([^}]*)\}", match.group(0))
        assert default, f"{name} has no default and no test value"
        return default.group(1)

    return PLACEHOLDER.sub(fill, value)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return compose["services"]


def web_services(services: dict[str, Any]) -> dict[str, Any]:
    return {name: spec for name, spec in services.items() if re.fullmatch(r"web\d+", name)}


def environment(spec: dict[str, Any]) -> dict[str, str]:
    return {name: substitute(str(value)) for name, value in spec["environment"].items()}


def settings_variables() -> set[str]:
    """Every environment variable the settings (and the serve command) read."""
    sources = [
        ROOT / "scorpion_server" / "settings.py",
        ROOT / "api" / "management" / "commands" / "serve.py",
    ]
    names: set[str] = set()
    for source in sources:
        text = source.read_text()
        names |= set(re.findall(r"env_\w+\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
        names |= set(re.findall(r"redis_urls?\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
        names |= set(re.findall(r"environ\.get\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
    return names


def test_the_deployment_has_its_services(services: dict[str, Any]) -> None:
    assert {"db", "redis", "migrate", "proxy"} <= set(services)
    assert len(web_services(services)) >= 2
    for name in ("db", "redis", "proxy", *web_services(services)):
        assert "healthcheck" in services[name], name
    assert services["migrate"]["command"][-3:] == ["manage.py", "migrate", "--noinput"]
    # The solver's queue has a service of its own; the clock's worker leaves it alone.
    assert services["solver"]["command"][2:5] == ["worker", "--queues", "solver"]
    assert services["worker"]["command"][2:] == ["worker", "--exclude-queues", "solver"]
    for name in ("worker", "solver"):
        assert "healthcheck" in services[name], name
        assert services[name]["environment"] == services["web1"]["environment"], name
    assert "--no-migrate" in (ROOT / "Dockerfile").read_text()


def test_web_environment_is_what_the_settings_read(services: dict[str, Any]) -> None:
    known = settings_variables()
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DAILY_SECRET", "WS_TIMEOUT"} <= known
    db = environment(services["db"])
    for name, spec in web_services(services).items():
        env = environment(spec)
        assert set(env) <= known, f"{name} sets variables the settings ignore"
        assert env["DEBUG"] == "0" and env["SECRET_KEY"] and env["DAILY_SECRET"]
        database = urlsplit(env["DATABASE_URL"])
        assert (database.hostname, database.port) == ("db", 5432)
        assert database.path.lstrip("/") == db["POSTGRES_DB"]
        assert database.username == db["POSTGRES_USER"]
        assert database.password == db["POSTGRES_PASSWORD"]
        redis = urlsplit(env["REDIS_URL"])
        assert (redis.hostname, redis.port) == ("redis", 6379)
        assert env["HOST"] == "0.0.0.0"
        assert int(env["WS_TIMEOUT"]) <= int(env["WS_GROUP_EXPIRY"]) or env["WS_TIMEOUT"] == "-1"
        assert {"db", "redis", "migrate"} <= set(spec["depends_on"])
        assert environment(services["migrate"])["DATABASE_URL"] == env["DATABASE_URL"]


def location(conf: str, path: str) -> str:
    """The body of nginx's ``location <path> { … }`` block, nested blocks included."""
    found = re.search(rf"location {re.escape(path)} {{", conf)
    assert found, f"no location {path}"
    depth, start = 1, found.end()
    for at in range(start, len(conf)):
        depth += {"{": 1, "}": -1}.get(conf[at], 0)
        if depth == 0:
            return conf[start:at]
    raise AssertionError(f"location {path} is not closed")


def test_a_key_in_a_websocket_url_is_refused_by_the_proxy_itself() -> None:
    """nginx's error log writes the whole request line of a proxying that failed, so a
    ``?token=`` handshake must never be proxied (the smoke test tries it for real)."""
    conf = re.sub(r"#.*", "", (ROOT / "deploy" / "nginx.conf").read_text())
    body = location(conf, "/ws/")
    assert re.search(r"if \(\$arg_token\)\s*{\s*return 403;\s*}", body)
    assert body.index("$arg_token") < body.index("proxy_pass")


def test_the_proxy_routes_http_and_websockets_to_every_web_process(
    services: dict[str, Any],
) -> None:
    proxy = services["proxy"]
    mounted = {volume.split(":")[0] for volume in proxy["volumes"]}
    assert "./deploy/nginx.conf" in mounted
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    upstreams = set(re.findall(r"^\s*server\s+([\w-]+):(\d+)", conf, flags=re.MULTILINE))
    expected = {(name, environment(spec)["PORT"]) for name, spec in web_services(services).items()}
    assert upstreams == expected
    websockets = location(conf, "/ws/")
    assert "proxy_set_header Upgrade $http_upgrade;" in websockets
    assert "proxy_set_header Connection $connection_upgrade;" in websockets
    read_timeout = int(re.search(r"proxy_read_timeout (\d+)s;", websockets).group(1))
    for spec in web_services(services).values():
        assert read_timeout >= int(environment(spec)["WS_TIMEOUT"])
    assert any(port.endswith(":80") for port in map(str, proxy["ports"]))
    body_limit = re.search(r"client_max_body_size (\d+)k;", conf)
    assert body_limit is not None
    from django.conf import settings

    assert int(body_limit.group(1)) * 1024 == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_the_proxy_logs_no_query_string() -> None:
    """A URL's query may carry a WebSocket ticket (or a key a client should not have sent):
    the access log's format writes the path only, and it is the format in use."""
    conf = re.sub(r"#.*", "", (ROOT / "deploy" / "nginx.conf").read_text())
    formats = dict(re.findall(r"log_format\s+(\w+)\s+((?:'[^']*'\s*)+);", conf))
    assert set(formats) == {"scorpion"}
    assert "$uri" in formats["scorpion"]
    for leaky in ("$request ", '$request"', "$request_uri", "$args", "$query_string", "$arg_"):
        assert leaky not in formats["scorpion"], leaky
    assert "$http_referer" not in formats["scorpion"]  # a page's URL, with its query
    logs = re.findall(r"access_log\s+([^;]*);", conf)
    assert logs and all(line.split()[-1] in ("scorpion", "off") for line in logs), logs
    smoke = (ROOT / "deploy" / "smoke" / "smoke.py").read_text()
    assert "proxy_log_keeps_no_secret(compose" in smoke  # the smoke test reads the real log


def test_the_proxy_retries_only_what_was_not_delivered() -> None:
    """A dead process is skipped; a POST that reached a process is never sent twice."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    retried = re.search(r"proxy_next_upstream ([^;]*);", conf)
    assert retried is not None
    assert set(retried.group(1).split()) == {"error", "timeout"}
    assert "non_idempotent" not in re.sub(r"#.*", "", conf)


def test_every_image_is_a_variable_with_the_public_default(services: dict[str, Any]) -> None:
    public = {
        "db": ("POSTGRES_IMAGE", "postgres:16"),
        "redis": ("REDIS_IMAGE", "redis:7"),
        "proxy": ("NGINX_IMAGE", "nginx:1.27"),
    }
    for name, (variable, default) in public.items():
        assert services[name]["image"] == f"${{{variable}:-{default}}}"
    for name in ("migrate", *web_services(services)):
        assert services[name]["build"]["args"]["BASE"] == "${PYTHON_IMAGE:-python:3.11-slim}"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG BASE=python:3.11-slim\n" in dockerfile
    # Both stages on that base: the native solver core's build, then the image.
    assert re.findall(r"^FROM (.*)$", dockerfile, re.M) == ["${BASE} AS native", "${BASE}"]
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", ".data"} <= ignored


def mount_target(volume: str) -> str:
    """Where ``source:target[:mode]`` mounts (the source may hold a ``${VAR:?…}``)."""
    parts = volume.rsplit(":", 2)
    return parts[-2] if parts[-1] in ("ro", "rw") else parts[-1]


def test_the_smoke_override_moves_addresses_and_nothing_else(services: dict[str, Any]) -> None:
    """Every service on the host's network, on 127.0.0.1; the same topology otherwise."""
    override = yaml.safe_load(OVERRIDE.read_text())["services"]
    assert set(override) == {name for name, spec in services.items() if "profiles" not in spec}
    allowed = {"network_mode", "command", "healthcheck", "environment", "build", "volumes"}
    for name, spec in override.items():
        assert set(spec) <= allowed, name
        assert spec["network_mode"] == "host", name
        assert set(spec.get("healthcheck", {})) <= {"test"}, name
        assert spec.get("build", {"context": ".", "network": "host"}) == {
            "context": ".",
            "network": "host",
        }
        assert set(spec.get("environment", {})) <= {"DATABASE_URL", "REDIS_URL", "HOST", "PORT"}
        targets = {mount_target(volume) for volume in spec.get("volumes", [])}
        assert targets <= {mount_target(volume) for volume in services[name].get("volumes", [])}
    for name in ("migrate", *web_services(services)):
        env = {key: substitute(str(value)) for key, value in override[name]["environment"].items()}
        assert env["HOST"] == "127.0.0.1"
        assert urlsplit(env["DATABASE_URL"]).hostname == "127.0.0.1"
        assert urlsplit(env["REDIS_URL"]).hostname == "127.0.0.1"
    db = override["db"]["command"]
    assert db == ["postgres", "-c", "listen_addresses=127.0.0.1", "-c", db[4]]
    assert db[4].startswith("port=")
    redis = override["redis"]["command"]
    assert redis[: len(services["redis"]["command"])] == services["redis"]["command"]
    assert redis[len(services["redis"]["command"]) :][:2] == ["--bind", "127.0.0.1"]


def test_the_smoke_ports_clash_with_nothing_the_machine_runs() -> None:
    """Fixed, distinct, not PostgreSQL's or Redis's, below the kernel's ephemeral range."""
    ports = dict(re.findall(r"\$\{(SMOKE_\w+_PORT):-(\d+)\}", OVERRIDE.read_text()))
    assert set(ports) == {f"SMOKE_{name}_PORT" for name in ("DB", "REDIS", "WEB1", "WEB2", "PROXY")}
    numbers = [int(port) for port in ports.values()]
    assert len(set(numbers)) == len(numbers)
    assert not {5432, 6379} & set(numbers)
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")
    lowest = int(ephemeral.read_text().split()[0]) if ephemeral.exists() else 32768
    assert all(1024 < number < lowest for number in numbers)


def test_settings_boot_with_a_web_service_environment(services: dict[str, Any]) -> None:
    name, spec = next(iter(web_services(services).items()))
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DB_", "WS_"))}
    env.pop("REDIS_URL", None)
    env.update(environment(spec))
    probe = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "d = s.DATABASES['default']; layer = s.CHANNEL_LAYERS['default']; "
        "print(json.dumps({'host': d['HOST'], 'port': str(d['PORT']), 'name': d['NAME'], "
        "'layer': layer['BACKEND'], 'redis': [h['address'] for h in layer['CONFIG']['hosts']], "
        "'cache': s.CACHES['default']['BACKEND'], 'debug': s.DEBUG, "
        "'ws_timeout': s.WS_TIMEOUT, 'hosts': s.ALLOWED_HOSTS}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "scorpion_server.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    booted = json.loads(result.stdout.strip().splitlines()[-1])
    assert (booted["host"], booted["port"], booted["name"]) == ("db", "5432", "scorpion")
    assert booted["layer"] == "channels_redis.core.RedisChannelLayer"
    assert booted["redis"] == ["redis://redis:6379/0"]
    assert booted["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert booted["debug"] is False and booted["ws_timeout"] == 86400
    assert "localhost" in booted["hosts"], name


def test_the_smoke_proxy_config_is_deploy_nginx_conf_with_loopback_addresses() -> None:
    """scripts/compose-smoke's nginx reads deploy/nginx.conf, three addresses changed."""
    spec = importlib.util.spec_from_file_location("smoke", ROOT / "deploy" / "smoke" / "smoke.py")
    assert spec is not None and spec.loader is not None
    sys.path.insert(0, str(ROOT / "deploy" / "smoke"))  # smoke.py imports its neighbour
    try:
        smoke = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(smoke)
    finally:
        sys.path.remove(str(ROOT / "deploy" / "smoke"))
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    rewritten = smoke.loopback_nginx_conf(conf)
    changed = [
        (before.strip(), after.strip())
        for before, after in zip(conf.splitlines(), rewritten.splitlines(), strict=True)
        if before != after
    ]
    moves = {
        "web1:8000": f"127.0.0.1:{smoke.PORTS['SMOKE_WEB1_PORT']}",
        "web2:8000": f"127.0.0.1:{smoke.PORTS['SMOKE_WEB2_PORT']}",
        "listen 80;": f"listen 127.0.0.1:{smoke.PORTS['SMOKE_PROXY_PORT']};",
    }
    assert len(changed) == len(moves)
    for (before, after), (old, new) in zip(changed, moves.items(), strict=True):
        assert after == before.replace(old, new)


SCALE_OVERRIDE = ROOT / "deploy" / "smoke" / "docker-compose.scale-host.yml"


def test_the_scale_profile_runs_through_pgbouncer_a_replica_and_two_redis(
    services: dict[str, Any],
) -> None:
    scale = {name: spec for name, spec in services.items() if spec.get("profiles") == ["scale"]}
    assert {"primary", "replica", "pgbouncer", "redis2", "scale-proxy"} <= set(scale)
    webs = [name for name in scale if re.fullmatch(r"scale-web\d", name)]
    assert len(webs) == 3
    assert set(services) - set(scale) == {
        "db", "redis", "migrate", "worker", "solver", "web1", "web2", "proxy"
    }  # fmt: skip
    for name in (*webs, "scale-worker", "scale-solver"):
        env = environment(scale[name])
        assert urlsplit(env["DATABASE_URL"]).hostname == "pgbouncer", name
        assert env["DB_POOLER"] == "transaction"
        assert urlsplit(env["DATABASE_LISTEN_URL"]).hostname == "primary"
        assert urlsplit(env["DATABASE_REPLICA_URL"]).hostname == "replica"
        assert [urlsplit(url).hostname for url in env["REDIS_URL"].split(",")] == [
            "redis",
            "redis2",
        ]
    assert "--scale" not in str(scale["scale-solver"])  # scaled from the command line
    assert urlsplit(environment(scale["scale-migrate"])["DATABASE_URL"]).hostname == "primary"
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    scaled = (ROOT / "deploy" / "nginx-scale.conf").read_text()
    upstream = "\n".join(f"    server {web}:8000 max_fails=3 fail_timeout=10s;" for web in webs)
    assert upstream in scaled
    # Else deploy/nginx.conf as it is, past the two lines of its heading.
    assert scaled.split("\n", 2)[2].replace(upstream + "\n", "") == conf.replace(
        "    server web1:8000 max_fails=3 fail_timeout=10s;\n"
        "    server web2:8000 max_fails=3 fail_timeout=10s;\n",
        "",
    )


def test_the_scale_smoke_override_moves_addresses_and_nothing_else(
    services: dict[str, Any],
) -> None:
    override = yaml.safe_load(SCALE_OVERRIDE.read_text())["services"]
    assert set(override) == {n for n, spec in services.items() if "profiles" in spec}
    allowed = {"network_mode", "command", "healthcheck", "environment", "build", "volumes"}
    variables = {"DATABASE_URL", "DATABASE_LISTEN_URL", "DATABASE_REPLICA_URL", "REDIS_URL"}
    for name, spec in override.items():
        assert set(spec) <= allowed and spec["network_mode"] == "host", name
        assert set(spec.get("healthcheck", {})) <= {"test"}, name
        env = {key: substitute(str(value)) for key, value in spec.get("environment", {}).items()}
        for key in variables & set(env):
            for url in env[key].split(","):
                assert urlsplit(url).hostname == "127.0.0.1", (name, key)
