"""Request rate limits, counted in Django's cache (Redis when ``REDIS_URL`` is set).

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``THROTTLE_ANON``,
``THROTTLE_USER``, ``THROTTLE_AUTH``), read on every request so that a settings change
applies at once. If the cache cannot be reached the request is let through and a warning
logged: losing the rate limit for a while beats refusing every request.
"""

from __future__ import annotations

import logging
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

logger = logging.getLogger(__name__)


class _SettingsRate(SimpleRateThrottle):
    """Reads its rate from the current settings; lets requests through if the cache fails."""

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "")
        return None if rate is None else str(rate)

    def allow_request(self, request: Request, view: Any) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception as error:  # the cache is down: fail open
            logger.warning("throttle %s: cache unavailable: %r", self.scope, error)
            return True


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
