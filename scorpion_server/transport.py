"""daphne as this server runs it: the limits a client meets are enforced by the transport.

``manage.py serve`` runs daphne
with two changes that an ASGI application cannot make itself:

- **Request bodies.** A body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused while it
  arrives: as soon as ``Content-Length`` announces too much, or a chunked body passes the
  limit, the client gets 413 ``too_large`` and the rest is discarded unread into memory, for
  at most :data:`LINGER_SECONDS` (so that a client still sending can read the answer) before
  the connection is dropped. daphne alone buffers the whole body, then queues all of it for
  the application at once.
- **WebSocket messages.** daphne is given ``WS_MAX_MESSAGE_BYTES`` as its largest message and
  frame, and autobahn fails a connection over it with the closing handshake and code 1009
  (its default drops the TCP connection, which a client sees as 1006). An application cannot
  send 1009 itself: autobahn refuses it.
- **Opaque origins.** autobahn refuses a WebSocket handshake from ``Origin: null`` (a
  sandboxed page, a ``file:`` URL) with a 400 of its own; here it lets it through to the
  application's origin check, which refuses it with 403 like any other foreign origin.
- **A header deadline.** A client has ``HTTP_HEADER_TIMEOUT`` seconds, from connecting or
  from the end of its previous answer on the connection, to send a request's complete
  headers; then it gets 408 and the connection is closed. Twisted's own timeout restarts
  with every byte, so a client sending one header byte at a time (slow loris) or nothing at
  all would hold the connection, a file descriptor, for its 12 hours.
"""

from __future__ import annotations

import json
from typing import Any, cast

from daphne.cli import CommandLineInterface
from daphne.http_protocol import WebRequest
from daphne.server import Server as DaphneServer
from django.conf import settings
from twisted.internet import reactor  # after daphne's imports, which install its reactor

from api import messages
from scorpion_server.observability import request_id_for

#: Seconds a refused body is still read (and discarded) so that the client sees the 413.
LINGER_SECONDS = 5.0


def too_large_response(incoming_id: str | None = None) -> bytes:
    """The raw HTTP answer to a body over the limit (in the API's error shape), named by the
    client's ``X-Request-ID`` if it is sane (``scorpion_server.observability``)."""
    request_id = request_id_for(incoming_id)
    body = json.dumps(messages.too_large_body(request_id)).encode()
    head = (
        "HTTP/1.1 413 Content Too Large\r\n"
        "Content-Type: application/json\r\n"
        f"X-Request-ID: {request_id}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class LimitedRequest(WebRequest):  # type: ignore[misc]
    """daphne's HTTP request, refusing a body over the limit while it arrives."""

    received = 0
    refused = False

    def gotLength(self, length: int | None) -> None:
        if length is not None and length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            # No "100 Continue" for a body that is refused anyway.
            self.requestHeaders.removeHeader(b"Expect")
            super().gotLength(0)
            self.refuse()
            return
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.refused:
            return
        self.received += len(data)
        if self.received > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            self.content.seek(0)
            self.content.truncate()
            self.refuse()
            return
        super().handleContentChunk(data)

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        if not self.refused:
            super().requestReceived(command, path, version)

    def refuse(self) -> None:
        """Answer 413 now, discard whatever else the client sends, drop it after a while."""
        self.refused = True
        channel = self.channel
        transport = channel.transport
        incoming = self.requestHeaders.getRawHeaders(b"x-request-id")
        transport.write(too_large_response(incoming[0].decode("latin-1") if incoming else None))
        channel.dataReceived = _discard
        half_close = getattr(transport, "loseWriteConnection", None)
        if half_close is None:  # a transport that cannot half-close: close it
            transport.loseConnection()
        else:
            half_close()
        cast(Any, reactor).callLater(LINGER_SECONDS, _abort, transport)


#: The raw answer to headers that came too slowly.
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def header_deadline(channel: Any, seconds: float) -> None:
    """Give ``channel`` (an HTTP connection) ``seconds`` to send each request's headers:
    counted from the connection, then from each answer's end (a keep-alive connection).
    A client that sent part of a request gets 408; an idle one is closed without a word
    (what it might send meanwhile must not read the 408 as its answer)."""
    timer: Any = None
    heard = False

    def start() -> None:
        nonlocal timer, heard
        stop()
        heard = False
        timer = cast(Any, reactor).callLater(seconds, expire)

    def hear() -> None:
        nonlocal heard
        heard = True

    def stop() -> None:
        if timer is not None and timer.active():
            timer.cancel()

    def expire() -> None:
        transport = channel.transport
        # Headers complete: the request (or the WebSocket it became) is not ours to time.
        if transport is None or channel._handlingRequest:
            return
        if heard:
            transport.write(TIMED_OUT)
        transport.loseConnection()

    def wrap(name: str, before: Any = None, after: Any = None) -> None:
        original = getattr(channel, name)

        def wrapped(*args: Any) -> Any:
            if before is not None:
                before()
            result = original(*args)
            if after is not None:
                after()
            return result

        setattr(channel, name, wrapped)

    wrap("connectionMade", after=start)
    wrap("dataReceived", before=hear)
    wrap("allHeadersReceived", before=stop)

    def restart() -> None:
        if channel.transport is not None:  # still connected: the next request's turn
            start()

    wrap("requestDone", after=restart)
    wrap("connectionLost", before=stop)


def _discard(data: bytes) -> None:
    """What a refused request's connection does with the bytes that keep coming."""


def _abort(transport: Any) -> None:
    if getattr(transport, "connected", False):
        transport.abortConnection()


class Server(DaphneServer):  # type: ignore[misc]
    """daphne's server with :class:`LimitedRequest`, WebSocket limits closing with 1009,
    opaque origins left to the application, and a header deadline."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        ready = kwargs.pop("ready_callable", None)

        def configure() -> None:  # daphne made its factories; no connection came yet
            self.ws_factory.setProtocolOptions(failByDrop=False, allowNullOrigin=True)
            build = self.http_factory.buildProtocol
            deadline = settings.HTTP_HEADER_TIMEOUT

            def build_protocol(addr: Any) -> Any:
                protocol = build(addr)
                protocol.requestFactory = LimitedRequest
                if deadline:  # on the HTTP/1.1 channel behind Twisted's negotiating wrapper
                    header_deadline(getattr(protocol, "_channel", protocol), deadline)
                return protocol

            self.http_factory.buildProtocol = build_protocol
            if ready is not None:
                ready()

        super().__init__(*args, ready_callable=configure, **kwargs)


class CommandLine(CommandLineInterface):  # type: ignore[misc]
    server_class = Server


def arguments(host: str, port: str, *, quiet: bool = False) -> list[str]:
    """daphne's command line for this server, from the settings (``quiet``: no plain-text
    access log, for JSON logs)."""
    return [
        *(("--verbosity", "0") if quiet else ()),
        *("--bind", host, "--port", port),
        # A spectator may stay connected this long; the channel-layer group membership of
        # its feed is renewed meanwhile (games.live.feeds), so it is never dropped silently
        # before the socket closes and it can resume.
        *("--websocket_timeout", str(settings.WS_TIMEOUT)),
        *("--websocket-max-message-size", str(settings.WS_MAX_MESSAGE_BYTES)),
        *("--websocket-max-frame-size", str(settings.WS_MAX_MESSAGE_BYTES)),
        "scorpion_server.asgi:application",
    ]


def run(host: str, port: str, *, quiet: bool = False) -> None:
    """Serve HTTP and WebSocket on ``host:port`` until stopped."""
    CommandLine().run(arguments(host, port, quiet=quiet))
