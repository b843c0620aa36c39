"""Accounts: registration, API keys, passwords, WebSocket tickets and player records."""

from __future__ import annotations

import contextlib

from django.conf import settings
from django.contrib.auth import logout
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api import messages, serializers
from api.authentication import client_of
from api.schema import CURSOR_PARAMETER, SIGNED_IN, errors, limit_parameter
from api.throttles import AnonThrottle, AuthThrottle, UserThrottle
from api.views import callers
from games import engine
from games.errors import KeyNotFound, PlayerNotFound
from games.reads import accounts as account_reads
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
        user, token = accounts.player_register(**data.validated_data, client=client_of(request))
        return Response(
            {"username": user.get_username(), "token": token}, status=status.HTTP_201_CREATED
        )


class TokenCreateApi(_CredentialsApi):
    @extend_schema(
        operation_id="token_create",
        summary="A new API key of an account (send it as Authorization: Token <key>)",
        tags=["accounts"],
        request=serializers.CredentialsIn,
        responses={200: serializers.TokenOut, **errors(400, 401, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = serializers.CredentialsIn(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(
            {"token": accounts.player_token(**data.validated_data, client=client_of(request))}
        )


class _SignedInApi(APIView):
    permission_classes = (IsAuthenticated,)


def _key_id(request: Request) -> int | None:
    """The id of the key the request was made with; ``None`` with the session cookie."""
    return getattr(request.auth, "pk", None)


class TokenRevokeApi(_SignedInApi):
    @extend_schema(
        operation_id="token_revoke",
        summary="Sign out: revoke the key of this request (with the session cookie: end it)",
        tags=["accounts"],
        request=None,
        responses={204: None, **errors(401, 403)},
        auth=SIGNED_IN,
    )
    def delete(self, request: Request) -> Response:
        key_id = _key_id(request)
        if key_id is None:
            logout(request._request)
        else:
            # A concurrent sign-out with the same key may have revoked it first: done all the same.
            with contextlib.suppress(KeyNotFound):
                accounts.key_revoke(user=callers.player(request), key_id=key_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(_SignedInApi):
    @extend_schema(
        operation_id="account_me",
        summary="Who the credentials belong to: the account, this key, the public record",
        tags=["accounts"],
        responses={200: serializers.MeOut, **errors(401)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request) -> Response:
        return Response(
            account_reads.account_me(user=callers.player(request), key_id=_key_id(request))
        )


class KeyListApi(_SignedInApi):
    @extend_schema(
        operation_id="key_list",
        summary="The account's API keys: when and where each was last used",
        tags=["accounts"],
        responses={200: serializers.KeysOut, **errors(401)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request) -> Response:
        return Response(
            account_reads.account_keys(user=callers.player(request), current=_key_id(request))
        )


class KeyRevokeApi(_SignedInApi):
    @extend_schema(
        operation_id="key_revoke",
        summary="Revoke one of the account's API keys",
        tags=["accounts"],
        parameters=[OpenApiParameter("key_id", int, OpenApiParameter.PATH)],
        request=None,
        responses={204: None, **errors(401, 403, 404)},
        auth=SIGNED_IN,
    )
    def delete(self, request: Request, key_id: int) -> Response:
        accounts.key_revoke(user=callers.player(request), key_id=key_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordChangeApi(_SignedInApi):
    # Guessing the current password through here is counted like signing in.
    throttle_classes = (UserThrottle, AuthThrottle)

    @extend_schema(
        operation_id="password_change",
        summary="Change the password: every key of the account is revoked; a new one answers",
        tags=["accounts"],
        request=serializers.PasswordChangeIn,
        responses={200: serializers.TokenOut, **errors(400, 401, 403, 413, 415)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        user = callers.player(request)
        data = serializers.PasswordChangeIn(data=request.data, context={"user": user})
        data.is_valid(raise_exception=True)
        token = accounts.password_change(
            user=user, **data.validated_data, client=client_of(request)
        )
        return Response({"token": token})


class WsTicketApi(_SignedInApi):
    @extend_schema(
        operation_id="ws_ticket_create",
        summary="A single-use ticket that authenticates one WebSocket (?ticket=) for 30 s",
        tags=["accounts"],
        request=None,
        responses={201: serializers.WsTicketOut, **errors(401, 403)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        ticket = accounts.ws_ticket_issue(user=callers.player(request), key_id=_key_id(request))
        return Response(
            {"ticket": ticket, "expires_in": settings.WS_TICKET_SECONDS},
            status=status.HTTP_201_CREATED,
        )


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
