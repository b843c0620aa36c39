"""Reading configuration from the environment.

Every reader raises ``ImproperlyConfigured`` naming the variable, so bad configuration stops
the server at start with a message that says what to fix.
"""

import ipaddress
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """The variable's value with surrounding blanks removed, or ``default`` when unset."""
    return os.environ.get(name, default).strip()


def env_bool(name: str, *, default: bool) -> bool:
    """A boolean flag: 1/true/yes/on or 0/false/no/off (any case); anything else is refused."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}."
    )


def env_int(name: str, *, default: int, minimum: int = 0) -> int:
    """A whole number no smaller than ``minimum``, or ``default`` when unset or empty."""
    raw = env_str(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}.")
    return value


def env_float(name: str, *, default: float, minimum: float = 0.0) -> float:
    """A finite decimal number no smaller than ``minimum``, or ``default`` when unset or
    empty."""
    raw = env_str(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number; got {raw!r}.") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ImproperlyConfigured(f"{name} must be a finite number; got {raw!r}.")
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}.")
    return value


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    """A comma-separated list with blanks and empty items dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


_ORIGIN = re.compile(r"^https?://[^/\s?#]+$")


def env_origins(name: str) -> list[str]:
    """A comma-separated list of web origins (``https://app.example`` or
    ``http://localhost:5173``: a scheme and a host, with no path)."""
    origins = env_list(name)
    for origin in origins:
        if not _ORIGIN.match(origin):
            raise ImproperlyConfigured(
                f"{name} must list origins such as https://app.example (a scheme and a host, "
                f"no path); got {origin!r}."
            )
    return origins


def env_networks(
    name: str, default: list[str]
) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """A comma-separated list of networks (``10.0.0.0/8``, ``::1/128``, or one address)."""
    networks = []
    for item in env_list(name, default):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must list networks such as 10.0.0.0/8 or ::1; got {item!r}."
            ) from None
    return networks


def env_secret(name: str, *, debug: bool, development_default: str, min_length: int) -> str:
    """A secret that production must set, and set strong: at least ``min_length`` characters
    of which at least 5 differ, and not one of Django's generated development keys.
    Development (DEBUG on) falls back to a fixed value and takes any."""
    value = env_str(name)
    if debug:
        return value or development_default
    advice = (
        "use a long random string, e.g. "
        '`python -c "import secrets; print(secrets.token_urlsafe(50))"`'
    )
    if not value:
        raise ImproperlyConfigured(f"{name} must be set when DEBUG is off ({advice}).")
    if len(value) < min_length or len(set(value)) < 5 or value.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            f"{name} is too weak for DEBUG off: it needs at least {min_length} characters, "
            f"5 of them different ({advice})."
        )
    return value


def database_from_url(
    url: str, *, variable: str = "DATABASE_URL", connect_timeout: int = 3
) -> dict[str, Any]:
    """Django ``DATABASES`` entry for a ``postgres://`` / ``postgresql://`` URL.

    ``postgresql://user:password@host:port/name?sslmode=require`` maps to the psycopg 3 backend;
    query parameters become connection ``OPTIONS``, except ``host`` (a unix-socket folder, as in
    ``postgresql://postgres:@/postgres?host=/run/pg``), which becomes ``HOST``. A host may also
    be a percent-encoded socket folder (``postgresql://%2Frun%2Fpg/name``).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        shown = f"{parts.scheme}://…" if parts.scheme else "a value with no scheme"
        raise ImproperlyConfigured(
            f"{variable} must be a PostgreSQL URL (postgres:// or postgresql://); got {shown}. "
            "Unset it to use the embedded PostgreSQL."
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured(f"{variable} must name a database, e.g. postgresql://host/db.")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"{variable} has an invalid port.") from None

    host_part = parts.netloc.rpartition("@")[2]
    if host_part.lower().startswith("%2f"):
        host = unquote(host_part.split(":")[0])
    else:
        host = parts.hostname or ""
    options: dict[str, str] = dict(parse_qsl(parts.query, keep_blank_values=True))
    if "host" in options:
        host = options.pop("host")
    options.setdefault("connect_timeout", str(connect_timeout))

    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(port) if port else "",
        "OPTIONS": options,
    }


def url_of_database(settings_dict: Mapping[str, object]) -> str:
    """A ``DATABASE_URL`` for Django's connection settings of a database (TCP host or
    socket folder): how another process (a job worker, a test's server) reaches it."""
    user = quote(str(settings_dict.get("USER") or ""), safe="")
    password = quote(str(settings_dict.get("PASSWORD") or ""), safe="")
    host = str(settings_dict.get("HOST") or "")
    name = quote(str(settings_dict["NAME"]), safe="")
    credentials = f"{user}:{password}@" if password else f"{user}@"
    if host.startswith("/") or not host:
        return f"postgresql://{credentials}/{name}?host={quote(host or '/tmp', safe='')}"
    port = settings_dict.get("PORT") or 5432
    return f"postgresql://{credentials}{host}:{port}/{name}"


def redis_urls(name: str = "REDIS_URL") -> list[str]:
    """The Redis servers of ``name``: one URL (redis://, rediss:// or unix://) or several
    separated by commas, each a different server; ``[]`` when unset. Anything else stops
    the server at start: an empty item, a server listed twice (two databases of one server
    are one server to shard over), a URL of another scheme."""
    value = env_str(name)
    if not value:
        return []
    urls = [part.strip() for part in value.split(",")]
    servers: set[str] = set()
    for url in urls:
        if not url:
            raise ImproperlyConfigured(
                f"{name} lists an empty server (two commas, or one at an end)."
            )
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ImproperlyConfigured(
                f"{name} must list redis://, rediss:// or unix:// URLs; got {url.split(':')[0]}://…"
            )
        server = (
            parts.path if parts.scheme == "unix" else (parts.hostname or "", parts.port or 6379)
        )
        if str(server) in servers:
            raise ImproperlyConfigured(
                f"{name} lists one Redis server twice ({parts.netloc or parts.path}): the"
                " channel layer shards over different servers, not over databases of one."
            )
        servers.add(str(server))
    return urls


_RATE_PERIODS = {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}


def env_rate(name: str, default: str) -> str | None:
    """A request rate such as ``300/minute`` (per second, minute, hour or day), or ``None``
    for ``off`` (no limit)."""
    raw = env_str(name, default)
    if raw.lower() in ("off", "none"):
        return None
    count, _, period = raw.partition("/")
    if not (count.isdigit() and int(count) > 0 and period.lower() in _RATE_PERIODS):
        raise ImproperlyConfigured(
            f"{name} must be a rate such as 300/minute (per second, minute, hour or day) "
            f"or off; got {raw!r}."
        )
    return f"{int(count)}/{period.lower()}"
