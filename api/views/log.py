"""The public log (docs/api.md#the-public-log) and its monthly exports
(docs/api.md#monthly-exports): every game open to everyone, in commit order.

``GET /log`` pages it by cursor; ``GET /log/stream`` follows it live as NDJSON, one line a
game, polling the log on the event loop's side and reading it on a thread; the exports are
files, streamed from disk.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as fields
from rest_framework.exceptions import NotFound, Throttled, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import messages, serializers
from api.parsers import JSONRenderer
from api.schema import errors
from games.reads import exports, public_log
from games.reads.shapes import ExportBody, ExportListBody

_TAGS = ["log"]
#: The media type of the stream: one JSON object a line.
NDJSON = "application/x-ndjson"
#: Seconds without a game after which the stream sends an ``idle`` line.
IDLE_SECONDS = 15.0

_AFTER = OpenApiParameter(
    "after",
    {"type": "string", "minLength": 1, "maxLength": 64},
    description="a cursor from this log (an entry's cursor, or a page's next); any other: "
    "400. Without it: from the start",
)
_FORMAT = OpenApiParameter(
    "format",
    str,
    enum=list(public_log.FORMATS),
    description="scorpion (the default): each game in the notation; json: as its events",
)


class LogQuery(fields.Serializer):  # type: ignore[type-arg]
    after = fields.CharField(required=False, max_length=64, trim_whitespace=False)
    limit = fields.IntegerField(min_value=1, max_value=public_log.PAGE_MAX, default=100)
    format = fields.ChoiceField(choices=list(public_log.FORMATS), default="scorpion")


class LogStreamQuery(fields.Serializer):  # type: ignore[type-arg]
    after = fields.CharField(required=False, max_length=64, trim_whitespace=False)
    format = fields.ChoiceField(choices=list(public_log.FORMATS), default="scorpion")


def _query(shape: type[fields.Serializer], request: Request) -> dict[str, Any]:  # type: ignore[type-arg]
    """The query, with ``after`` a cursor of this log (400 ``invalid`` otherwise)."""
    query = serializers.parse_query(shape, request.query_params)
    try:
        query["after"] = public_log.cursor_of(query.get("after"))
    except public_log.BadCursor:
        raise _bad_cursor() from None
    return query


def _bad_cursor() -> ValidationError:
    return ValidationError({"after": [messages.BAD_CURSOR]})


def _read(after: public_log.Cursor | None, limit: int, format: str) -> tuple[list[str], Any]:
    try:
        return public_log.log_page(after=after, limit=limit, format=format)
    except public_log.BadCursor:
        raise _bad_cursor() from None


class _JsonOnly(APIView):
    """A view whose ``format`` query parameter is its own, not DRF's choice of renderer."""

    renderer_classes = (JSONRenderer,)

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        return (JSONRenderer(), JSONRenderer.media_type)


class LogApi(_JsonOnly):
    @extend_schema(
        operation_id="log_page",
        summary="The public log: games open to everyone, in commit order, after a cursor "
        "(each in the notation or as its events)",
        tags=_TAGS,
        parameters=[
            _AFTER,
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": public_log.PAGE_MAX, "default": 100},
                description="games a page",
            ),
            _FORMAT,
        ],
        responses={200: serializers.LogPageOut, **errors(400)},
    )
    def get(self, request: Request) -> HttpResponse:
        query = _query(LogQuery, request)
        results, after = _read(query["after"], query["limit"], query["format"])
        # The entries are JSON text already (LogPageBody): stored text passes through.
        body = f'{{"results":[{",".join(results)}],"next":{json.dumps(_text(after))}}}'
        return HttpResponse(body.encode(), content_type=JSONRenderer.media_type)


_streams = 0
_streams_lock = threading.Lock()


class LogStreamApi(_JsonOnly):
    @extend_schema(
        operation_id="log_stream",
        summary="The public log followed live: NDJSON, a line per game as it enters the log "
        "(type game), an idle line now and then, and an end line with the cursor to resume",
        tags=_TAGS,
        parameters=[_AFTER, _FORMAT],
        responses={
            (200, NDJSON): OpenApiResponse(
                OpenApiTypes.STR,
                description='one JSON object a line: {"type": "game", …a page\'s entry}, '
                '{"type": "idle", "cursor"} after 15 s without a game, {"type": "end", '
                '"cursor"} when the stream ends (LOG_STREAM_SECONDS)',
            ),
            **{(code, JSONRenderer.media_type): r for code, r in errors(400).items()},
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        global _streams
        query = _query(LogStreamQuery, request)
        _read(query["after"], 1, query["format"])  # a cursor naming no entry: 400 now
        with _streams_lock:
            if _streams >= settings.LOG_STREAMS_MAX:
                raise Throttled(wait=settings.LOG_POLL_SECONDS)
            _streams += 1
        response = _Counted(_follow(query["after"], query["format"]), content_type=NDJSON)
        response["Cache-Control"] = "no-store"
        response["X-Accel-Buffering"] = "no"  # nginx: pass each line on at once
        return response


def _page(after: public_log.Cursor | None, format: str) -> tuple[list[str], Any]:
    try:
        return public_log.log_page(after=after, limit=public_log.PAGE_MAX, format=format)
    finally:
        connections.close_all()  # back to the pool: the next poll may run on another thread


class _Counted(StreamingHttpResponse):
    """A stream that stops counting when Django closes it, which it does for every response
    it started, however it ended (a client gone included)."""

    _released = False

    def close(self) -> None:
        global _streams
        try:
            super().close()
        finally:
            with _streams_lock:
                if not self._released:
                    self._released = True
                    _streams -= 1


async def _follow(after: public_log.Cursor | None, format: str) -> AsyncIterator[bytes]:
    """The log's games after ``after``, as they come, for ``LOG_STREAM_SECONDS``."""
    read = sync_to_async(_page, thread_sensitive=False)
    ends = time.monotonic() + settings.LOG_STREAM_SECONDS
    quiet_since = time.monotonic()
    while time.monotonic() < ends:
        results, after = await read(after, format)
        if results:
            yield "".join(f'{{"type":"game",{entry[1:]}\n' for entry in results).encode()
            quiet_since = time.monotonic()
            if len(results) == public_log.PAGE_MAX:
                continue
        elif time.monotonic() - quiet_since >= IDLE_SECONDS:
            yield _line({"type": "idle", "cursor": _text(after)}).encode()
            quiet_since = time.monotonic()
        await asyncio.sleep(settings.LOG_POLL_SECONDS)
    yield _line({"type": "end", "cursor": _text(after)}).encode()


def _line(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n"


def _text(cursor: public_log.Cursor | None) -> str | None:
    return None if cursor is None else cursor.encode()


# --- the monthly exports ---------------------------------------------------------------------


def _export_body(request: Request, export: exports.Export) -> ExportBody:
    url = request.build_absolute_uri(f"/api/v1/exports/{export.name}")
    return {
        "month": export.month,
        "games": export.games,
        "bytes": export.bytes,
        "sha256": export.sha256,
        "url": url,
        "checksum_url": f"{url}{exports.CHECKSUM_SUFFIX}",
    }


class ExportListApi(_JsonOnly):
    @extend_schema(
        operation_id="export_list",
        summary="The monthly exports of the public log: each finished month's file, its "
        "games, size and sha256",
        tags=_TAGS,
        responses={200: serializers.ExportListOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        body: ExportListBody = {
            "results": [_export_body(request, export) for export in exports.exports()]
        }
        return Response(body)


def export_file_responses() -> dict[Any, OpenApiResponse]:
    """The answers of a path that serves an export's file: the file, its checksum, 404."""
    return {
        (200, "application/gzip"): OpenApiResponse(
            OpenApiTypes.BINARY, description="the export, as an attachment"
        ),
        (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="its sha256sum line"),
        **{(code, JSONRenderer.media_type): r for code, r in errors(404).items()},
    }


class ExportGetApi(_JsonOnly):
    @extend_schema(
        operation_id="export_get",
        summary="A month's export (YYYY-MM.scorpion.gz: the games in the notation, gzip) or "
        "its checksum (YYYY-MM.scorpion.gz.sha256), streamed",
        tags=_TAGS,
        parameters=[
            OpenApiParameter(
                "name",
                {"type": "string", "pattern": r"^\d{4}-\d{2}\.scorpion\.gz(\.sha256)?$"},
                OpenApiParameter.PATH,
            )
        ],
        responses=export_file_responses(),
    )
    def get(self, request: Request, name: str) -> FileResponse:
        stem = name.removesuffix(exports.CHECKSUM_SUFFIX)
        export = exports.export_of(stem.removesuffix(exports.SUFFIX))
        if export is None or stem != export.name:
            raise NotFound()
        return export_file(exports.directory(), export, checksum=name != stem)


def export_file(directory: Path, export: Any, *, checksum: bool) -> FileResponse:
    """A monthly export's file (``export.name`` in ``directory``, gzip, as an attachment
    whose ``ETag`` is its sha256), or its ``sha256sum`` line (``export.checksum_name``)."""
    if checksum:
        path = directory / export.checksum_name
        return FileResponse(path.open("rb"), content_type="text/plain; charset=utf-8")
    response = FileResponse(
        (directory / export.name).open("rb"),
        as_attachment=True,
        filename=export.name,
        content_type="application/gzip",
    )
    response["ETag"] = f'"{export.sha256}"'
    return response
