"""The asynchronous client: :class:`AsyncClient` and :class:`AsyncFeed`, the same operations
as :mod:`scorpion_client.client` for asyncio programs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable
from types import TracebackType
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

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


class AsyncClient(Endpoints[Awaitable[Any]]):
    """The Scorpion server's REST API for asyncio: every operation of :class:`Client`,
    awaited, with the same retries and errors."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        language: str | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retry = retry or Retry()
        headers = {"Accept-Language": language} if language else {}
        self.http = http or httpx.AsyncClient(timeout=timeout, headers=headers)
        self.tickets: bool | None = None

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: Any, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    def _send(self, call: Call) -> Awaitable[Any]:
        return self._request(call)

    async def _request(self, call: Call) -> Any:
        headers = dict(call.headers)
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        url = f"{self.base_url}/api/v1{call.path}"
        attempt = 0
        while True:
            try:
                response = await self.http.request(
                    call.method, url, params=call.params, json=call.body, headers=headers
                )
            except httpx.TransportError as error:
                if attempt + 1 >= self.retry.attempts or not transport_retryable(error, call):
                    raise
                await asyncio.sleep(self.retry.wait(attempt))
                attempt += 1
                continue
            if call.retryable(response.status_code) and attempt + 1 < self.retry.attempts:
                await asyncio.sleep(self.retry.wait(attempt, response.headers.get("Retry-After")))
                attempt += 1
                continue
            return result(response, call.text)

    async def register(self, username: str, password: str) -> str:
        body = await self._request(
            Call.post("/auth/register", {"username": username, "password": password})
        )
        self.token = str(body["token"])
        return self.token

    async def login(self, username: str, password: str) -> str:
        body = await self._request(
            Call.post("/auth/token", {"username": username, "password": password})
        )
        self.token = str(body["token"])
        return self.token

    async def change_password(self, password: str, new_password: str) -> str:
        """Change the password: every key of the account is revoked, and the new key that
        answers is kept by the client."""
        body = await self._request(
            Call.post("/auth/password", {"password": password, "new_password": new_password})
        )
        self.token = str(body["token"])
        return self.token

    async def set_preferences(self, **changes: Any) -> JSON:
        """Change some preferences and keep the others (``PUT /auth/preferences`` takes
        every field: the stored ones are read first): the preferences as stored."""
        stored = await self._send(Call.get("/auth/preferences"))
        result: JSON = await self._send(Call.put("/auth/preferences", {**stored, **changes}))
        return result

    async def ws_credentials(self) -> dict[str, str]:
        """As :meth:`Client.ws_credentials`: a ticket, or ``?token=`` without tickets."""
        if not self.token:
            return {}
        if self.tickets is not False:
            try:
                ticket = await self._request(Call.post("/auth/ws-ticket"))
                self.tickets = True
                return {"ticket": str(ticket["ticket"])}
            except ApiError as error:
                if error.status not in (404, 405):
                    raise
                self.tickets = False
        return {"token": self.token}

    def watch_game(
        self, game_id: str, *, after: int | None = None, watchers: bool = False
    ) -> AsyncFeed:
        return AsyncFeed(self, "game", game_id, after=after, watchers=watchers)

    def watch_challenge(self, date: str = "today") -> AsyncFeed:
        return AsyncFeed(self, "challenge", date)

    def watch_race(self, race: str) -> AsyncFeed:
        return AsyncFeed(self, "race", race)

    def watch_arena(self, arena: str) -> AsyncFeed:
        return AsyncFeed(self, "arena", arena)


class AsyncFeed:
    """:class:`scorpion_client.client.Feed` for asyncio: ``async for frame in feed``."""

    def __init__(
        self,
        client: AsyncClient,
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
        self.after = after
        self.watchers = watchers
        self.reconnects = reconnects
        self.ping_every = ping_every
        self.opened = 0
        #: The open connection, while there is one.
        self.connection: Any = None

    async def url(self) -> str:
        query: dict[str, Any] = dict(await self.client.ws_credentials())
        if self.kind == "game":
            query.update(after=self.after, watchers=1 if self.watchers else None)
        return ws_base(self.client.base_url) + feed_path(self.kind, self.key, **query)

    def seen(self, frame: JSON) -> None:
        if frame.get("type") == "snapshot":
            self.after = int(frame["game"]["version"])
        elif frame.get("type") == "event":
            self.after = int(frame["event"]["seq"])

    async def __aiter__(self) -> AsyncIterator[JSON]:
        failures = 0
        while True:
            code: int | None = None
            try:
                async with connect(await self.url(), open_timeout=10, close_timeout=2) as ws:
                    self.opened += 1
                    self.connection = ws
                    while True:
                        try:
                            text = await asyncio.wait_for(ws.recv(), self.ping_every)
                        except TimeoutError:
                            await ws.send(PING)
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
            await asyncio.sleep(self.client.retry.wait(failures - 1))
