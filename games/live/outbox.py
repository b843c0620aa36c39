"""Sending to the channel layer without a thread or an event loop per message.

Messages go out from one event loop per process, one at a time, in the order they were
submitted: the server's own loop once the ASGI application has bound it (:func:`bind`),
else a long-lived loop on a thread of its own (management commands, benchmarks, code run
outside a server). Submitting never waits for the channel layer: a command's response is
not held up by its publication, and a failure is logged, not raised (what a message
announces is committed, and viewers recover it from the store): it marks the layer down
for ``games.live.relay``, and nothing is sent until the relay finds it working again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer

from games.live.relay import drop_pooled_connections, relay

logger = logging.getLogger(__name__)

Message = tuple[str, dict[str, Any]]


class _Outbox:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[Message] | None = None
        self._own: tuple[asyncio.AbstractEventLoop, asyncio.Queue[Message]] | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Send from ``loop`` from now on; call it from a task running on ``loop``."""
        if self._loop is loop:
            return
        queue: asyncio.Queue[Message] = asyncio.Queue()
        loop.create_task(_drain(queue))
        with self._lock:
            self._loop, self._queue = loop, queue

    def submit(self, group: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for ``group``."""
        with self._lock:
            loop, queue = self._loop, self._queue
        if loop is None or queue is None or not loop.is_running():
            loop, queue = self._own_loop()
        loop.call_soon_threadsafe(queue.put_nowait, (group, message))

    def _own_loop(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[Message]]:
        with self._lock:
            if self._own is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                holder: list[asyncio.Queue[Message]] = []

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    queue: asyncio.Queue[Message] = asyncio.Queue()
                    holder.append(queue)
                    loop.create_task(_drain(queue))
                    ready.set()
                    loop.run_forever()

                threading.Thread(target=run, name="outbox", daemon=True).start()
                ready.wait()
                self._own = (loop, holder[0])
            return self._own


async def _drain(queue: asyncio.Queue[Message]) -> None:
    while True:
        group, message = await queue.get()
        layer = get_channel_layer()
        if layer is None:
            continue
        if not relay.is_up():
            # The layer failed: the relay feeds this process's viewers from the store, and
            # other processes' relays sweep theirs; a message sent now would only wait.
            continue
        try:
            await _send(layer, group, message)
        except Exception as error:
            logger.warning("could not publish %s to %s: %r", message.get("type"), group, error)
            relay.failed("publish", error)


async def _send(layer: Any, group: str, message: dict[str, Any]) -> None:
    """``group_send``, tried once more on fresh connections if it fails (a Redis that
    restarted leaves pooled connections stale)."""
    try:
        await layer.group_send(group, message)
    except Exception:
        await drop_pooled_connections(layer)
        await layer.group_send(group, message)


def has_audience(group: str) -> bool:
    """Whether a message to ``group`` may reach anyone. Only the in-memory channel layer
    (one process serves every viewer) can tell that nobody listens; with any other layer
    the members may be in other processes, so the answer is yes. A viewer who joins the
    group after this answered no reads the store after joining, so it misses nothing."""
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        return bool(layer.groups.get(group))
    return layer is not None


_outbox = _Outbox()
bind = _outbox.bind
submit = _outbox.submit
