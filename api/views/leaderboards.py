"""Leaderboards: which boards exist, and a page of one board with the caller's own row."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api import messages, serializers
from api.schema import CURSOR_PARAMETER, errors, limit_parameter
from api.views import callers
from games.reads import selectors, shapes

_TAGS = ["leaderboards"]


class BoardsApi(APIView):
    @extend_schema(
        operation_id="leaderboards_list",
        summary="Which leaderboards exist: each scope's metrics (arena_points: the rulesets'"
        " only), each in every period",
        tags=_TAGS,
        responses={200: serializers.BoardsOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.boards())


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboard_get",
        summary="A page of a leaderboard, best first, with the caller's own row and rank",
        tags=_TAGS,
        parameters=[
            OpenApiParameter(
                "scope",
                str,
                OpenApiParameter.PATH,
                enum=list(shapes.SCOPES.values),
                description="daily, or a ruleset's name",
            ),
            OpenApiParameter(
                "metric", str, OpenApiParameter.PATH, enum=list(shapes.METRICS.values)
            ),
            OpenApiParameter(
                "period", str, enum=list(shapes.PERIODS.values), description="default all"
            ),
            OpenApiParameter(
                "at",
                {"type": "string", "pattern": r"^\d{4}-(\d{2}|W\d{2}|\d{2}-\d{2})$"},
                description="which month (YYYY-MM) or ISO week (YYYY-Www), or a day "
                "(YYYY-MM-DD) within it; default: the current one (UTC). A month or week "
                "that does not exist, or a kind other than the period's, is 400",
            ),
            limit_parameter("rows"),
            CURSOR_PARAMETER,
        ],
        responses={200: serializers.LeaderboardOut, **errors(400, 404)},
    )
    def get(self, request: Request, scope: str, metric: str) -> Response:
        data = serializers.parse_query(serializers.LeaderboardQuery, request.query_params)
        try:
            board = selectors.board_get(
                scope=scope, metric=metric, period=data["period"], at=data.get("at")
            )
        except ValueError:
            raise ValidationError({"at": [messages.BAD_PERIOD_AT]}) from None
        after = None
        if "cursor" in data:
            try:
                after = selectors.board_position(data["cursor"])
            except ValueError:
                raise ValidationError({"cursor": [messages.BAD_CURSOR]}) from None
        body, cursor = selectors.leaderboard(
            board, viewer=callers.viewer(request), after=after, limit=data["limit"]
        )
        if cursor is not None:
            url = request.build_absolute_uri()
            for name, value in (("period", board.period), ("at", board.key), ("cursor", cursor)):
                url = replace_query_param(url, name, value)
            body["next"] = url
        return Response(body)
