"""OpenAPI helpers: error responses, and serializers derived from the body shapes.

The bodies the API sends are defined once, as ``TypedDict`` s in ``games.reads.shapes``.
:func:`serializer_for` turns one into a DRF serializer class for drf-spectacular, named after
it (``GameBody`` becomes the component ``Game``), with its descriptions and choices, so the
document describes exactly what the presenters build. These serializers only describe:
nothing renders through them.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, NotRequired, Required, get_args, get_origin, get_type_hints

from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    get_default_password_validators,
)
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_serializer
from rest_framework import serializers

from games.reads.shapes import Choices, Doc, ErrorBody, Format

_MEANINGS = {
    400: "malformed request: code `invalid`, with `fields` {name: [messages]}; `link_invalid` "
    "for a password reset or email link that is wrong, used or expired; "
    "`winnable_with_deal` for a winnable game asked with a seed or a deal; `rated_with_deal` "
    "for a rated game asked with a seed or a deal, `rated_no_pool` for a rated game of a "
    "ruleset without a pool",
    401: "not authenticated (`not_authenticated`, `authentication_failed`, `invalid_credentials`)",
    403: "not allowed (`not_owner`, `private_game`, `challenge_in_progress`, "
    "`challenge_closed`, `contest_in_progress`, `contest_closed`, `contest_not_started`, "
    "`race_started`, `not_entrant`, `banned`, `permission_denied`, `wrong_password`, "
    "`analysis_not_yet`, `account_required`)",
    404: "no such resource (`not_found`; leaderboards: `unknown_scope`, `unknown_metric`)",
    406: "the client accepts none of the operation's media types (`not_acceptable`)",
    409: "`version_conflict` or `stale_card` (`version` is the game's current version); "
    "`game_not_finished` for the analysis or the notation of a game in play",
    413: "the body is larger than 64 KiB (`too_large`); refused before it is read whole",
    422: "a rule refused the action (a rejection code of docs/rules.md), or "
    "`idempotency_key_reused`",
    405: "this method is not allowed on this path (`method_not_allowed`); see `Allow`",
    415: "the body is not `application/json` (`unsupported_media_type`)",
    429: "throttled (`throttled`), or solver work past the caller's bound (`solver_busy`: "
    "a solver request of theirs still running, or their analyses in flight at the cap; "
    "`solver_throttled`: past their rate of solver requests); see the `Retry-After` header",
    503: "the database is unavailable (`unavailable`), the day's challenge is still being "
    "prepared (`challenge_not_ready`), no winnable deal is ready (`pool_empty`), or the "
    "server's solver is fully busy (`solver_overloaded`); retry after `Retry-After` seconds",
}


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """Error responses for ``@extend_schema(responses=…)``: the given statuses, plus 405, 429
    and 503, which any operation may answer (405 to a method its path does not take)."""
    wanted = sorted({*statuses, 405, 429, 503})
    return {
        status: OpenApiResponse(response=serializer_for(ErrorBody), description=_MEANINGS[status])
        for status in wanted
    }


#: ``@extend_schema(auth=…)`` of operations that need an account: its token or its session,
#: never anonymous (drf-spectacular's annotation says strings; it takes requirements).
SIGNED_IN: Any = [{"tokenAuth": []}, {"cookieAuth": []}]

#: A card code: rank (2-9, 10, A, T, J, Q, K) and suit (S, H, D, C), any letter case. The
#: lookahead keeps a trailing newline out, which ``$`` alone would let through in Python.
CARD_PATTERN = r"^(10|[2-9AaTtJjQqKk])[SsHhDdCc](?!\n)$"
#: Any text without a NUL character (which DRF's text fields refuse).
NO_NUL = r"^[^\u0000]*$"
#: Django's username rule (``UnicodeUsernameValidator``), in the same terms.
USERNAME_PATTERN = r"^[\w.@+-]+(?!\n)$"
#: An ``Idempotency-Key``: printable ASCII, no blank at either end (HTTP strips them).
IDEMPOTENCY_KEY = {
    "type": "string",
    "minLength": 1,
    "maxLength": 255,
    "pattern": r"^[!-~]([ -~]*[!-~])?(?!\n)$",
}


def limit_parameter(what: str) -> OpenApiParameter:
    """The ``limit`` of a paged list: 1 to 200 ``what`` a page, 50 by default."""
    return OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
        description=f"{what} a page",
    )


#: The ``cursor`` of a paged list: opaque, made by the server.
CURSOR_PARAMETER = OpenApiParameter(
    "cursor",
    {"type": "string", "minLength": 1},
    description="from a previous page's next (any other: 400)",
)


def tighten(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: what the serializers check but do not say.

    Every ``string`` a body takes is checked exactly as the document states it
    (tests/api/test_schemathesis.py sends what it allows and what it does not, and holds the
    code to both); the rules JSON Schema cannot state (a deal that is a complete deck, a
    password that is not common or too like the username, a username not taken) are named
    in the descriptions and answered 400."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in _STRICT_INPUTS:  # api.serializers.StrictSerializer refuses unknown keys
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    for name, fields in _TEXT_INPUTS.items():
        if name in schemas:
            properties = schemas[name]["properties"]
            for field in fields:  # DRF refuses blank text and NUL characters
                properties[field].update(minLength=1, pattern=NO_NUL)
            if "name" in properties:  # a key's name may be blank
                properties["name"]["pattern"] = NO_NUL
    if "Registration" in schemas:
        properties = schemas["Registration"]["properties"]
        properties["username"]["pattern"] = USERNAME_PATTERN
        properties["username"]["description"] = (
            "letters, digits and @ . + - _ (not taken by another account)"
        )
        properties["password"].update(
            minLength=_min_password_length(),
            pattern=r"^(?=[\s\S]*\D)[^\u0000]*$",
            description="not entirely numeric, not a common password, and not too like the "
            "username (Django's password validators)",
        )
    if "GameCreate" in schemas:
        schemas["GameCreate"]["not"] = {"required": ["seed", "deal"]}
        schemas["GameCreate"]["description"] = "A seed or a deal, not both."
        schemas["GameCreate"]["properties"]["deal"]["items"]["pattern"] = CARD_PATTERN
    for name in ("MoveCommand", "CellMoveCommand", "PuzzleMoveCommand", "PuzzleCellMoveCommand"):
        if name in schemas:
            schemas[name]["properties"]["card"]["pattern"] = CARD_PATTERN
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if operation.get("operationId") in ("game_command", "puzzle_move"):
                operation["requestBody"]["required"] = True  # a command is its body
    return result


#: The text fields of request bodies that may be neither blank nor hold a NUL character.
_TEXT_INPUTS = {
    "Credentials": ("username", "password"),
    "Registration": ("username", "password"),
    "PasswordResetConfirm": ("uid", "token", "new_password"),
    "EmailVerify": ("token",),
    "AccountClose": ("password",),
}

#: The request bodies, each a ``StrictSerializer``.
_STRICT_INPUTS = (
    "Credentials",
    "Registration",
    "PasswordResetConfirm",
    "Email",
    "EmailVerify",
    "AccountClose",
    "PreferencesUpdate",
    "GameCreate",
    "RaceCreate",
    "MoveCommand",
    "CellMoveCommand",
    "DealCommand",
    "UndoCommand",
    "RestartCommand",
    "ResignCommand",
    "PuzzleMoveCommand",
    "PuzzleCellMoveCommand",
    "PuzzleDealCommand",
)


def _min_password_length() -> int:
    lengths = [
        validator.min_length
        for validator in get_default_password_validators()
        if isinstance(validator, MinimumLengthValidator)
    ]
    return max(lengths, default=1)


@functools.cache
def serializer_for(shape: type, *, name: str | None = None) -> type[serializers.Serializer[Any]]:
    """A serializer class describing the ``TypedDict`` ``shape`` (cached: one component per
    shape). Its component is ``name``, by default the shape's name without ``Body``."""
    component = name or shape.__name__.removesuffix("Body")
    hints = get_type_hints(shape, include_extras=True)
    required: frozenset[str] = getattr(shape, "__required_keys__", frozenset(hints))
    attributes: dict[str, Any] = {
        key: _field(hint, required=key in required) for key, hint in hints.items()
    }
    attributes.update(__doc__=shape.__doc__, __module__=__name__)
    cls = type(f"{component}Out", (serializers.Serializer,), attributes)
    described: type[serializers.Serializer[Any]] = extend_schema_serializer(
        component_name=component
    )(cls)
    return described


_BASIC: dict[type, type[serializers.Field[Any, Any, Any, Any]]] = {
    str: serializers.CharField,
    int: serializers.IntegerField,
    float: serializers.FloatField,
    bool: serializers.BooleanField,
}
_FORMATS: dict[str, type[serializers.Field[Any, Any, Any, Any]]] = {
    "date-time": serializers.DateTimeField,
    "date": serializers.DateField,
    "uuid": serializers.UUIDField,
}


def _field(hint: Any, *, required: bool = True) -> serializers.Field[Any, Any, Any, Any]:
    """The serializer field describing one key of a shape: its type, whether it may be
    ``null``, and its ``Annotated`` description, choices and format."""
    options: dict[str, Any] = {"required": required}
    choices: Choices | None = None
    fmt: Format | None = None
    while True:
        origin = get_origin(hint)
        if origin in (Required, NotRequired):
            (hint,) = get_args(hint)
        elif origin is typing.Annotated:
            hint, *extras = get_args(hint)
            for extra in extras:
                if isinstance(extra, Doc):
                    options.setdefault("help_text", extra.text)  # the outermost wins
                choices = extra if isinstance(extra, Choices) else choices
                fmt = extra if isinstance(extra, Format) else fmt
        elif origin in (typing.Union, types.UnionType):
            present = [arg for arg in get_args(hint) if arg is not type(None)]
            options["allow_null"] = len(present) < len(get_args(hint))
            (hint,) = present
        else:
            break
    if choices is not None:
        return serializers.ChoiceField(choices=list(choices.values), **options)
    if fmt is not None:
        return _FORMATS[fmt.name](**options)
    if origin is list:
        (item,) = get_args(hint)
        return serializers.ListField(child=_field(item), **options)
    if origin is dict:
        return serializers.DictField(**options)
    if typing.is_typeddict(hint):
        return serializer_for(hint)(**options)
    return _BASIC[hint](**options)
