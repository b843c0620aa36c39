"""Django's ASGI handler, serving each HTTP request's middleware and view on one pooled thread.

Django's own ASGI handler runs a synchronous view on a thread, but hops between the event
loop and a thread made for the request at every synchronous middleware, twice per
middleware (``process_request``, then ``process_response``). Every middleware and view of
this project is synchronous, so :class:`PooledThreadHandler` runs the whole synchronous
path of a request (``BaseHandler.get_response``, as a WSGI server would) on a thread of a
pool of ``HTTP_THREADS``, in one hop, and hands the thread's database connection back to
the pool when the response is ready. Reading the request body and writing the response
stay on the event loop. docs/architecture.md#http-requests tells why, with measurements.

The body is read here with its limit (``DATA_UPLOAD_MAX_MEMORY_SIZE``): past it, the
request is answered 413 ``too_large`` at once, without buffering the rest (the transport,
``scorpion_server.transport``, refuses it even before it reaches the application). A body
sent with chunked transfer encoding has no ``Content-Length``; the request gets the length
read, so that the parsers see the body (DRF takes a missing length for an empty body).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase

from api import messages
from scorpion_server.observability import request_id_for


class BodyTooLarge(Exception):
    """The request body passed ``DATA_UPLOAD_MAX_MEMORY_SIZE`` while it was read."""


class PooledThreadHandler(ASGIHandler):
    """An ASGI handler whose requests each run on one thread of a pool, start to end."""

    def __init__(self) -> None:
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(
            max_workers=settings.HTTP_THREADS, thread_name_prefix="http"
        )

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await super().handle(scope, receive, send)
        except BodyTooLarge:  # raised by read_body, before anything was sent
            incoming = dict(scope.get("headers") or ()).get(b"x-request-id")
            request_id = request_id_for(incoming.decode("latin-1") if incoming else None)
            response = HttpResponse(
                json.dumps(messages.too_large_body(request_id)),
                status=413,
                content_type="application/json",
            )
            response["X-Request-ID"] = request_id
            response["Content-Length"] = str(len(response.content))
            response["Connection"] = "close"
            await self.send_response(response, send)

    async def read_body(self, receive: Any) -> IO[bytes]:
        """The body, in memory up to ``FILE_UPLOAD_MAX_MEMORY_SIZE``; :class:`BodyTooLarge`
        as soon as it passes ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = tempfile.SpooledTemporaryFile(  # noqa: SIM115  # the request closes it
            max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b"
        )
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body.close()
                raise RequestAborted()
            chunk = message.get("body", b"")
            size += len(chunk)
            if limit is not None and size > limit:
                body.close()
                raise BodyTooLarge()
            if chunk:
                body.write(chunk)
            if not message.get("more_body", False):
                break
        body.seek(0)
        return body

    def create_request(self, scope: Mapping[str, Any], body_file: IO[bytes]) -> Any:
        request, error = super().create_request(scope, body_file)
        if request is not None and "CONTENT_LENGTH" not in request.META:
            body_file.seek(0, 2)
            size = body_file.tell()
            body_file.seek(0)
            if size:  # chunked transfer encoding: the length is the body read
                request.META["CONTENT_LENGTH"] = str(size)
        return request, error

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        respond = sync_to_async(self._respond, thread_sensitive=False, executor=self.executor)
        response: HttpResponseBase = await respond(request)
        return response

    def _respond(self, request: HttpRequest) -> HttpResponseBase:
        try:
            return self.get_response(request)
        finally:
            connections.close_all()  # back to the pool (or closed, without one)


def http_application() -> PooledThreadHandler:
    """Set Django up and return the handler of its HTTP requests (``get_asgi_application``'s
    counterpart)."""
    django.setup(set_prefix=False)
    return PooledThreadHandler()
