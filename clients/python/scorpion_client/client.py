"""The synchronous client: :class:`Client` for the REST API, :class:`Feed` for a live feed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect

from scorpion_client._shared import (
    FINAL_CLOSE_CODES,
    JSON,
    Call,
    Retry,
    feed_path,
    result,
    transport_retryable,
    ws_base,
)
from scorpion_client.endpoints import Endpoints
from scorpion_client.errors import ApiError, FeedClosed

PING = json.dumps({"type": "ping"})


class Client(Endpoints[Any]):
    """The Scorpion server's REST API, synchronously.

    ``base_url`` is the server (``http://127.0.0.1:8000``); ``token`` an API key, or sign in
    with :meth:`register` or :meth:`login`. A request that failed in transit, or that the
    server answered 429 or 503, is sent again as ``retry`` says (a GET or a command only when
    asking again is harmless: a command always carries an Idempotency-Key, the same on every
    attempt). A refusal raises :class:`ApiError` with its code.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        language: str | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retry = retry or Retry()
        headers = {"Accept-Language": language} if language else {}
        self.http = http or httpx.Client(timeout=timeout, headers=headers)
        #: Whether the server hands out WebSocket tickets (``None``: not asked yet).
        self.tickets: bool | None = None

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: Any, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # --- requests ------------------------------------------------------------------------

    def _send(self, call: Call) -> Any:
        headers = dict(call.headers)
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        url = f"{self.base_url}/api/v1{call.path}"
        attempt = 0
        while True:
            try:
                response = self.http.request(
                    call.method, url, params=call.params, json=call.body, headers=headers
                )
            except httpx.TransportError as error:
                if attempt + 1 >= self.retry.attempts or not transport_retryable(error, call):
                    raise
                time.sleep(self.retry.wait(attempt))
                attempt += 1
                continue
            if call.retryable(response.status_code) and attempt + 1 < self.retry.attempts:
                time.sleep(self.retry.wait(attempt, response.headers.get("Retry-After")))
                attempt += 1
                continue
            return result(response, call.text)

    def register(self, username: str, password: str) -> str:
        """Make an account and sign in as it: its API key (kept by the client)."""
        body = self._send(Call.post("/auth/register", {"username": username, "password": password}))
        self.token = str(body["token"])
        return self.token

    def login(self, username: str, password: str) -> str:
        """Sign in: a new API key (kept by the client)."""
        body = self._send(Call.post("/auth/token", {"username": username, "password": password}))
        self.token = str(body["token"])
        return self.token

    def change_password(self, password: str, new_password: str) -> str:
        """Change the password: every key of the account is revoked, and the new key that
        answers is kept by the client."""
        body = self._send(
            Call.post("/auth/password", {"password": password, "new_password": new_password})
        )
        self.token = str(body["token"])
        return self.token

    def set_preferences(self, **changes: Any) -> JSON:
        """Change some preferences and keep the others (``PUT /auth/preferences`` takes
        every field: the stored ones are read first): the preferences as stored."""
        stored = self._send(Call.get("/auth/preferences"))
        result: JSON = self._send(Call.put("/auth/preferences", {**stored, **changes}))
        return result

    def ws_credentials(self) -> dict[str, str]:
        """The query that authenticates a WebSocket: a single-use ticket from
        ``POST /auth/ws-ticket``, or ``?token=`` from a server that has no tickets."""
        if not self.token:
            return {}
        if self.tickets is not False:
            try:
                ticket = self._send(Call.post("/auth/ws-ticket"))
                self.tickets = True
                return {"ticket": str(ticket["ticket"])}
            except ApiError as error:
                if error.status not in (404, 405):
                    raise
                self.tickets = False
        return {"token": self.token}

    # --- feeds ---------------------------------------------------------------------------

    def watch_game(self, game_id: str, *, after: int | None = None, watchers: bool = False) -> Feed:
        """A game's frames (snapshot, then events), resumed with ``?after=`` when the
        connection drops."""
        return Feed(self, "game", game_id, after=after, watchers=watchers)

    def watch_challenge(self, date: str = "today") -> Feed:
        return Feed(self, "challenge", date)

    def watch_race(self, race: str) -> Feed:
        return Feed(self, "race", race)

    def watch_arena(self, arena: str) -> Feed:
        return Feed(self, "arena", arena)


class Feed:
    """The frames of one feed, as an iterator that reopens the feed when it drops.

    A game's feed resumes after the last event it yielded (``?after=N``: the server sends
    the game at N, then every event after it, none twice); a standings feed starts again
    with the standings as they are. A close that is a refusal (4400, 4401, 4403, 4404), or
    ``reconnects`` failed attempts in a row, raises :class:`FeedClosed`. While nothing
    arrives for ``ping_every`` seconds the feed pings (which also makes the server look for
    anything its relay dropped)."""

    def __init__(
        self,
        client: Client,
        kind: str,
        key: str,
        *,
        after: int | None = None,
        watchers: bool = False,
        reconnects: int = 5,
        ping_every: float = 20.0,
    ) -> None:
        self.client = client
        self.kind = kind
        self.key = key
        #: The last version of the game seen (the game feed's resume point).
        self.after = after
        self.watchers = watchers
        self.reconnects = reconnects
        self.ping_every = ping_every
        #: How many times the feed was opened.
        self.opened = 0
        #: The open connection, while there is one.
        self.connection: Any = None

    def url(self) -> str:
        query: dict[str, Any] = dict(self.client.ws_credentials())
        if self.kind == "game":
            query.update(after=self.after, watchers=1 if self.watchers else None)
        return ws_base(self.client.base_url) + feed_path(self.kind, self.key, **query)

    def seen(self, frame: JSON) -> None:
        """Keep the resume point of a game's feed."""
        if frame.get("type") == "snapshot":
            self.after = int(frame["game"]["version"])
        elif frame.get("type") == "event":
            self.after = int(frame["event"]["seq"])

    def __iter__(self) -> Iterator[JSON]:
        failures = 0
        while True:
            code: int | None = None
            try:
                with connect(self.url(), open_timeout=10, close_timeout=2) as ws:
                    self.opened += 1
                    self.connection = ws
                    while True:
                        try:
                            text = ws.recv(timeout=self.ping_every)
                        except TimeoutError:
                            ws.send(PING)
                            continue
                        frame = json.loads(text)
                        self.seen(frame)
                        failures = 0
                        yield frame
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                if code in FINAL_CLOSE_CODES:
                    raise FeedClosed(code, closed.rcvd.reason if closed.rcvd else "") from None
            except InvalidStatus as refused:
                status = refused.response.status_code
                if 400 <= status < 500 and status != 429:
                    raise FeedClosed(None, f"handshake refused: HTTP {status}") from None
            except (OSError, TimeoutError, InvalidHandshake, httpx.TransportError):
                pass
            failures += 1
            if failures > self.reconnects:
                raise FeedClosed(code, "could not reopen the feed")
            time.sleep(self.client.retry.wait(failures - 1))
