"""Sliding-window rate counts, atomic across processes, in Django's cache.

Like ``games.clock`` and ``games.metrics``, this module sits beside the layers and imports
none of them: the API's throttles (``api.throttles``) and the solver's per-account rate
(``games.reads.solver_work``) count here.

A rate ``N`` per ``period`` lets at most N hits through in any window of that period (a
sliding log of the hits' times), and concurrent hits cannot overrun it: the check and the
count are one step:

- in Redis, one Lua script over a sorted set per key (Redis runs scripts one at a time,
  for every process that shares it), on Redis's own clock;
- in the local-memory cache (one process, no ``REDIS_URL``), under a process-wide lock.
"""

from __future__ import annotations

import threading
import time
import uuid

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

#: KEYS[1]: the key's log; ARGV: limit, period (ms), a unique member. Returns ``{1, 0}``
#: when the hit is counted, ``{0, ms until a slot frees}`` when refused.
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
    """Count one hit under ``key`` if fewer than ``limit`` were counted in the last
    ``period`` seconds: ``(True, 0)``; else ``(False, seconds until one may pass)``. Raises
    whatever the cache raises when it cannot be reached (callers let the hit through)."""
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
