"""The server the WebSocket benchmark runs: the real application plus a baseline trigger.

Benchmark-only (never in the product's URLs): ``POST /bench/raw-send`` with
``{"game": id, "text": ...}`` does one raw channel-layer group send of ``text`` to the
game's spectators (no database, no replay), and each spectator consumer forwards such a
message as is. It answers after the send, as a command answers after its commit.

The baseline takes the path Channels gives every consumer: each spectator has a channel
of its own in the baseline's group, and Channels dispatches its messages to a handler.
(The product's consumers have no channel: the process's feed of the game sends to them.)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from typing import Any

from scorpion_server import asgi

# The server's own HTTP application, and with it what the server process sets up when it
# loads (scorpion_server.asgi: the startup objects frozen out of the garbage collector, whose
# full collections would otherwise pause the loop for 100 ms and more and decide the p99).
django_app = asgi.django_asgi_app

from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.utils import await_many_dispatch  # noqa: E402
from django.urls import path  # noqa: E402

from api.consumers import GameConsumer  # noqa: E402
from games.live import outbox  # noqa: E402


def raw_group(game: str) -> str:
    """The baseline's group: every spectator of ``game``, one channel each."""
    return f"bench.{game}"


class BenchGameConsumer(GameConsumer):
    """The real spectator consumer, plus a channel in the baseline's group whose messages
    Channels dispatches to :meth:`bench_raw`, as it would for any consumer's channel."""

    raw: asyncio.Future[None] | None = None

    async def connect(self) -> None:
        # In the baseline's group before the snapshot goes out: the benchmark starts once
        # every spectator has its snapshot.
        layer = get_channel_layer()
        self.raw_group = raw_group(self.scope["url_route"]["kwargs"]["game_id"])
        self.raw_channel = await layer.new_channel()
        await layer.group_add(self.raw_group, self.raw_channel)
        receive = functools.partial(layer.receive, self.raw_channel)
        self.raw = asyncio.ensure_future(await_many_dispatch([receive], self.dispatch))
        await super().connect()

    async def disconnect(self, code: int) -> None:
        if self.raw is not None:
            self.raw.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.raw
            await get_channel_layer().group_discard(self.raw_group, self.raw_channel)
        await super().disconnect(code)

    async def bench_raw(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["text"])


async def http(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http" or scope["path"] != "/bench/raw-send":
        await django_app(scope, receive, send)
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body)
    await get_channel_layer().group_send(
        raw_group(request["game"]), {"type": "bench.raw", "text": request["text"]}
    )
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


router = ProtocolTypeRouter(
    {
        "http": http,
        "websocket": URLRouter([path("ws/games/<str:game_id>/", BenchGameConsumer.as_asgi())]),
    }
)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    outbox.bind(asyncio.get_running_loop())  # as scorpion_server.asgi does
    await router(scope, receive, send)
