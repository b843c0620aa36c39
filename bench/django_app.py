"""The real application served by Django's own ASGI handler instead of the project's.

Benchmark-only: ``bench/store.py`` runs it beside ``scorpion_server.asgi`` to measure what
``scorpion_server.handler`` (each request on one pooled thread) gains over Django's
handler (a thread per request, with a hop at every synchronous middleware).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
django_app = get_asgi_application()

from games.live import outbox  # noqa: E402


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    outbox.bind(asyncio.get_running_loop())  # as scorpion_server.asgi does
    await django_app(scope, receive, send)
