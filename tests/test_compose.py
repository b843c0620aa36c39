"""docker-compose.yml agrees with the settings (Docker does not run on the test machines).

The file is loaded and checked service by service; then the settings are booted, in a
subprocess, with exactly the environment a web service gets, to prove they accept it and
derive the intended database and channel layer from it.
"""

from __future__ import annotations

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
PLACEHOLDER = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")
TEST_VALUES = {
    "POSTGRES_PASSWORD": "compose-db-password",
    "SECRET_KEY": "compose-secret-key",
    "DAILY_SECRET": "compose-daily-secret",
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
        names |= set(re.findall(r"redis_url\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
        names |= set(re.findall(r"environ\.get\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
    return names


def test_the_deployment_has_its_services(services: dict[str, Any]) -> None:
    assert {"db", "redis", "migrate", "proxy"} <= set(services)
    assert len(web_services(services)) >= 2
    for name in ("db", "redis", "proxy", *web_services(services)):
        assert "healthcheck" in services[name], name
    assert services["migrate"]["command"][-3:] == ["manage.py", "migrate", "--noinput"]
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
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_set_header Connection $connection_upgrade;" in conf
    read_timeout = int(re.search(r"proxy_read_timeout (\d+)s;", conf).group(1))
    for spec in web_services(services).values():
        assert read_timeout >= int(environment(spec)["WS_TIMEOUT"])
    assert any(port.endswith(":80") for port in map(str, proxy["ports"]))
    body_limit = re.search(r"client_max_body_size (\d+)k;", conf)
    assert body_limit is not None
    from django.conf import settings

    assert int(body_limit.group(1)) * 1024 == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


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
