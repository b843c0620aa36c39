"""Limits on WebSocket clients: messages a connection may send, sockets an address may open.

- **Messages.** Each connection may send ``WS_MESSAGE_RATE`` messages (``N/second``,
  ``/minute`` …; a sliding window: at most N in any such period). A ping costs a database
  read, so a client over the rate is told ``{"type": "error", "code": "throttled"}`` and
  closed with 4429.
- **Sockets.** One client address may hold ``WS_SOCKETS_PER_ADDRESS`` open sockets on each
  server process; one more is accepted, then closed with 4429. The address is the peer's,
  or with ``NUM_PROXIES`` the one the proxies put in ``X-Forwarded-For``, as for the HTTP
  rate limits.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from django.conf import settings
from rest_framework.settings import api_settings

#: Close code for a client over a limit (429, as HTTP's "too many requests").
CLOSE_TOO_MANY = 4429

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str | None) -> tuple[int, float] | None:
    """``"60/minute"`` as ``(60, 60.0)``; ``None`` for no limit."""
    if not rate:
        return None
    count, _, period = rate.partition("/")
    return int(count), float(_PERIODS[period[0]])


class MessageRate:
    """At most ``count`` messages in any ``period`` seconds (the times of the last
    ``count`` are kept)."""

    def __init__(self, rate: str | None) -> None:
        parsed = parse_rate(rate)
        self.count, self.period = parsed if parsed else (0, 0.0)
        self.times: deque[float] = deque(maxlen=max(self.count, 1))

    def allow(self) -> bool:
        if not self.count:
            return True
        now = time.monotonic()
        if len(self.times) == self.count and now - self.times[0] < self.period:
            return False
        self.times.append(now)
        return True


def client_address(scope: dict[str, Any]) -> str:
    """The client's address, as the HTTP throttles count it (DRF's ``get_ident``)."""
    peer = scope.get("client") or ("", 0)
    num_proxies = api_settings.NUM_PROXIES
    if num_proxies:
        for name, value in scope.get("headers", ()):
            if name == b"x-forwarded-for":
                addresses = value.decode("latin-1").split(",")
                return str(addresses[-min(num_proxies, len(addresses))].strip())
    return str(peer[0])


#: Open sockets of each address in this process (consumers all run on daphne's one loop).
_open: dict[str, int] = {}


def take_socket(address: str) -> bool:
    """Count one more open socket for ``address``, unless it holds its limit already."""
    limit = settings.WS_SOCKETS_PER_ADDRESS
    held = _open.get(address, 0)
    if limit and held >= limit:
        return False
    _open[address] = held + 1
    return True


def release_socket(address: str) -> None:
    held = _open.get(address, 0) - 1
    if held > 0:
        _open[address] = held
    else:
        _open.pop(address, None)


def reset() -> None:
    """Forget every count (tests)."""
    _open.clear()
