"""Accounts: registration, guests, API keys, passwords and their reset, email, closing an
account, one's own data, WebSocket tickets and player records."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.models import User
from django.db import connections
from django.http import StreamingHttpResponse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api import messages, serializers
from api.authentication import client_of
from api.parsers import JSONRenderer
from api.schema import CURSOR_PARAMETER, SIGNED_IN, errors, limit_parameter
from api.throttles import (
    AnonThrottle,
    AuthThrottle,
    DataThrottle,
    GuestThrottle,
    MailThrottle,
    UserThrottle,
)
from api.views import callers
from games import engine
from games.errors import KeyNotFound, PlayerNotFound
from games.reads import accounts as account_reads
from games.reads import mydata, ratings, records, shapes
from games.writes import accounts

#: The cookie that names a guest (docs/api.md#guests): signed, sent only to /api/v1/auth/.
GUEST_COOKIE = "scorpion_guest"
_GUEST_COOKIE_PATH = "/api/v1/auth/"
_GUEST_COOKIE_SECONDS = 365 * 86400


class _CredentialsApi(APIView):
    # No authentication: a stale token must not keep a client from getting a new one.
    authentication_classes = ()
    throttle_classes: tuple[type[BaseThrottle], ...] = (AnonThrottle, AuthThrottle)


class AccountRegisterApi(_CredentialsApi):
    @extend_schema(
        operation_id="account_register",
        summary="Create an account and its API token (a guest's cookie: the guest becomes "
        "the account, its games with it)",
        tags=["accounts"],
        request=serializers.RegisterIn,
        responses={201: serializers.RegisteredOut, **errors(400, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = serializers.RegisterIn(data=request.data)
        data.is_valid(raise_exception=True)
        guest = accounts.guest_of(request.COOKIES.get(GUEST_COOKIE))
        if guest is not None:
            user, token = accounts.guest_register(
                guest=guest, **data.validated_data, client=client_of(request)
            )
        else:
            user, token = accounts.player_register(**data.validated_data, client=client_of(request))
        response = Response(
            {"username": user.get_username(), "token": token}, status=status.HTTP_201_CREATED
        )
        if GUEST_COOKIE in request.COOKIES:
            response.delete_cookie(GUEST_COOKIE, path=_GUEST_COOKIE_PATH, samesite="Strict")
        return response


class GuestPlayApi(_CredentialsApi):
    throttle_classes = (AnonThrottle, GuestThrottle)

    @extend_schema(
        operation_id="guest_play",
        summary="Play with no account: a key of the guest the cookie names (200), or of a "
        "new guest, with the cookie that names it (201)",
        tags=["accounts"],
        request=None,
        responses={200: serializers.RegisteredOut, 201: serializers.RegisteredOut, **errors()},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        user, token, new = accounts.guest_play(
            cookie=request.COOKIES.get(GUEST_COOKIE), client=client_of(request)
        )
        response = Response(
            {"username": user.get_username(), "token": token},
            status=status.HTTP_201_CREATED if new else status.HTTP_200_OK,
        )
        response.set_cookie(
            GUEST_COOKIE,
            accounts.guest_cookie(user),
            max_age=_GUEST_COOKIE_SECONDS,
            path=_GUEST_COOKIE_PATH,
            secure=settings.SESSION_COOKIE_SECURE or request.is_secure(),
            httponly=True,
            samesite="Strict",
        )
        return response


class PasswordResetApi(_CredentialsApi):
    throttle_classes = (AnonThrottle, AuthThrottle, MailThrottle)

    @extend_schema(
        operation_id="password_reset",
        summary="Email a password reset link to the accounts of this address: 202 whether "
        "there is one or not",
        tags=["accounts"],
        request=serializers.EmailIn,
        responses={202: None, **errors(400, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = serializers.EmailIn(data=request.data)
        data.is_valid(raise_exception=True)
        accounts.password_reset_request(
            email=data.validated_data["email"],
            origin=request.build_absolute_uri("/"),
            language=translation.get_language(),
        )
        return Response(status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmApi(_CredentialsApi):
    @extend_schema(
        operation_id="password_reset_confirm",
        summary="Set a new password with a reset link's uid and token: every key of the "
        "account is revoked, and a new one answers",
        tags=["accounts"],
        request=serializers.PasswordResetConfirmIn,
        responses={200: serializers.RegisteredOut, **errors(400, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        link = serializers.PasswordResetConfirmIn(data=request.data, context={"user": None})
        link.is_valid(raise_exception=True)  # the shape; the password once the account is known
        user = accounts.password_reset_user(
            uid=link.validated_data["uid"], token=link.validated_data["token"]
        )
        data = serializers.PasswordResetConfirmIn(data=request.data, context={"user": user})
        data.is_valid(raise_exception=True)
        token = accounts.password_reset(
            user=user, new_password=data.validated_data["new_password"], client=client_of(request)
        )
        return Response({"username": user.get_username(), "token": token})


class EmailVerifyApi(_CredentialsApi):
    @extend_schema(
        operation_id="email_verify",
        summary="Confirm an email address with the token of its verification link",
        tags=["accounts"],
        request=serializers.EmailVerifyIn,
        responses={200: serializers.EmailOut, **errors(400, 413, 415)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = serializers.EmailVerifyIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = accounts.email_verify(token=data.validated_data["token"])
        return Response({"username": user.get_username(), "email": user.email})


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


class PreferencesApi(_SignedInApi):
    @extend_schema(
        operation_id="preferences_get",
        summary="How the player likes the client: card size, theme, sound, animations, auto-finish",
        tags=["accounts"],
        responses={200: serializers.PreferencesOut, **errors(401)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request) -> Response:
        return Response(account_reads.account_preferences(user=callers.player(request)))

    @extend_schema(
        operation_id="preferences_set",
        summary="Store every preference of the client at once",
        tags=["accounts"],
        request=serializers.PreferencesIn,
        responses={200: serializers.PreferencesOut, **errors(400, 401, 413, 415)},
        auth=SIGNED_IN,
    )
    def put(self, request: Request) -> Response:
        user = callers.player(request)
        accounts.preferences_set(
            user=user, preferences=serializers.PreferencesIn.validated(request.data)
        )
        return Response(account_reads.account_preferences(user=user))


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

    @extend_schema(
        operation_id="key_revoke_all",
        summary="Sign out everywhere: every key, WebSocket ticket and session of the account "
        "ends, this request's too",
        tags=["accounts"],
        request=None,
        responses={204: None, **errors(401, 403)},
        auth=SIGNED_IN,
    )
    def delete(self, request: Request) -> Response:
        accounts.keys_revoke_all(user=callers.player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailApi(_SignedInApi):
    throttle_classes = (AnonThrottle, UserThrottle, MailThrottle)

    @extend_schema(
        operation_id="email_set",
        summary="Email a link that confirms this address as the account's (set once the "
        "link is opened)",
        tags=["accounts"],
        request=serializers.EmailIn,
        responses={202: None, **errors(400, 401, 403, 413, 415)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        data = serializers.EmailIn(data=request.data)
        data.is_valid(raise_exception=True)
        accounts.email_request(
            user=callers.player(request),
            email=data.validated_data["email"],
            origin=request.build_absolute_uri("/"),
            language=translation.get_language(),
        )
        return Response(status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        operation_id="email_remove",
        summary="Forget the account's email address (and so its password resets)",
        tags=["accounts"],
        request=None,
        responses={204: None, **errors(401, 403)},
        auth=SIGNED_IN,
    )
    def delete(self, request: Request) -> Response:
        accounts.email_remove(user=callers.player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountCloseApi(_SignedInApi):
    # Guessing the password through here is counted like signing in.
    throttle_classes = (AnonThrottle, UserThrottle, AuthThrottle)

    @extend_schema(
        operation_id="account_close",
        summary="Close the account: its name goes from every page, board and future export; "
        "its games stay, under its pseudonym",
        tags=["accounts"],
        request=serializers.AccountCloseIn,
        responses={204: None, **errors(400, 401, 403, 413, 415)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        data = serializers.AccountCloseIn(data=request.data)
        data.is_valid(raise_exception=True)
        accounts.account_close(user=callers.player(request), **data.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DataApi(_SignedInApi):
    throttle_classes = (AnonThrottle, UserThrottle, DataThrottle)
    renderer_classes = (JSONRenderer,)

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # ``format`` is this view's own query parameter, not DRF's choice of renderer; the
        # body is the notation or NDJSON, errors JSON.
        return (JSONRenderer(), JSONRenderer.media_type)

    @extend_schema(
        operation_id="account_data",
        summary="Every game of the account and its events, oldest first: in the notation "
        "(the games whose cards it may see) or as NDJSON (every game, as its owner sees it)",
        tags=["accounts"],
        parameters=[
            OpenApiParameter(
                "format",
                str,
                enum=list(mydata.FORMATS),
                description="scorpion (the default): the games in the notation; ndjson: a "
                'line a game, {"game": Game, "events": [{"seq", "type", "data", "by", "at"}]}',
            )
        ],
        responses={
            (200, mydata.MEDIA_TYPES["scorpion"]): OpenApiResponse(
                OpenApiTypes.STR, description="the games in the notation (docs/notation.md)"
            ),
            (200, mydata.MEDIA_TYPES["ndjson"]): OpenApiResponse(
                OpenApiTypes.STR, description="a JSON object a line, a game each"
            ),
            **{(code, JSONRenderer.media_type): r for code, r in errors(400, 401).items()},
        },
        auth=SIGNED_IN,
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        query = serializers.parse_query(serializers.DataQuery, request.query_params)
        user = callers.player(request)
        kind = query["format"]
        # The first batch on this thread (most accounts have fewer games than a batch), the
        # rest as the client reads.
        first = mydata.data_batch(user=user, format=kind, after=None)
        response = StreamingHttpResponse(
            _data(user, kind, first), content_type=f"{mydata.MEDIA_TYPES[kind]}; charset=utf-8"
        )
        name = f"scorpion-{user.pk}{mydata.EXTENSIONS[kind]}"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["Cache-Control"] = "no-store"
        return response


def _batch(user: User, kind: str, after: mydata.Place | None) -> tuple[str, Any]:
    try:
        return mydata.data_batch(user=user, format=kind, after=after)
    finally:
        connections.close_all()  # back to the pool: the next batch may run on another thread


async def _data(
    user: User, kind: str, first: tuple[str, mydata.Place | None]
) -> AsyncIterator[bytes]:
    """The account's games a batch at a time after the ``first``, each read on a thread, so
    that a long history streams without being held whole and without holding a request
    thread."""
    read = sync_to_async(_batch, thread_sensitive=False)
    text, after = first
    while True:
        if text:
            yield text.encode()
        if after is None:
            return
        text, after = await read(user, kind, after)


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


class PlayerStatsApi(APIView):
    @extend_schema(
        operation_id="player_stats",
        summary="A player's statistics in one ruleset: games, wins, the win rate over finished "
        "games, streaks, the average and best times, the hardest deal won",
        tags=["accounts"],
        parameters=[
            OpenApiParameter("rules", str, OpenApiParameter.PATH, enum=list(shapes.RULES.values))
        ],
        responses={200: serializers.RulesetStatsOut, **errors(404)},
    )
    def get(self, request: Request, username: str, rules: str) -> Response:
        if "\x00" in username or rules not in engine.RULESETS:
            raise PlayerNotFound()
        return Response(
            records.ruleset_stats(username=username, rules=rules, viewer=callers.viewer(request))
        )


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
