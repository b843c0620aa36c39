"""Django's ASGI handler, serving each HTTP request's middleware and view on one pooled thread.

Django's own ASGI handler runs a synchronous view on a thread, but hops between the event
loop and a thread made for the request at every synchronous middleware, twice per
middleware (``process_request``, then ``process_response``). Every middleware and view of
this project is synchronous, so :class:`PooledThreadHandler` runs the whole synchronous
path of a request (``BaseHandler.get_response``, as a WSGI server would) on a thread of a
pool of ``HTTP_THREADS``, in one hop, and hands the thread's database connection back to
the pool when the response is ready. Reading the request body and writing the response
stay on the event loop. docs/architecture.md#http-requests tells why, with measurements.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.db import connections
from django.http import HttpRequest, HttpResponseBase


class PooledThreadHandler(ASGIHandler):
    """An ASGI handler whose requests each run on one thread of a pool, start to end."""

    def __init__(self) -> None:
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(
            max_workers=settings.HTTP_THREADS, thread_name_prefix="http"
        )

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
