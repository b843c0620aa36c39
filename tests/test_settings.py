"""Configuration from the environment: URL parsing, and refusing bad values at start."""

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from scorpion_server.env import database_from_url

PROJECT_DIR = Path(__file__).resolve().parent.parent
CONFIG_VARIABLES = (
    "DEBUG", "SECRET_KEY", "DAILY_SECRET", "DATABASE_URL", "DB_POOL_MAX_SIZE", "DB_POOL_TIMEOUT",
    "STREAM_CACHE_SIZE", "REDIS_URL", "WS_GROUP_EXPIRY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS",
    "SCORPION_DATA_DIR", "LOG_LEVEL", "THROTTLE_ANON", "THROTTLE_USER", "THROTTLE_AUTH",
    "NUM_PROXIES", "SUSPICIOUS_WIN_SECONDS", "SUSPICIOUS_RHYTHM_CV", "SUSPICIOUS_RHYTHM_MIN_MOVES",
    "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD", "SECURE_COOKIES", "TRUST_X_FORWARDED_PROTO", "WS_MESSAGE_RATE",
    "WS_SOCKETS_PER_ADDRESS", "WS_MAX_MESSAGE_BYTES", "DB_CONNECT_TIMEOUT",
)  # fmt: skip
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "test-secret-key-" + "Zq8vL2pW" * 5,
    "DAILY_SECRET": "test-daily-secret-" + "Hk4nR7tY" * 2,
    "DATABASE_URL": "postgresql://scorpion:s3cret@db.example:5433/scorpion",
}


def start_django(**environment: str) -> subprocess.CompletedProcess[str]:
    """Load the settings in a fresh interpreter with only ``environment`` configured.

    Prints the channel layer and cache backends, database host and allowed hosts on success.
    """
    env = {name: value for name, value in os.environ.items() if name not in CONFIG_VARIABLES}
    env.update(environment, DJANGO_SETTINGS_MODULE="scorpion_server.settings")
    script = (
        "import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps([settings.CHANNEL_LAYERS['default']['BACKEND'], "
        "settings.CACHES['default']['BACKEND'], settings.DATABASES['default']['HOST'], "
        "settings.ALLOWED_HOSTS]))"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_configuration_starts():
    result = start_django(**PRODUCTION, REDIS_URL="redis://cache.example:6379/0")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        "channels_redis.core.RedisChannelLayer",
        "django.core.cache.backends.redis.RedisCache",
        "db.example",
        ["localhost", "127.0.0.1", "[::1]"],
    ]


def test_several_redis_servers_carry_the_channel_layer_and_the_first_the_cache():
    script = (
        "import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps([[host['address'] for host in "
        "settings.CHANNEL_LAYERS['default']['CONFIG']['hosts']], "
        "settings.CACHES['default']['LOCATION']]))"
    )
    listed = "redis://r1:6379/0, redis://r2:6380/0"
    env = {name: value for name, value in os.environ.items() if name not in CONFIG_VARIABLES}
    env.update(PRODUCTION, REDIS_URL=listed, DJANGO_SETTINGS_MODULE="scorpion_server.settings")
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_DIR, env=env, capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        ["redis://r1:6379/0", "redis://r2:6380/0"],
        "redis://r1:6379/0",
    ]


def test_allowed_hosts_accept_any_host_only_in_development_by_default():
    development = {"DEBUG": "1", "DATABASE_URL": PRODUCTION["DATABASE_URL"]}

    anything = start_django(**development)
    explicit = start_django(**development, ALLOWED_HOSTS="scorpion.example, api.example")

    assert json.loads(anything.stdout)[3] == ["localhost", "127.0.0.1", "[::1]", "*"]
    assert json.loads(explicit.stdout)[3] == ["scorpion.example", "api.example"]


@pytest.mark.parametrize(
    ("variable", "environment"),
    [
        ("DATABASE_URL", {**PRODUCTION, "DATABASE_URL": "mysql://root:hunter2@localhost/db"}),
        ("DATABASE_URL", {**PRODUCTION, "DATABASE_URL": "postgresql://localhost"}),
        ("SECRET_KEY", {**PRODUCTION, "SECRET_KEY": ""}),
        ("SECRET_KEY", {**PRODUCTION, "SECRET_KEY": "x"}),
        ("SECRET_KEY", {**PRODUCTION, "SECRET_KEY": "a-much-too-short-secret-key"}),
        ("SECRET_KEY", {**PRODUCTION, "SECRET_KEY": "ab" * 40}),
        ("SECRET_KEY", {**PRODUCTION, "SECRET_KEY": "django-insecure-" + "Zq8vL2pW" * 6}),
        ("DAILY_SECRET", {**PRODUCTION, "DAILY_SECRET": "d"}),
        ("DAILY_SECRET", {**PRODUCTION, "DAILY_SECRET": "daily-secret"}),
        ("SECURE_HSTS_SECONDS", {**PRODUCTION, "SECURE_HSTS_SECONDS": "a year"}),
        ("SECURE_SSL_REDIRECT", {**PRODUCTION, "SECURE_SSL_REDIRECT": "please"}),
        ("DAILY_SECRET", {**PRODUCTION, "DAILY_SECRET": ""}),
        ("DEBUG", {**PRODUCTION, "DEBUG": "maybe"}),
        ("REDIS_URL", {**PRODUCTION, "REDIS_URL": "http://cache.example"}),
        ("REDIS_URL", {**PRODUCTION, "REDIS_URL": "redis://r1:6379/0,,redis://r2:6379/0"}),
        ("REDIS_URL", {**PRODUCTION, "REDIS_URL": "redis://r1:6379/0,redis://r1/1"}),
        ("REDIS_URL", {**PRODUCTION, "REDIS_URL": "redis://r1:6379/0,http://r2"}),
        ("REPLICA_MAX_LAG", {**PRODUCTION, "REPLICA_MAX_LAG": "soon"}),
        ("DB_POOLER", {**PRODUCTION, "DB_POOLER": "statement"}),
        ("DATABASE_LISTEN_URL", {**PRODUCTION, "DB_POOLER": "transaction"}),
        ("WS_GROUP_EXPIRY", {**PRODUCTION, "WS_GROUP_EXPIRY": "a day"}),
        ("DB_POOL_MAX_SIZE", {**PRODUCTION, "DB_POOL_MAX_SIZE": "-1"}),
        ("DB_POOL_TIMEOUT", {**PRODUCTION, "DB_POOL_TIMEOUT": "0"}),
        ("LOG_LEVEL", {**PRODUCTION, "LOG_LEVEL": "chatty"}),
        ("THROTTLE_ANON", {**PRODUCTION, "THROTTLE_ANON": "lots"}),
        ("THROTTLE_USER", {**PRODUCTION, "THROTTLE_USER": "0/minute"}),
        ("THROTTLE_AUTH", {**PRODUCTION, "THROTTLE_AUTH": "30/fortnight"}),
        ("NUM_PROXIES", {**PRODUCTION, "NUM_PROXIES": "-1"}),
        ("SUSPICIOUS_WIN_SECONDS", {**PRODUCTION, "SUSPICIOUS_WIN_SECONDS": "0"}),
        ("SUSPICIOUS_RHYTHM_CV", {**PRODUCTION, "SUSPICIOUS_RHYTHM_CV": "low"}),
        ("SUSPICIOUS_RHYTHM_CV", {**PRODUCTION, "SUSPICIOUS_RHYTHM_CV": "nan"}),
        ("SUSPICIOUS_RHYTHM_MIN_MOVES", {**PRODUCTION, "SUSPICIOUS_RHYTHM_MIN_MOVES": "1"}),
        ("SOLVER_RATE", {**PRODUCTION, "SOLVER_RATE": "often"}),
        ("SOLVER_PROCESSES", {**PRODUCTION, "SOLVER_PROCESSES": "0"}),
        ("SOLVER_QUEUE", {**PRODUCTION, "HTTP_THREADS": "8", "SOLVER_QUEUE": "7"}),
        ("SOLVER_WAIT_MS", {**PRODUCTION, "HINT_TIME_LIMIT": "3", "SOLVER_WAIT_MS": "2000"}),
        ("RIGHTS_SWEEP_SECONDS", {**PRODUCTION, "RIGHTS_SWEEP_SECONDS": "0"}),
    ],
)
def test_bad_configuration_fails_at_start_naming_the_variable(variable, environment):
    result = start_django(**environment)

    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("django.core.exceptions.ImproperlyConfigured:"), result.stderr
    assert variable in last_line
    assert "hunter2" not in result.stderr


def test_weak_secrets_are_refused_without_echoing_them():
    result = start_django(**{**PRODUCTION, "SECRET_KEY": "hunter2hunter2"})

    assert result.returncode != 0
    assert "SECRET_KEY is too weak" in result.stderr
    assert "hunter2" not in result.stderr


def documented_production_environment() -> dict[str, str]:
    """The production environment docs/operations.md documents (the block after its
    marker), with its placeholders (``…``) filled."""
    operations = (PROJECT_DIR / "docs" / "operations.md").read_text()
    found = re.search(r"<!-- production-environment -->\s*```sh\n(.*?)```", operations, re.DOTALL)
    assert found, "docs/operations.md has no production environment block"
    fills = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DAILY_SECRET": secrets.token_urlsafe(32),
    }
    environment = {}
    for line in found.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, value = line.partition("=")
        environment[name] = fills.get(name) or value.replace("…", "secret")
    return environment


def test_the_documented_production_environment_passes_the_deploy_check():
    environment = documented_production_environment()
    assert environment["DEBUG"] == "0"
    assert environment["SECURE_SSL_REDIRECT"] == "1"
    env = {name: value for name, value in os.environ.items() if name not in CONFIG_VARIABLES}
    env.update(environment, DJANGO_SETTINGS_MODULE="scorpion_server.settings")

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_deploy_check_flags_a_production_environment_without_https():
    env = {name: value for name, value in os.environ.items() if name not in CONFIG_VARIABLES}
    env.update(PRODUCTION, DJANGO_SETTINGS_MODULE="scorpion_server.settings")

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in result.stderr + result.stdout


def test_secrets_have_development_defaults_only_with_debug_on():
    development = {"DEBUG": "1", "DATABASE_URL": PRODUCTION["DATABASE_URL"]}

    assert start_django(**development).returncode == 0
    assert start_django(**{**development, "DEBUG": "0"}).returncode != 0


def test_database_url_maps_to_the_psycopg_backend():
    config = database_from_url("postgres://alice:p%40ss@db.example:6543/games?sslmode=require")

    assert config == {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "games",
        "USER": "alice",
        "PASSWORD": "p@ss",
        "HOST": "db.example",
        "PORT": "6543",
        "OPTIONS": {"sslmode": "require", "connect_timeout": "3"},
    }


def test_database_url_accepts_unix_socket_folders():
    from_query = database_from_url("postgresql://postgres:@/scorpion?host=/tmp/pg%20data")
    from_host = database_from_url("postgresql://%2Fvar%2Frun%2Fpostgresql/scorpion")

    assert (from_query["HOST"], from_query["USER"], from_query["PASSWORD"]) == (
        "/tmp/pg data",
        "postgres",
        "",
    )
    assert "host" not in from_query["OPTIONS"]
    assert from_host["HOST"] == "/var/run/postgresql"


def test_database_url_keeps_an_explicit_connect_timeout():
    config = database_from_url("postgresql://db/scorpion?connect_timeout=3")

    assert config["OPTIONS"] == {"connect_timeout": "3"}


@pytest.mark.parametrize("url", ["sqlite:///db.sqlite3", "mysql://db/x", "db.example/x", ""])
def test_database_url_refuses_anything_but_postgresql(url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        database_from_url(url)


def test_throttle_rates_read_from_the_environment():
    from scorpion_server.env import env_rate

    environment = {"THROTTLE_X": " 5/Second ", "THROTTLE_OFF": "off"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in environment.items():
            patch.setenv(name, value)
        assert env_rate("THROTTLE_X", "1/day") == "5/second"
        assert env_rate("THROTTLE_OFF", "1/day") is None
        assert env_rate("THROTTLE_UNSET", "300/minute") == "300/minute"
