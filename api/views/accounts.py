"""Accounts: registration, API tokens and player records."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api import messages, serializers
from api.schema import CURSOR_PARAMETER, errors, limit_parameter
from api.throttles import AnonThrottle, AuthThrottle
from api.views import callers
from games import engine
from games.errors import PlayerNotFound
from games.reads import ratings, records, shapes
from games.writes import accounts


class _CredentialsApi(APIView):
    # No authentication: a stale token must not keep a client from getting a new one.
    authentication_classes = ()
    throttle_classes = (AnonThrottle, AuthThrottle)


class AccountRegisterApi(_CredentialsApi):
    @extend_schema(
        operation_id="account_register",
        summary="Create an account and its API token",
        tags=["accounts"],
        request=serializers.RegisterIn,
        responses={201: serializers.RegisteredOut, **errors(400, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = serializers.RegisterIn(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = accounts.player_register(**data.validated_data)
        return Response(
            {"username": user.get_username(), "token": token}, status=status.HTTP_201_CREATED
        )


class TokenCreateApi(_CredentialsApi):
    @extend_schema(
        operation_id="token_create",
        summary="The API token of an account (send it as Authorization: Token <key>)",
        tags=["accounts"],
        request=serializers.CredentialsIn,
        responses={200: serializers.TokenOut, **errors(400, 401, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = serializers.CredentialsIn(data=request.data)
        data.is_valid(raise_exception=True)
        return Response({"token": accounts.player_token(**data.validated_data)})


class PlayerGetApi(APIView):
    @extend_schema(
        operation_id="player_get",
        summary="A player's record: totals, daily streaks, and each ruleset's record",
        tags=["accounts"],
        responses={200: serializers.PlayerOut, **errors(404)},
    )
    def get(self, request: Request, username: str) -> Response:
        if "\x00" in username:  # no account has one, and PostgreSQL text cannot hold it
            raise PlayerNotFound()
        return Response(records.player_record(username=username, viewer=callers.viewer(request)))


class PlayerRatingsApi(APIView):
    @extend_schema(
        operation_id="player_ratings",
        summary="A player's rating in each ruleset they were dealt a rated game of",
        tags=["ratings"],
        responses={200: serializers.RatingsOut, **errors(404)},
    )
    def get(self, request: Request, username: str) -> Response:
        if "\x00" in username:
            raise PlayerNotFound()
        return Response(ratings.player_ratings(username=username))


class PlayerRatingApi(APIView):
    @extend_schema(
        operation_id="player_rating",
        summary="A player's rating in one ruleset, with its history (the rating after each "
        "rated game, void and restore), newest first",
        tags=["ratings"],
        parameters=[
            OpenApiParameter("rules", str, OpenApiParameter.PATH, enum=list(shapes.RULES.values)),
            limit_parameter("history rows"),
            CURSOR_PARAMETER,
        ],
        responses={200: serializers.RatingHistoryOut, **errors(400, 404)},
    )
    def get(self, request: Request, username: str, rules: str) -> Response:
        if "\x00" in username or rules not in engine.RULESETS:
            raise PlayerNotFound()
        data = serializers.parse_query(serializers.RatingHistoryQuery, request.query_params)
        before = None
        if "cursor" in data:
            try:
                before = ratings.history_after(data["cursor"])
            except ValueError:
                raise ValidationError({"cursor": [messages.BAD_CURSOR]}) from None
        body, cursor = ratings.player_rating(
            username=username, rules=rules, before=before, limit=data["limit"]
        )
        if cursor is not None:
            body["next"] = replace_query_param(request.build_absolute_uri(), "cursor", cursor)
        return Response(body)
