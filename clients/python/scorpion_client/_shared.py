"""What the synchronous and the asynchronous clients share: when to retry, how long to
wait, the shape of a request and how an answer becomes a value or an :class:`ApiError`."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from scorpion_client.errors import ApiError

JSON = dict[str, Any]

#: Answers that mean "nothing was done, ask again later" (throttled, unavailable).
RETRY_ANY = frozenset({429, 503})
#: Answers worth retrying when asking again is harmless (a GET, a keyed command).
RETRY_IDEMPOTENT = frozenset({502, 504})
#: Close codes after which a feed is not reopened: the server refused it for good.
FINAL_CLOSE_CODES = frozenset({4400, 4401, 4403, 4404})


@dataclass(frozen=True)
class Retry:
    """How often and how long to retry: ``attempts`` in all, waiting ``backoff`` × 2ⁿ
    seconds (with jitter, at most ``max_wait``), or what ``Retry-After`` says."""

    attempts: int = 4
    backoff: float = 0.25
    max_wait: float = 10.0

    def wait(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds to wait before attempt ``attempt + 1``."""
        if retry_after is not None:
            try:
                return min(self.max_wait, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return min(self.max_wait, self.backoff * 2.0**attempt * (0.5 + random.random()))


@dataclass
class Call:
    """One request: its method, path under ``/api/v1``, query, body and headers, and
    whether asking again is harmless (a read, or a command with its Idempotency-Key)."""

    method: str
    path: str
    params: dict[str, Any] | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    idempotent: bool = False
    text: bool = False  # the answer is text (the notation, NDJSON), not JSON

    @classmethod
    def get(cls, path: str, **params: Any) -> Call:
        query = {key: value for key, value in params.items() if value is not None}
        return cls("GET", path, params=query or None, idempotent=True)

    @classmethod
    def text_get(cls, path: str, **params: Any) -> Call:
        """A GET whose answer is text rather than JSON."""
        call = cls.get(path, **params)
        call.text = True
        return call

    @classmethod
    def delete(cls, path: str) -> Call:
        """A DELETE: asking again answers as the first time (or 404 once it is gone)."""
        return cls("DELETE", path, idempotent=True)

    @classmethod
    def put(cls, path: str, body: Any) -> Call:
        """A PUT: it replaces what it names, so asking again is harmless."""
        return cls("PUT", path, body=body, idempotent=True)

    @classmethod
    def post(cls, path: str, body: Any = None, *, retry: bool = False) -> Call:
        """A POST; ``retry`` when the server answers a repeat of it as the first time (it
        may then be sent again after a lost answer)."""
        return cls("POST", path, body=body, idempotent=retry)

    @classmethod
    def command(
        cls,
        game_id: str,
        command: JSON,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call:
        """A game command with an Idempotency-Key (a new one unless given), so that every
        retry of it is applied at most once (docs/api.md#idempotency)."""
        body = dict(command)
        if expected_version is not None:
            body["expected_version"] = expected_version
        key = idempotency_key or uuid.uuid4().hex
        return cls(
            "POST",
            f"/games/{segment(game_id)}/commands",
            body=body,
            headers={"Idempotency-Key": key},
            idempotent=True,
        )

    def retryable(self, status: int) -> bool:
        return status in RETRY_ANY or (self.idempotent and status in RETRY_IDEMPOTENT)


def segment(value: str) -> str:
    """``value`` as one path segment."""
    return quote(str(value), safe="")


def result(response: httpx.Response, text: bool = False) -> Any:
    """The JSON of a successful answer (its text with ``text``); :class:`ApiError`
    otherwise."""
    if response.status_code >= 400:
        try:
            body = response.json()
        except ValueError:
            body = {"code": "unknown", "detail": response.text[:200]}
        try:
            retry_after = float(response.headers["Retry-After"])
        except (KeyError, ValueError):
            retry_after = None
        raise ApiError(response.status_code, body, retry_after)
    if text:
        return response.text
    if not response.content:
        return None
    return response.json()


def transport_retryable(error: httpx.TransportError, call: Call) -> bool:
    """Whether a request that failed in transit may be sent again: always when it never
    reached the server (no connection), else only when asking again is harmless."""
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return True
    return call.idempotent


def ws_base(base_url: str) -> str:
    """The WebSocket origin of an HTTP base URL."""
    url = httpx.URL(base_url)
    scheme = "wss" if url.scheme == "https" else "ws"
    port = f":{url.port}" if url.port else ""
    return f"{scheme}://{url.host}{port}"


def feed_path(kind: str, key: str, **query: Any) -> str:
    """The path and query of a feed (docs/api.md#websocket)."""
    path = {"game": "games", "challenge": "challenges", "race": "races", "arena": "arenas"}[kind]
    items = {name: value for name, value in query.items() if value is not None}
    return f"/ws/{path}/{segment(key)}/" + (f"?{urlencode(items)}" if items else "")
