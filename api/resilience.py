"""WebSocket consumers that survive their channel layer (``games.live.relay``).

Channels' consumer awaits the client and the channel layer together, and dies (close code
1011) as soon as the layer's ``receive`` raises, as it does when Redis goes away.
:class:`LayerResilient` awaits three sources instead: the client, the layer (a receive that
waits while the layer is down instead of raising), and a local inbox where the process's
relay puts frames it read from the event store. All three are dispatched one message at a
time, as Channels does, so a consumer never handles two messages at once.

It also counts what operators watch (``games.metrics``): open sockets and frames sent.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch

from games import metrics
from games.live.relay import drop_pooled_connections, relay


class LayerResilient(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A JSON WebSocket consumer whose connection outlives a channel-layer outage."""

    #: The label of this consumer's sockets in the metrics (``game``, ``challenge``).
    kind: ClassVar[str] = "other"
    inbox: asyncio.Queue[dict[str, Any]]
    counted = False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = await self.channel_layer.new_channel()
        self.inbox = asyncio.Queue()
        self.base_send = send
        try:
            await await_many_dispatch([receive, self._layer_receive, self.inbox.get], self.dispatch)
        except StopConsumer:
            pass
        finally:
            relay.forget(self)
            if self.counted:
                self.counted = False
                metrics.websockets_open.labels(self.kind).dec()

    async def _layer_receive(self) -> dict[str, Any]:
        """The next message of the channel layer; while the layer is down, wait for it to
        come back rather than fail the connection."""
        while True:
            await relay.wait_up()
            try:
                message: dict[str, Any] = await self.channel_layer.receive(self.channel_name)
                return message
            except asyncio.CancelledError:
                raise
            except Exception as error:
                relay.failed("receive", error)
                if relay.is_up():  # not this process's server loop: do not spin
                    await asyncio.sleep(1)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        await super().accept(subprotocol, headers)
        if not self.counted:
            self.counted = True
            metrics.websockets_open.labels(self.kind).inc()

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        await super().send(text_data, bytes_data, close)
        if text_data is not None or bytes_data is not None:
            metrics.frames_sent.labels(self.kind).inc()

    async def send_json(self, content: Any, close: bool = False) -> None:
        # Channels' send_json calls the plain consumer's send, past the override above.
        await super().send_json(content, close)
        metrics.frames_sent.labels(self.kind).inc()

    async def join_group(self, group: str) -> None:
        """Join ``group`` on the channel layer, if it works: a stale pooled connection is
        dropped and the join tried once more; if the layer is down, the relay feeds this
        consumer from the store and joins the group for it when the layer is back."""
        if not relay.is_up():
            return
        try:
            await self.channel_layer.group_add(group, self.channel_name)
            return
        except Exception:  # perhaps a connection that a restarted Redis left stale
            pass
        try:
            await drop_pooled_connections(self.channel_layer)
            await self.channel_layer.group_add(group, self.channel_name)
        except Exception as error:
            relay.failed("group_add", error)
