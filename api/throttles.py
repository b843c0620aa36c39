"""Request rate limits, counted atomically in Django's cache (Redis when ``REDIS_URL`` is set).

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``THROTTLE_ANON``,
``THROTTLE_USER``, ``THROTTLE_AUTH``, ``THROTTLE_GUEST``, ``THROTTLE_MAIL``,
``THROTTLE_DATA``), read on every request so that a settings change
applies at once. A rate ``N/period`` lets at most N requests through in any window of that
period (a sliding log of the requests' times, as DRF keeps it), and the count cannot be
overrun by concurrent requests: DRF reads the log, then writes it back, so requests in
flight at once all read the same count and all pass. Here the whole check and the append
are one step:

- in Redis, one Lua script over a sorted set per client (Redis runs scripts one at a
  time, for every process that shares it), on Redis's own clock;
- in the local-memory cache (one process, no ``REDIS_URL``), under a process-wide lock.

If the cache cannot be reached the request is let through and a warning logged: losing the
rate limit for a while beats refusing every request.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from games.writes import accounts

logger = logging.getLogger(__name__)

#: KEYS[1]: the client's log; ARGV: limit, period (ms), a unique member. Returns
#: ``{1, 0}`` when the request is counted, ``{0, ms until a slot frees}`` when refused.
_SLIDING_LOG = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local limit, period = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - period)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], ms, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], period)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + period - ms}
"""

_memory_lock = threading.Lock()


def hit(key: str, limit: int, period: float) -> tuple[bool, float]:
    """Count one request under ``key`` if fewer than ``limit`` were counted in the last
    ``period`` seconds: ``(True, 0)``; else ``(False, seconds until one may pass)``."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return _hit_redis(backend, key, limit, period)
    return _hit_memory(key, limit, period)


def _hit_redis(backend: RedisCache, key: str, limit: int, period: float) -> tuple[bool, float]:
    full_key = backend.make_key(key)
    client = backend._cache.get_client(full_key, write=True)
    script = client.register_script(_SLIDING_LOG)  # EVALSHA, loaded on first use
    allowed, wait_ms = script(keys=[full_key], args=[limit, int(period * 1000), uuid.uuid4().hex])
    return bool(allowed), max(0, int(wait_ms)) / 1000


def _hit_memory(key: str, limit: int, period: float) -> tuple[bool, float]:
    with _memory_lock:
        now = time.time()
        history: list[float] = [t for t in cache.get(key, []) if t > now - period]
        if len(history) >= limit:
            return False, history[0] + period - now
        history.append(now)
        cache.set(key, history, period)
        return True, 0.0


class _SettingsRate(SimpleRateThrottle):
    """Reads its rate from the current settings, counts atomically (:func:`hit`), and lets
    requests through if the cache fails."""

    retry_after = 0.0

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "")
        return None if rate is None else str(rate)

    num_requests: int | None
    duration: int | None

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        try:
            allowed, self.retry_after = hit(self.key, self.num_requests, self.duration)
        except Exception as error:  # the cache is down: fail open
            logger.warning("throttle %s: cache unavailable: %r", self.scope, error)
            return True
        return allowed

    def wait(self) -> float | None:
        return self.retry_after


def _guest(request: Request) -> bool:
    """Whether the request comes from a guest (known with its key: no query)."""
    user = request.user
    return bool(user and user.is_authenticated and accounts.is_guest(user))


class AnonThrottle(_SettingsRate, AnonRateThrottle):
    """Anonymous requests, and guests', per client address (``THROTTLE_ANON``): a guest
    costs nothing to make, so counting per guest would count nothing."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if _guest(request):
            return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
        key: str | None = super().get_cache_key(request, view)
        return key


class UserThrottle(_SettingsRate, UserRateThrottle):
    """Authenticated requests, per user (``THROTTLE_USER``); guests count as anonymous."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if _guest(request):
            return None
        key: str | None = super().get_cache_key(request, view)
        return key


class _PerAddress(_SettingsRate):
    """Requests of one kind, per client address whoever asks."""

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class GuestThrottle(_PerAddress):
    """New guests (``POST /auth/guest``), per client address (``THROTTLE_GUEST``)."""

    scope = "guest"


class MailThrottle(_PerAddress):
    """Emails asked for (password resets, address verifications), per client address
    (``THROTTLE_MAIL``): nobody can flood an inbox through the server."""

    scope = "mail"


class DataThrottle(_SettingsRate, UserRateThrottle):
    """Downloads of one's own data (``GET /auth/data``), per account (``THROTTLE_DATA``):
    each writes every game of the account."""

    scope = "data"


class AuthThrottle(_PerAddress):
    """Registration and token requests, per client address whoever asks (``THROTTLE_AUTH``):
    slows down password guessing and mass registration."""

    scope = "auth"
