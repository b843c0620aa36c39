"""Races between friends and scheduled arenas (docs/api.md#races, docs/api.md#arenas).

Each view parses its input, calls one service or selector, and renders what
``games.reads.visibility`` lets the caller see: a race's or arena's seeds only once it is
finished, another player's game only then.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers
from api.schema import CURSOR_PARAMETER, errors, limit_parameter
from api.views import callers
from api.views.games import GamePagination
from games.reads import presenters, selectors, visibility
from games.writes import contests as services

_RACE = OpenApiParameter(
    "race", OpenApiTypes.STR, OpenApiParameter.PATH, description="the race's id or short code"
)
_ARENA = OpenApiParameter(
    "arena",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="the arena's id, or a player's arena's short code",
)
_LIST = [
    OpenApiParameter("status", str, enum=["scheduled", "running", "finished"]),
    limit_parameter("contests"),
    CURSOR_PARAMETER,
]
_RACES = ["races"]
_ARENAS = ["arenas"]

#: A race created with neither ``countdown`` nor ``starts_at`` starts this long from now.
DEFAULT_COUNTDOWN_SECONDS = 30


class ContestPagination(GamePagination):
    """Latest start first; ``limit`` (1..200, default 50) a page; ``next`` is a full URL."""

    ordering = ("-starts_at", "id")


def _page(request: Request, view: APIView, kind: str, render: Any) -> Response:
    query = serializers.parse_query(serializers.ContestListQuery, request.query_params)
    rows = selectors.contest_list(
        kind=kind, viewer=callers.viewer(request), status=query.get("status")
    )
    paginator = ContestPagination()
    page = paginator.paginate_queryset(rows, request, view=view) or []
    return paginator.get_paginated_response([render(row) for row in page])


def _start(request: Request, data: dict[str, Any]) -> dict[str, Any]:
    """A new contest's creator, ruleset, start, listing and title, from its checked input
    (neither ``countdown`` nor ``starts_at``: the default countdown)."""
    countdown = data.get("countdown")
    if countdown is None and "starts_at" not in data:
        countdown = DEFAULT_COUNTDOWN_SECONDS
    return {
        "creator": callers.player(request),
        "rules": data["rules"],
        "countdown": None if countdown is None else dt.timedelta(seconds=countdown),
        "starts_at": data.get("starts_at"),
        "public": data["public"],
        "title": data.get("title", ""),
    }


def _games(request: Request, contest: Any) -> Response:
    viewer = callers.viewer(request)
    seen = selectors.contest_games(contest, viewer)
    return Response({"results": [presenters.game_body(game, sight) for game, sight in seen]})


# --- races -------------------------------------------------------------------------------------


class RaceCreateApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="race_create",
        summary="Make a race; you are its first racer. Others join by its link or code",
        tags=_RACES,
        request=serializers.RaceCreateIn,
        responses={201: serializers.RaceOut, **errors(400, 401, 403)},
    )
    def post(self, request: Request) -> Response:
        data = serializers.RaceCreateIn.validated(request.data)
        race = services.race_create(
            deals=data["deals"],
            time_limit=dt.timedelta(seconds=data["time_limit"]),
            **_start(request, data),
        )
        headers = {"Location": f"/api/v1/races/{race.id}"}
        return Response(selectors.race_view(race), status=status.HTTP_201_CREATED, headers=headers)


class RaceListApi(APIView):
    @extend_schema(
        operation_id="race_list",
        summary="Public races, and those you made or joined; latest start first",
        tags=_RACES,
        parameters=_LIST,
        responses={200: serializers.RacePageOut, **errors(400)},
    )
    def get(self, request: Request) -> Response:
        return _page(request, self, "race", selectors.race_view)


class RaceGetApi(APIView):
    @extend_schema(
        operation_id="race_get",
        summary="A race, by id or code (its seeds stay null until it is finished)",
        tags=_RACES,
        parameters=[_RACE],
        responses={200: serializers.RaceOut, **errors(404)},
    )
    def get(self, request: Request, race: str) -> Response:
        return Response(selectors.race_view(selectors.race_get(race)))


class RaceJoinApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="race_join",
        summary="Join a race before its start: 201 when joined now, 200 when joined before",
        tags=_RACES,
        parameters=[_RACE],
        request=None,
        responses={201: serializers.RaceOut, 200: serializers.RaceOut, **errors(401, 403, 404)},
    )
    def post(self, request: Request, race: str) -> Response:
        contest = selectors.race_get(race)
        _, made = services.race_join(race=contest, player=callers.player(request))
        body = selectors.race_view(selectors.contest_refresh(contest))
        return Response(body, status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)


class RaceGamesListApi(APIView):
    @extend_schema(
        operation_id="race_games",
        summary="The race's games you may read: yours while it runs, everyone's after",
        tags=_RACES,
        parameters=[_RACE],
        responses={200: serializers.GameListOut, **errors(404)},
    )
    def get(self, request: Request, race: str) -> Response:
        return _games(request, selectors.race_get(race))


class RaceGamesDealApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="race_deal",
        summary="Your games of every deal, from the start on: 201 when dealt now, 200 after",
        tags=_RACES,
        parameters=[_RACE],
        request=None,
        responses={
            201: serializers.GameListOut,
            200: serializers.GameListOut,
            **errors(401, 403, 404),
        },
    )
    def post(self, request: Request, race: str) -> Response:
        contest = selectors.race_get(race)
        written, made = services.race_games(race=contest, player=callers.player(request))
        viewer = callers.viewer(request)
        body = {
            "results": [
                presenters.game_body(w.summary, visibility.sight(viewer, w.summary))
                for w in written
            ]
        }
        return Response(body, status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)


class RaceStandingsApi(APIView):
    @extend_schema(
        operation_id="race_standings",
        summary="The race's standings, best first (public, live or not)",
        tags=_RACES,
        parameters=[_RACE],
        responses={200: serializers.RaceStandingsOut, **errors(404)},
    )
    def get(self, request: Request, race: str) -> Response:
        contest = selectors.race_get(race)
        return Response(
            {
                "status": selectors.race_view(contest)["status"],
                "results": selectors.race_standings(contest, callers.viewer(request)),
            }
        )


# --- arenas ------------------------------------------------------------------------------------


class ArenaCreateApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="arena_create",
        summary="Make an arena of your own; share its link or code (a private one is listed "
        "only for you and those who play in it)",
        tags=_ARENAS,
        request=serializers.ArenaCreateIn,
        responses={201: serializers.ArenaOut, **errors(400, 401, 403)},
    )
    def post(self, request: Request) -> Response:
        data = serializers.ArenaCreateIn.validated(request.data)
        arena = services.arena_create(
            duration=dt.timedelta(seconds=data["duration"]), **_start(request, data)
        )
        headers = {"Location": f"/api/v1/arenas/{arena.id}"}
        return Response(
            selectors.arena_view(arena), status=status.HTTP_201_CREATED, headers=headers
        )


class ArenaListApi(APIView):
    @extend_schema(
        operation_id="arena_list",
        summary="Arenas, latest start first (the configured rotation's are made by the "
        "scheduled job, for this period and the next)",
        tags=_ARENAS,
        parameters=_LIST,
        responses={200: serializers.ArenaPageOut, **errors(400)},
    )
    def get(self, request: Request) -> Response:
        return _page(request, self, "arena", selectors.arena_view)


class ArenaGetApi(APIView):
    @extend_schema(
        operation_id="arena_get",
        summary="An arena (its seeds stay null until it is finished)",
        tags=_ARENAS,
        parameters=[_ARENA],
        responses={200: serializers.ArenaOut, **errors(404)},
    )
    def get(self, request: Request, arena: str) -> Response:
        return Response(selectors.arena_view(selectors.arena_get(arena)))


class ArenaPlayApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="arena_play",
        summary="Your current deal: the game in play, else the next deal (201 when dealt now)",
        tags=_ARENAS,
        parameters=[_ARENA],
        request=None,
        responses={201: serializers.GameOut, 200: serializers.GameOut, **errors(401, 403, 404)},
    )
    def post(self, request: Request, arena: str) -> Response:
        contest = selectors.arena_get(arena)
        written, made = services.arena_play(arena=contest, player=callers.player(request))
        game = written.summary
        body = presenters.game_body(game, visibility.sight(callers.viewer(request), game))
        return Response(body, status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)


class ArenaGamesApi(APIView):
    @extend_schema(
        operation_id="arena_games",
        summary="The arena's games you may read: yours while it runs, everyone's after",
        tags=_ARENAS,
        parameters=[_ARENA],
        responses={200: serializers.GameListOut, **errors(404)},
    )
    def get(self, request: Request, arena: str) -> Response:
        return _games(request, selectors.arena_get(arena))


class ArenaStandingsApi(APIView):
    @extend_schema(
        operation_id="arena_standings",
        summary="The arena's leaderboard: most points first (public, live or not)",
        tags=_ARENAS,
        parameters=[_ARENA],
        responses={200: serializers.ArenaStandingsOut, **errors(404)},
    )
    def get(self, request: Request, arena: str) -> Response:
        contest = selectors.arena_get(arena)
        return Response(
            {
                "status": selectors.arena_view(contest)["status"],
                "results": selectors.arena_standings(contest, callers.viewer(request)),
            }
        )
