"""Puzzles (docs/api.md#puzzles): a rated puzzle, the puzzle of the day, Streak, moves
judged by the solver, the dashboard of themes, the themes, and the monthly exports.

Every attempt is its player's alone, so every path but the themes, a player's dashboard
and the exports needs an account. The reason a move loses is data in the attempt
(``reason``); its words, in the request's language, are added here (``detail``).
"""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import messages, serializers
from api.parsers import JSONRenderer
from api.schema import SIGNED_IN, errors
from api.views import callers
from api.views.log import export_file, export_file_responses
from games import clock
from games.errors import PlayerNotFound, PuzzleDayNotReady
from games.reads import puzzle_exports
from games.reads import puzzles as reading
from games.reads.puzzle_shapes import (
    AttemptBody,
    PuzzleExportBody,
    PuzzleExportListBody,
    PuzzleMoveBody,
    StreakPlayBody,
    ThemesBody,
)
from games.writes import puzzles as writing

_TAGS = ["puzzles"]
_ATTEMPT = OpenApiParameter("attempt", OpenApiTypes.UUID, OpenApiParameter.PATH)
_MOVE = PolymorphicProxySerializer(
    component_name="PuzzleMove",
    serializers=list(serializers.PUZZLE_MOVE_SHAPES),
    resource_type_field_name=None,
)


def _worded(body: AttemptBody) -> AttemptBody:
    """``body`` with the reason's words in the request's language."""
    reason = body["reason"]
    if reason is not None:
        reason["detail"] = messages.puzzle_reason(dict(reason))
    return body


class PuzzleNextApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_next",
        summary="Your rated puzzle: the one you are playing, else one you have never seen, "
        "rated nearest your puzzle rating",
        tags=_TAGS,
        request=None,
        responses={200: serializers.AttemptOut, **errors(401, 403, 404)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        attempt = writing.puzzle_next(player=callers.player(request))
        return Response(_worded(reading.attempt_body(attempt)))


class PuzzleAttemptApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_attempt",
        summary="One of your attempts: the position as you see it while it is played, and "
        "all of it (the answer, the unseen cards, where it was found) once it has ended",
        tags=_TAGS,
        parameters=[_ATTEMPT],
        responses={200: serializers.AttemptOut, **errors(401, 404)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request, attempt: str) -> Response:
        found = reading.attempt_get(attempt, callers.player(request).pk)
        return Response(_worded(reading.attempt_body(found)))


class PuzzleMoveApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_move",
        summary="Play a move of your attempt: judged by the solver, any winning move is "
        "right; a losing one ends the attempt, with why it loses",
        tags=_TAGS,
        parameters=[_ATTEMPT],
        request=_MOVE,
        responses={200: serializers.PuzzleMoveOut, **errors(400, 401, 404, 409, 415, 422)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request, attempt: str) -> Response:
        player = callers.player(request)
        command, ply = serializers.parse_puzzle_move(request.data)
        found = reading.attempt_get(attempt, player.pk)
        moved = writing.puzzle_move(
            attempt_id=found.id,
            player=player,
            command=command,
            ply=ply,
            caller=callers.requester(request),
        )
        body: PuzzleMoveBody = {
            "verdict": moved.verdict,
            "event": moved.event,  # type: ignore[typeddict-item]
            "attempt": _worded(reading.attempt_body(moved.attempt, change=moved.change)),
        }
        return Response(body)


class PuzzleGiveUpApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_give_up",
        summary="Give up: the attempt ends failed (rated ones count as a loss) and shows the "
        "solution",
        tags=_TAGS,
        parameters=[_ATTEMPT],
        request=None,
        responses={200: serializers.AttemptOut, **errors(401, 404)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request, attempt: str) -> Response:
        player = callers.player(request)
        found = reading.attempt_get(attempt, player.pk)
        moved = writing.puzzle_give_up(attempt_id=found.id, player=player)
        return Response(_worded(reading.attempt_body(moved.attempt, change=moved.change)))


class PuzzleDayApi(APIView):
    @extend_schema(
        operation_id="puzzle_day",
        summary="The puzzle of the day (UTC), and your attempt at it once you started it",
        tags=_TAGS,
        responses={200: serializers.PuzzleDayOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        day = reading.day_get(clock.now().date())
        if day is None:
            raise PuzzleDayNotReady()
        account = callers.account(request)
        body = reading.day_body(day, None if account is None else account.pk)
        if body["attempt"] is not None:
            _worded(body["attempt"])
        return Response(body)


class PuzzleDayPlayApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_day_play",
        summary="Play the puzzle of the day: your attempt at it, made now if you have none (rated)",
        tags=_TAGS,
        request=None,
        responses={200: serializers.AttemptOut, **errors(401, 403)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        attempt = writing.puzzle_daily(player=callers.player(request), date=clock.now().date())
        return Response(_worded(reading.attempt_body(attempt)))


class StreakApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_streak",
        summary="Your streak running (if any) and your best",
        tags=_TAGS,
        responses={200: serializers.StreakRecordOut, **errors(401)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request) -> Response:
        return Response(reading.streak_record(callers.player(request).pk))


class StreakPlayApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="puzzle_streak_play",
        summary="Go on with Streak (unrated puzzles of rising rating, until the first "
        "mistake): its puzzle being played, else the next one, else a new streak",
        tags=_TAGS,
        request=None,
        responses={200: serializers.StreakPlayOut, **errors(401, 403, 404)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        played = writing.streak_play(player=callers.player(request))
        body: StreakPlayBody = {
            "streak": reading.streak_body(played.streak),
            "attempt": (
                None if played.attempt is None else _worded(reading.attempt_body(played.attempt))
            ),
        }
        return Response(body)


class PuzzleDashboardApi(APIView):
    @extend_schema(
        operation_id="puzzle_dashboard",
        summary="A player's puzzles: rating, best streak, and how they do on each theme, "
        "the most failed first",
        tags=_TAGS,
        responses={200: serializers.PuzzleDashboardOut, **errors(404)},
    )
    def get(self, request: Request, username: str) -> Response:
        if "\x00" in username:
            raise PlayerNotFound()
        return Response(reading.dashboard(username))


class ThemesApi(APIView):
    @extend_schema(
        operation_id="puzzle_themes",
        summary="Every puzzle theme, with its name and description in your language",
        tags=_TAGS,
        responses={200: serializers.ThemesOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        body: ThemesBody = {
            "results": [
                {"id": theme, "name": str(name), "description": str(text)}
                for theme, (name, text) in messages.PUZZLE_THEMES.items()
            ]
        }
        return Response(body)


def _export_body(request: Request, export: puzzle_exports.Export) -> PuzzleExportBody:
    url = request.build_absolute_uri(f"/api/v1/puzzles/exports/{export.name}")
    return {
        "month": export.month,
        "puzzles": export.puzzles,
        "bytes": export.bytes,
        "sha256": export.sha256,
        "url": url,
        "checksum_url": url + puzzle_exports.CHECKSUM_SUFFIX,
    }


class PuzzleExportListApi(APIView):
    renderer_classes = (JSONRenderer,)

    @extend_schema(
        operation_id="puzzle_export_list",
        summary="The monthly exports of the puzzles: each month's file (the puzzles found "
        "that month, with their ratings), its size and sha256",
        tags=_TAGS,
        responses={200: serializers.PuzzleExportListOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        body: PuzzleExportListBody = {
            "results": [_export_body(request, e) for e in puzzle_exports.exports()]
        }
        return Response(body)


class PuzzleExportGetApi(APIView):
    renderer_classes = (JSONRenderer,)

    @extend_schema(
        operation_id="puzzle_export_get",
        summary="A month's export of the puzzles (YYYY-MM.puzzles.csv.gz) or its checksum "
        "(YYYY-MM.puzzles.csv.gz.sha256)",
        tags=_TAGS,
        parameters=[
            OpenApiParameter(
                "name",
                {"type": "string", "pattern": r"^\d{4}-\d{2}\.puzzles\.csv\.gz(\.sha256)?$"},
                OpenApiParameter.PATH,
            )
        ],
        responses=export_file_responses(),
    )
    def get(self, request: Request, name: str) -> FileResponse:
        stem = name.removesuffix(puzzle_exports.CHECKSUM_SUFFIX)
        export = puzzle_exports.export_of(stem.removesuffix(puzzle_exports.SUFFIX))
        if export is None or stem != export.name:
            raise NotFound()
        return export_file(puzzle_exports.directory(), export, checksum=name != stem)

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        """A file whatever the client accepts; its errors are JSON."""
        return (JSONRenderer(), JSONRenderer.media_type)
