"""The server the API benchmark runs: the real application plus a baseline endpoint.

Benchmark-only (never in the product's URLs): ``POST /bench/insert`` is a minimal Django
REST framework view that inserts one row in one transaction on the same database, with
the project's own DRF settings (authentication, renderer), so the benchmark can put the
cost of a command next to the cheapest possible write.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from scorpion_server.handler import http_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
django_app = http_application()

from django.db import connection, transaction  # noqa: E402
from django.urls import path  # noqa: E402
from rest_framework.request import Request  # noqa: E402
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402

import scorpion_server.urls  # noqa: E402
from games.live import outbox  # noqa: E402

TABLE = "bench_baseline_row"


class BaselineInsertApi(APIView):
    """Insert one row in one transaction; answer 201 with its id."""

    def post(self, request: Request) -> Response:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {TABLE} (payload) VALUES (%s::jsonb) RETURNING id",  # noqa: S608
                [request.body.decode() or "{}"],
            )
            (row_id,) = cursor.fetchone()
        return Response({"id": row_id}, status=201)


def ensure_table() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {TABLE} "
            "(id bigserial PRIMARY KEY, payload jsonb NOT NULL, at timestamptz DEFAULT now())"
        )
    connection.close()


ensure_table()
scorpion_server.urls.urlpatterns.insert(0, path("bench/insert", BaselineInsertApi.as_view()))


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    outbox.bind(asyncio.get_running_loop())  # as scorpion_server.asgi does
    await django_app(scope, receive, send)
