"""Games: rulesets, creating and listing games, commands, and reading a game's history.

Each view parses its input, calls one service or selector, and renders with
``games.reads.presenters`` what ``games.reads.visibility`` lets the caller see.
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.dateparse import parse_datetime
from django.utils.http import parse_etags
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api import messages, serializers
from api.parsers import JSONRenderer
from api.renderers import NotationRenderer
from api.schema import CURSOR_PARAMETER, IDEMPOTENCY_KEY, SIGNED_IN, errors, limit_parameter
from api.views import callers
from games import clock, engine, metrics
from games.errors import GameNotFound, HintNeedsPost
from games.reads import finish, presenters, selectors, visibility
from games.reads.shapes import (
    AnalysisPendingBody,
    CommandResultBody,
    EventPageBody,
    RulesBody,
    RulesetBody,
)
from games.writes import analysis, services

#: Most events in one page of ``/events``.
EVENTS_PAGE = 1000

_GAME_ID = OpenApiParameter("game_id", OpenApiTypes.UUID, OpenApiParameter.PATH)
_TAGS = ["games"]


def _etag(version: int) -> str:
    return f'"{version}"'


def _json(responses: dict[int, OpenApiResponse]) -> dict[tuple[int, str], OpenApiResponse]:
    """``responses`` as JSON bodies only (on an operation that also renders the notation)."""
    return {(code, JSONRenderer.media_type): response for code, response in responses.items()}


def _game_uuid(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise GameNotFound() from None


# --- rulesets --------------------------------------------------------------------------------


class RulesListApi(APIView):
    @extend_schema(
        operation_id="rules_list",
        summary="The rulesets and their parameters (docs/rules.md#rulesets)",
        tags=_TAGS,
        responses={200: serializers.RulesOut, **errors()},
    )
    def get(self, request: Request) -> Response:
        return Response(rules_body())


def rules_body() -> RulesBody:
    """The body of ``GET /rules``, in the active language (a game's page carries it too)."""
    return {
        "results": [_ruleset(rules) for rules in engine.RULESETS.values()],
        "default": engine.DEFAULT_RULES.name,
    }


def _ruleset(rules: engine.Ruleset) -> RulesetBody:
    """A ruleset's parameters, with its description in the request's language and in every
    language the API speaks."""
    text = messages.RULESET_DESCRIPTIONS[rules.name]
    descriptions = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            descriptions[language] = str(text)
    described = {**rules.describe(), "description": str(text), "descriptions": descriptions}
    return cast(RulesetBody, described)


# --- the games collection --------------------------------------------------------------------


class GamePagination(CursorPagination):
    """Newest first; ``limit`` (1..200, default 50) games a page; ``next`` is a full URL."""

    ordering = ("-created_at", "id")
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200

    def decode_cursor(self, request: Request) -> Any:
        """DRF's cursor, whose position must be a time (the ordering's ``created_at``): a
        forged one would reach the query and fail there."""
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise ValidationError({"cursor": [messages.BAD_CURSOR]}) from None
        if cursor is not None and not _a_time(cursor.position):
            raise ValidationError({"cursor": [messages.BAD_CURSOR]})
        return cursor

    def get_paginated_response(self, data: Any) -> Response:
        return Response({"results": data, "next": self.get_next_link()})


def _a_time(position: Any) -> bool:
    if position is None:
        return True
    if (
        not isinstance(position, str) or not position.isprintable()
    ):  # fromisoformat stops at a NUL and accepts the rest
        return False
    try:
        at = parse_datetime(position)
    except ValueError:  # the shape of a time, with impossible values
        return False
    return at is not None and clock.storable(at)


class GameCreateApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="game_create",
        summary="Start a game (neither seed nor deal: a random seed; winnable: a secret deal "
        "proved winnable, from the ruleset's pool)",
        tags=_TAGS,
        request=serializers.GameCreateIn,
        responses={201: serializers.GameOut, **errors(400, 401, 403, 413, 415, 503)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request) -> Response:
        data = serializers.GameCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        written = services.game_create(owner=callers.player(request), **data.validated_data)
        game = written.summary
        body = presenters.game_body(game, visibility.sight(callers.viewer(request), game))
        if isinstance(written, services.FromPool):
            body["certified"] = presenters.certified_body(written.deal)
        location = reverse("game-get", kwargs={"game_id": str(game.id)})
        headers = {"Location": location, "ETag": _etag(game.version)}
        return Response(body, status=status.HTTP_201_CREATED, headers=headers)


class GameListApi(APIView):
    @extend_schema(
        operation_id="game_list",
        summary="Games the caller may read (public ones and their own), newest first",
        tags=_TAGS,
        parameters=[
            OpenApiParameter(
                "owner",
                {"type": "string", "minLength": 1, "maxLength": 150},
                description="username of the owner",
            ),
            OpenApiParameter("status", str, enum=list(engine.STATUSES)),
            OpenApiParameter("rules", str, enum=list(engine.RULESETS)),
            limit_parameter("games"),
            CURSOR_PARAMETER,
        ],
        responses={200: serializers.GamePageOut, **errors(400)},
    )
    def get(self, request: Request) -> Response:
        query = serializers.parse_query(serializers.GameListQuery, request.query_params)
        filters = {
            name: value for name, value in query.items() if name in ("owner", "status", "rules")
        }
        viewer = callers.viewer(request)
        rows = selectors.game_list(viewer=viewer, **filters)
        paginator = GamePagination()
        page = paginator.paginate_queryset(rows, request, view=self) or []
        return paginator.get_paginated_response(
            [presenters.game_body(*selectors.listed_game(row, viewer)) for row in page]
        )


# --- one game --------------------------------------------------------------------------------


class GameGetApi(APIView):
    """A game as JSON, or in the notation (docs/notation.md) when the client asks for
    ``text/x-scorpion``."""

    renderer_classes = (JSONRenderer, NotationRenderer)

    @extend_schema(
        operation_id="game_get",
        summary="A game (ETag: its version; If-None-Match answers 304), or in the notation "
        "(Accept: text/x-scorpion or ?format=scorpion) once its hidden cards may be shown",
        tags=_TAGS,
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "format",
                str,
                enum=["json", NotationRenderer.format],
                description="as the Accept header would: scorpion for the notation "
                "(docs/notation.md); any other value is 400",
            ),
        ],
        responses={
            (200, JSONRenderer.media_type): serializers.GameOut,
            (200, NotationRenderer.media_type): OpenApiResponse(
                OpenApiTypes.STR,
                description="the game in the notation (docs/notation.md), as an attachment",
            ),
            304: OpenApiResponse(description="not modified since the ETag sent"),
            **_json(errors(400, 403, 404, 406, 409)),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        seen = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        body: Any
        if isinstance(request.accepted_renderer, NotationRenderer):
            body = selectors.game_notation(seen)
            etag = f'"{seen.game.version}-{NotationRenderer.format}"'
            name = f"{seen.game.id}{selectors.NOTATION_EXTENSION}"
            headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        else:
            body, etag, headers = game_json(seen), _etag(seen.game.version), {}
        wanted = parse_etags(request.headers.get("If-None-Match", ""))
        if "*" in wanted or etag in wanted or f"W/{etag}" in wanted:
            response = Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        else:
            response = Response(body, headers={"ETag": etag, **headers})
        # Staff see more than others under the same ETag; the notation is another body.
        patch_vary_headers(response, ["Accept", "Authorization", "Cookie"])
        return response

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        """``format`` is checked as every query parameter is (400 for one blank, repeated or
        unknown) before it picks the body; DRF alone would answer 404 or ignore it."""
        if not force:
            serializers.parse_query(serializers.GameGetQuery, request.query_params)
        return super().perform_content_negotiation(request, force)

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        """Errors are JSON, whichever body was asked for."""
        if not isinstance(response.data, str):
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


def game_json(seen: selectors.Seen) -> dict[str, Any]:
    """The JSON body of ``GET /games/{id}`` for a game as its viewer sees it (``seen``, from
    :func:`selectors.game_get`): the one place it is built, for the API and for the game's
    page, which carries it inline (``web/views.py``)."""
    body: dict[str, Any] = cast(dict[str, Any], presenters.game_body(*seen))
    certified = selectors.game_certified(seen.game)
    if certified is not None:
        body["certified"] = presenters.certified_body(certified)
    return body


_COMMAND = PolymorphicProxySerializer(
    component_name="Command",
    serializers=list(serializers.COMMAND_SHAPES),
    resource_type_field_name=None,
)


class GameCommandApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="game_command",
        summary="Play one command (owner only); a retried Idempotency-Key appends nothing",
        tags=_TAGS,
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "Idempotency-Key",
                IDEMPOTENCY_KEY,
                OpenApiParameter.HEADER,
                description="1 to 255 printable ASCII characters; a retry with the same key "
                "answers the first answer again (header Idempotent-Replayed: true)",
            ),
        ],
        request=_COMMAND,
        responses={201: serializers.CommandOut, **errors(400, 401, 403, 404, 409, 415, 422)},
        auth=SIGNED_IN,
    )
    def post(self, request: Request, game_id: str) -> Response:
        counted = metrics.CommandOutcome()
        with counted:
            key = _idempotency_key(request)
            command, expected_version = serializers.parse_command(request.data)
            counted.type = command["type"]
            result = services.game_command(
                game_id=_game_uuid(game_id),
                actor=callers.player(request),
                command=command,
                expected_version=expected_version,
                idempotency_key=key,
            )
            counted.code = "replayed" if result.repeated else "ok"
        game, event = result.summary, result.event
        sight = visibility.sight(callers.viewer(request), game)
        body: CommandResultBody = {
            "event": presenters.event_body(event, result.effects, sight),
            "game": presenters.game_body(game, sight),
        }
        headers = {"Idempotent-Replayed": "true"} if result.repeated else None
        return Response(body, status=status.HTTP_201_CREATED, headers=headers)


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= 255 or not all(" " <= char <= "~" for char in key):
        raise ValidationError({"Idempotency-Key": [messages.BAD_IDEMPOTENCY_KEY]})
    return key


class GameEventsApi(APIView):
    @extend_schema(
        operation_id="game_events",
        summary=f"The game's events after seq `after`, in seq order ({EVENTS_PAGE} a page)",
        tags=_TAGS,
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": serializers.MAX_SEQ, "default": 0},
                description="a seq",
            ),
        ],
        responses={200: serializers.EventPageOut, **errors(400, 403, 404)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        query = serializers.parse_query(serializers.EventListQuery, request.query_params)
        game, sight = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        events, more = selectors.game_events(game=game, after=query["after"], limit=EVENTS_PAGE)
        stream = selectors.game_stream(game)
        cards = selectors.moved_cards(game, events)
        after = events[-1].seq if events else None
        body: EventPageBody = {
            "results": [
                presenters.event_body(
                    event, stream.effects_of(event.seq), sight, card=cards.get(event.seq)
                )
                for event in events
            ],
            "next": (
                replace_query_param(request.build_absolute_uri(), "after", after) if more else None
            ),
        }
        return Response(body)


class GameMovesApi(APIView):
    @extend_schema(
        operation_id="game_moves",
        summary="Every legal action now (no undo, restart or resign entries)",
        tags=_TAGS,
        parameters=[_GAME_ID],
        responses={200: serializers.MovesOut, **errors(403, 404)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game, _ = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        return Response({"moves": selectors.game_moves(game)})


class GameHintApi(APIView):
    @extend_schema(
        operation_id="game_hint",
        summary="The move the server recommends, from the player's view only; records "
        "nothing (the owner of a game racing others asks with POST /hints instead)",
        tags=_TAGS,
        parameters=[_GAME_ID],
        responses={200: serializers.HintOut, **errors(403, 404, 409)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game, _ = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        account = callers.account(request)
        if selectors.hint_counts(game, None if account is None else account.pk):
            raise HintNeedsPost()
        found = selectors.game_hint(game, caller=callers.requester(request))
        body = presenters.hint_body(
            found, selectors.hint_move(game, found.action), version=game.version, recorded=False
        )
        return Response(body)


class GameHintTakeApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="game_hint_take",
        summary="Take a hint: in a daily challenge, race or arena still running the owner's "
        "hint is recorded (a hinted event, 201) and counts in the standings; elsewhere it "
        "is only answered (200)",
        tags=_TAGS,
        parameters=[_GAME_ID],
        request=None,
        responses={
            201: serializers.HintOut,
            200: serializers.HintOut,
            **errors(401, 403, 404, 409),
        },
        auth=SIGNED_IN,
    )
    def post(self, request: Request, game_id: str) -> Response:
        game, _ = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        result = services.game_hint(
            game=game, viewer=callers.player(request), caller=callers.requester(request)
        )
        body = presenters.hint_body(
            result.hint,
            selectors.hint_move(result.game, result.hint.action),
            version=result.game.version,
            recorded=result.recorded,
        )
        return Response(body, status=201 if result.recorded else 200)


class GameFinishApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="game_finish",
        summary="Once every card is face up and the reserve dealt: the solver's line that "
        "wins the owner's game, to send as commands (auto-finish)",
        tags=_TAGS,
        parameters=[_GAME_ID],
        responses={200: serializers.FinishOut, **errors(401, 403, 404, 409)},
        auth=SIGNED_IN,
    )
    def get(self, request: Request, game_id: str) -> Response:
        game, _ = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        return Response(
            finish.game_finish(
                game, viewer_id=callers.player(request).pk, caller=callers.requester(request)
            )
        )


class GameAnalysisApi(APIView):
    @extend_schema(
        operation_id="game_analysis",
        summary="Post-game analysis with full information (a finished game only): was the "
        "deal winnable, when was it lost, a winning line from the last winnable position; "
        "202 while a job computes it, 429 solver_busy past the caller's cap",
        tags=_TAGS,
        parameters=[_GAME_ID],
        responses={
            200: serializers.AnalysisOut,
            202: OpenApiResponse(
                serializers.AnalysisPendingOut,
                description="a job computes it: ask the same URL again after Retry-After "
                "seconds (Location names it)",
            ),
            **errors(403, 404, 409),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        seen = selectors.game_get(game_id=game_id, viewer=callers.viewer(request))
        found = analysis.game_analysis(seen, requester=callers.requester(request))
        if isinstance(found, analysis.Pending):
            body: AnalysisPendingBody = {
                "status": "pending",
                "game": str(found.game_id),
                "retry_after": found.retry_after,
            }
            headers = {
                "Location": reverse("game-analysis", kwargs={"game_id": str(found.game_id)}),
                "Retry-After": str(found.retry_after),
            }
            return Response(body, status=status.HTTP_202_ACCEPTED, headers=headers)
        return Response(presenters.analysis_body(found))


class GameStateApi(APIView):
    @extend_schema(
        operation_id="game_state",
        summary="The game as it was at a version (hidden cards shown once it is finished)",
        tags=_TAGS,
        parameters=[_GAME_ID, OpenApiParameter("version", int, OpenApiParameter.PATH)],
        responses={200: serializers.GameOut, **errors(403, 404)},
    )
    def get(self, request: Request, game_id: str, version: int) -> Response:
        game, sight = selectors.game_get(
            game_id=game_id, viewer=callers.viewer(request), version=version
        )
        then = selectors.game_at_version(game=game, version=version)
        return Response(presenters.game_body(then, sight))
