"""Counting round trips to PostgreSQL on the wire, not in the code.

:class:`RoundTripCounter` is a TCP proxy in front of a PostgreSQL server. It forwards bytes
both ways untouched and parses the server's side of the protocol (every message after the
startup is a type byte and a length), counting ``ReadyForQuery`` (``Z``) messages: the
server sends exactly one at the end of each exchange the client waits for, whether a simple
query, an extended-protocol ``Sync`` or a ``BEGIN``/``COMMIT``. Point a client at
:meth:`url` (it turns off SSL and GSS encryption, which the proxy cannot read) and read
:attr:`count`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

#: SSLRequest and GSSENCRequest codes, sent before the startup message.
_ENCRYPTION_REQUESTS = {80877103, 80877104}


class RoundTripCounter:
    """A counting proxy to ``host:port``, served on an event loop of its own thread."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.count = 0
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.listen_port = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @classmethod
    @contextlib.contextmanager
    def in_front_of(cls, database_url: str) -> Iterator[RoundTripCounter]:
        """A running proxy in front of the server of ``database_url``."""
        parts = urlsplit(database_url)
        counter = cls(parts.hostname or "127.0.0.1", parts.port or 5432)
        counter._thread.start()
        counter._ready.wait(10)
        try:
            yield counter
        finally:
            asyncio.run_coroutine_threadsafe(counter._stop(), counter._loop).result(10)
            counter._thread.join(5)

    def url(self, database_url: str) -> str:
        """``database_url`` through this proxy, without SSL or GSS encryption."""
        parts = urlsplit(database_url)
        query = dict(parse_qsl(parts.query))
        query.update(sslmode="disable", gssencmode="disable")
        user = f"{parts.username}@" if parts.username else ""
        if parts.password:
            user = f"{parts.username}:{parts.password}@"
        netloc = f"{user}127.0.0.1:{self.listen_port}"
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query)))

    async def _stop(self) -> None:
        """Cancel every connection's task, then stop the loop."""
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
        asyncio.get_running_loop().call_soon(asyncio.get_running_loop().stop)

    def reset(self) -> None:
        with self._lock:
            self.count = 0

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.listen_port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()
            return
        # An SSLRequest or GSSENCRequest is answered by one unframed byte: pass the exchange
        # on as it is (a client that then starts TLS cannot be counted; url() turns it off).
        while True:
            first = await reader.readexactly(8)
            upstream_writer.write(first)
            if int.from_bytes(first[4:], "big") not in _ENCRYPTION_REQUESTS:
                break
            writer.write(await upstream_reader.readexactly(1))
        await asyncio.gather(
            self._pipe(reader, upstream_writer),
            self._count_messages(upstream_reader, writer),
            return_exceptions=True,
        )
        writer.close()
        upstream_writer.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    async def _count_messages(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while True:
            header = await reader.readexactly(5)
            length = int.from_bytes(header[1:], "big")
            body = await reader.readexactly(length - 4)
            if header[:1] == b"Z":
                with self._lock:
                    self.count += 1
            writer.write(header + body)
            await writer.drain()
