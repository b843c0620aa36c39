"""Daily challenges: the day's race, joining it, and its standings."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers
from api.schema import SIGNED_IN, errors
from api.views import callers
from games.reads import archive, presenters, ratings, selectors, visibility
from games.writes import services

_DATE = OpenApiParameter(
    "date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="a UTC day, YYYY-MM-DD"
)
_TAGS = ["challenges"]


class ChallengeMonthApi(APIView):
    @extend_schema(
        operation_id="challenge_month",
        summary="The archive: a month's days (those that had a challenge), each with the "
        "caller's own result",
        tags=_TAGS,
        parameters=[
            OpenApiParameter(
                "month",
                {"type": "string", "pattern": serializers.MONTH_PATTERN},
                description="YYYY-MM; default the current month (UTC)",
            )
        ],
        responses={200: serializers.ChallengeMonthOut, **errors(400)},
    )
    def get(self, request: Request) -> Response:
        query = serializers.parse_query(serializers.MonthQuery, request.query_params)
        first = archive.month_of(query.get("month"))
        return Response(archive.challenge_month(first=first, viewer=callers.viewer(request)))


class ChallengeSolutionApi(APIView):
    @extend_schema(
        operation_id="challenge_solution",
        summary="A closed day's position after the first `step` commands of its solution "
        "(404 while the day is open)",
        tags=_TAGS,
        parameters=[_DATE, OpenApiParameter("step", int, OpenApiParameter.PATH)],
        responses={200: serializers.SolutionStepOut, **errors(404)},
    )
    def get(self, request: Request, date: str, step: int) -> Response:
        return Response(archive.solution_step(date=selectors.challenge_day(date), step=step))


class ChallengeTodayApi(APIView):
    @extend_schema(
        operation_id="challenge_today",
        summary="Today's challenge (UTC); its seed stays null until the day ends",
        tags=_TAGS,
        responses={200: serializers.ChallengeOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        return Response(presenters.challenge_body(selectors.challenge_get("today")))


class ChallengeGetApi(APIView):
    @extend_schema(
        operation_id="challenge_get",
        summary="The challenge of a day (404 for a day that has not begun)",
        tags=_TAGS,
        parameters=[_DATE],
        responses={200: serializers.ChallengeOut, **errors(404)},
    )
    def get(self, request: Request, date: str) -> Response:
        return Response(presenters.challenge_body(selectors.challenge_get(date)))


class ChallengeJoinApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="challenge_join",
        summary="Your game of the day's deal: 201 when made now, 200 when joined before",
        tags=_TAGS,
        parameters=[_DATE],
        request=None,
        responses={
            201: serializers.GameOut,
            200: serializers.GameOut,
            **errors(401, 403, 404),
        },
        auth=SIGNED_IN,
    )
    def post(self, request: Request, date: str) -> Response:
        day = selectors.challenge_day(date)
        written, made = services.challenge_join(date=day, player=callers.player(request))
        game = written.summary
        body = presenters.game_body(game, visibility.sight(callers.viewer(request), game))
        return Response(body, status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)


class ChallengeStakesApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="challenge_stakes",
        summary="What the day's rated game would change of your rating: your rating now and "
        "its change on a win and on a loss",
        tags=_TAGS,
        parameters=[_DATE],
        responses={200: serializers.StakesOut, **errors(401, 404)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request, date: str) -> Response:
        challenge = selectors.challenge_get(date)
        return Response(ratings.daily_stakes(player=callers.player(request), challenge=challenge))


class ChallengeStandingsApi(APIView):
    @extend_schema(
        operation_id="challenge_standings",
        summary="The race's standings, best first (public, live or not)",
        tags=_TAGS,
        parameters=[_DATE],
        responses={200: serializers.StandingsOut, **errors(404)},
    )
    def get(self, request: Request, date: str) -> Response:
        challenge = selectors.challenge_get(date)
        return Response(
            {"results": selectors.challenge_standings(challenge.date, callers.viewer(request))}
        )
