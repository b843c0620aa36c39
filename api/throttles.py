"""Request rate limits, counted atomically in Django's cache (Redis when ``REDIS_URL`` is set).

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``THROTTLE_ANON``,
``THROTTLE_USER``, ``THROTTLE_AUTH``), read on every request so that a settings change
applies at once. A rate ``N/period`` lets at most N requests through in any window of that
period (a sliding log of the requests' times, as DRF keeps it), and the count cannot be
overrun by concurrent requests: DRF reads the log, then writes it back, so requests in
flight at once all read the same count and all pass. Here the whole check and the append
are one step (``games.rates.hit``: a Lua script in Redis, a lock in one process).

If the cache cannot be reached the request is let through and a warning logged: losing the
rate limit for a while beats refusing every request.
"""

from __future__ import annotations

import logging
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from games.rates import hit

logger = logging.getLogger(__name__)


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


class AnonThrottle(_SettingsRate, AnonRateThrottle):
    """Anonymous requests, per client address (``THROTTLE_ANON``)."""


class UserThrottle(_SettingsRate, UserRateThrottle):
    """Authenticated requests, per user (``THROTTLE_USER``)."""


class AuthThrottle(_SettingsRate):
    """Registration and token requests, per client address whoever asks (``THROTTLE_AUTH``):
    slows down password guessing and mass registration."""

    scope = "auth"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
