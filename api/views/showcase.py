"""Live now and TV: the public games being played, for the lobby and the TV page.

Both answer with an ETag of what they show and 304 to an ``If-None-Match`` that names it,
so a page that asks again sends and receives almost nothing until something changes.
"""

from __future__ import annotations

from typing import Any

from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers
from api.schema import errors, limit_parameter
from api.views import callers
from games.reads import presenters, showcase
from games.reads.shapes import LiveGamesBody, TvBody

_NOT_MODIFIED = OpenApiResponse(description="nothing changed since the ETag sent")


def _conditional(request: Request, etag: str, body: Any) -> Response:
    """``body`` with its ETag, or 304 when the request already has it."""
    wanted = parse_etags(request.headers.get("If-None-Match", ""))
    if etag in wanted or f"W/{etag}" in wanted:
        response = Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    else:
        response = Response(body, headers={"ETag": etag})
    # Staff see more of a playing game than others under the same ETag.
    patch_vary_headers(response, ["Authorization", "Cookie"])
    return response


class GameLiveApi(APIView):
    @extend_schema(
        operation_id="game_live",
        summary="Public games being played now (moved in the last LIVE_WINDOW_SECONDS), the "
        "latest to move first; ETag, and 304 to If-None-Match",
        tags=["games"],
        parameters=[limit_parameter("games")],
        responses={200: serializers.LiveGamesOut, 304: _NOT_MODIFIED, **errors(400)},
    )
    def get(self, request: Request) -> Response:
        query = serializers.parse_query(serializers.LiveQuery, request.query_params)
        seen = showcase.live_games(viewer=callers.viewer(request), limit=query["limit"])
        body: LiveGamesBody = {"results": [presenters.game_body(*item) for item in seen]}
        return _conditional(request, showcase.etag(seen), body)


class TvApi(APIView):
    @extend_schema(
        operation_id="tv_get",
        summary="The live game most worth watching now (the longest), or null; ETag, and "
        "304 to If-None-Match",
        tags=["games"],
        responses={200: serializers.TvOut, 304: _NOT_MODIFIED, **errors()},
    )
    def get(self, request: Request) -> Response:
        seen = showcase.tv_pick(viewer=callers.viewer(request))
        body: TvBody = {"game": presenters.game_body(*seen) if seen is not None else None}
        return _conditional(request, showcase.etag([seen] if seen else []), body)
