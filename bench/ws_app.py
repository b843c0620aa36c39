"""The server the WebSocket benchmark runs: the real application plus a baseline trigger.

Benchmark-only (never in the product's URLs): ``POST /bench/raw-send`` with
``{"game": id, "text": ...}`` does one raw channel-layer group send of ``text`` to the
game's spectators (no database, no replay), and the spectator consumer forwards such a
message as is. It answers after the send, as a command answers after its commit.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from scorpion_server.handler import http_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
django_app = http_application()

from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from api.consumers import GameConsumer  # noqa: E402
from games.live import outbox  # noqa: E402
from games.live.publish import game_group  # noqa: E402


class BenchGameConsumer(GameConsumer):
    """The real spectator consumer, plus forwarding of the baseline's raw messages."""

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
        game_group(request["game"]), {"type": "bench.raw", "text": request["text"]}
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
