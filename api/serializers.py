"""Small input and output serializers of the REST API.

Inputs are strict JSON: integers are JSON integers (not ``true``, not ``"5"``), booleans are
``true``/``false``, and a key the operation does not know is refused, so a typo never
passes silently. Output serializers describe the bodies that ``games.reads.presenters``
builds, derived from their one definition in ``games.reads.shapes``
(``api.schema.serializer_for``): they exist for the OpenAPI document.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import QueryDict
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from api import messages
from api.schema import CARD_PATTERN, serializer_for
from games import clock, engine
from games.reads import mydata, puzzle_shapes, shapes
from games.reads.accounts import PREFERENCES
from games.writes import accounts

#: The largest layout of any ruleset: columns, cells and positions in a column.
MAX_COLUMNS = 16
MAX_CELLS = 4
MAX_INDEX = 103


# --- strict fields ---------------------------------------------------------------------------


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer; ``true``, ``5.5`` and ``"5"`` are refused. ``5.0`` is 5, as JSON Schema
    (and so the OpenAPI document) counts it: a number with no fraction is an integer."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        value: int = super().to_internal_value(data)
        return value


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false``; ``1`` and ``"yes"`` are refused."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictCharField(serializers.CharField):
    """A JSON string; numbers are refused rather than turned into text."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        value: str = super().to_internal_value(data)
        return value


#: A card code exactly as the OpenAPI document states it (``api.schema.CARD_PATTERN``).
_CARD = re.compile(CARD_PATTERN)


class CardField(StrictCharField):
    """A card code (``AS``, ``TD``, ``10D``, any case), given back in canonical form."""

    default_error_messages = {"not_a_card": messages.NOT_A_CARD}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 3)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data)
        if not _CARD.search(text):
            self.fail("not_a_card")
        try:
            return engine.card_code(engine.parse_card(text))
        except engine.CardError:
            self.fail("not_a_card")
            raise  # unreachable: fail() raises


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Refuses a body that is not a JSON object or carries keys it does not declare."""

    #: One instance per shape, reused: building a serializer deep-copies its fields, which
    #: cost a command more than its whole append to PostgreSQL (validation keeps no state).
    _shared: StrictSerializer | None = None

    @classmethod
    def validated(cls, data: Any) -> dict[str, Any]:
        """``data`` validated, or ``ValidationError`` with its detail by field, as
        ``is_valid(raise_exception=True)`` raises it."""
        shared = cls.__dict__.get("_shared")
        if shared is None:
            shared = cls()
            cls._shared = shared
        value: dict[str, Any] = shared.run_validation(data)
        return value

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(
                {"non_field_errors": [messages.NOT_AN_OBJECT]}, code="invalid"
            )
        unknown = {str(key): [messages.UNKNOWN_FIELD] for key in data if key not in self.fields}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as error:
            if isinstance(error.detail, dict):
                raise serializers.ValidationError({**error.detail, **unknown}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


def _renamed(fields: dict[str, Any], **names: str) -> dict[str, Any]:
    """``fields`` with some keys renamed (for JSON names that are Python keywords)."""
    return {names.get(name, name): field for name, field in fields.items()}


# --- accounts --------------------------------------------------------------------------------


@extend_schema_serializer(component_name="Credentials")
class CredentialsIn(StrictSerializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=4096, trim_whitespace=False)
    name = StrictCharField(
        max_length=64,
        required=False,
        allow_blank=True,
        help_text="what the key is for (a device, a program); without it, the client's name "
        "from its User-Agent",
    )


@extend_schema_serializer(component_name="Registration")
class RegisterIn(CredentialsIn):
    """A new account: Django's username rules and password validators apply."""

    def validate_username(self, value: str) -> str:
        username_field = get_user_model()._meta.get_field("username")
        for validator in username_field.validators:
            try:
                validator(value)
            except DjangoValidationError as error:
                raise serializers.ValidationError(list(error.messages)) from None
        if accounts.RESERVED_NAME.fullmatch(value):
            raise serializers.ValidationError([messages.RESERVED_NAME])
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        user = get_user_model()(username=attrs["username"])
        try:
            validate_password(attrs["password"], user=user)
        except DjangoValidationError as error:
            raise serializers.ValidationError({"password": list(error.messages)}) from None
        return attrs


@extend_schema_serializer(component_name="PasswordChange")
class PasswordChangeIn(StrictSerializer):
    """The current password and the new one (Django's password validators apply)."""

    password = StrictCharField(max_length=4096, trim_whitespace=False)
    new_password = StrictCharField(max_length=4096, trim_whitespace=False)

    def validate_new_password(self, value: str) -> str:
        return _valid_password(value, self.context["user"])


def _valid_password(value: str, user: Any) -> str:
    """``value`` if Django's password validators take it for ``user``'s password."""
    try:
        validate_password(value, user=user)
    except DjangoValidationError as error:
        raise serializers.ValidationError(list(error.messages)) from None
    return value


@extend_schema_serializer(component_name="PasswordResetConfirm")
class PasswordResetConfirmIn(StrictSerializer):
    """A reset link's ``uid`` and ``token`` (after the ``#`` of the emailed link, separated
    by ``/``) and the new password (Django's password validators apply, for the account the
    link is for: the view passes it as ``user`` in the context once the link is checked)."""

    uid = StrictCharField(max_length=64, trim_whitespace=False)
    token = StrictCharField(max_length=128, trim_whitespace=False)
    new_password = StrictCharField(max_length=4096, trim_whitespace=False)

    def validate_new_password(self, value: str) -> str:
        return _valid_password(value, self.context.get("user"))


@extend_schema_serializer(component_name="Email")
class EmailIn(StrictSerializer):
    """An email address."""

    email = serializers.EmailField(max_length=254)


@extend_schema_serializer(component_name="EmailVerify")
class EmailVerifyIn(StrictSerializer):
    """The token of a verification link (after the ``#`` of the emailed link)."""

    token = StrictCharField(max_length=1024, trim_whitespace=False)


@extend_schema_serializer(component_name="AccountClose")
class AccountCloseIn(StrictSerializer):
    """The account's password, to close it."""

    password = StrictCharField(max_length=4096, trim_whitespace=False)


@extend_schema_serializer(component_name="PreferencesUpdate")
class PreferencesIn(StrictSerializer):
    """Every preference of the client (docs/api.md#preferences): a PUT replaces them all."""

    card_size = serializers.ChoiceField(choices=PREFERENCES["card_size"])
    theme = serializers.ChoiceField(choices=PREFERENCES["theme"])
    sound = StrictBooleanField()
    animations = StrictBooleanField()
    auto_finish = StrictBooleanField()


class DataQuery(serializers.Serializer):  # type: ignore[type-arg]
    format = serializers.ChoiceField(choices=list(mydata.FORMATS), default="scorpion")


# --- games: input ----------------------------------------------------------------------------


@extend_schema_serializer(component_name="GameCreate")
class GameCreateIn(StrictSerializer):
    rules = serializers.ChoiceField(
        choices=list(engine.RULESETS), default=engine.DEFAULT_RULES.name
    )
    seed = StrictIntegerField(min_value=0, max_value=engine.MAX_SEED, required=False)
    deal = serializers.ListField(
        child=CardField(),
        max_length=104,
        required=False,
        help_text="card codes in layout order (docs/rules.md#layout): a complete deck for "
        "the ruleset",
    )
    public = StrictBooleanField(default=True)
    winnable = StrictBooleanField(
        default=False,
        help_text="a secret deal the solver proved winnable, never dealt to the caller before "
        "(docs/api.md#winnable-deals); not with a seed or a deal (400 winnable_with_deal)",
    )
    rated = StrictBooleanField(
        default=False,
        help_text="a rated game (docs/api.md#ratings): a winnable deal whose rating is nearest "
        "the caller's; not with a seed or a deal (400 rated_with_deal), nor for a ruleset "
        "without a pool (400 rated_no_pool)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "seed" in attrs and "deal" in attrs:
            raise serializers.ValidationError(
                {"non_field_errors": [messages.SEED_OR_DEAL]}, code="invalid"
            )
        return attrs


def parse_query(shape: type[serializers.Serializer], query: QueryDict) -> dict[str, Any]:  # type: ignore[type-arg]
    """The validated query parameters of ``shape``: each given at most once and never blank
    (as the OpenAPI document states them), else 400 with ``fields``."""
    problems = {
        name: [messages.ONE_VALUE]
        for name in shape._declared_fields
        if len(values := query.getlist(name)) > 1 or values == [""]
    }
    if problems:
        raise serializers.ValidationError(problems)
    parsed = shape(data=query)
    parsed.is_valid(raise_exception=True)
    return dict(parsed.validated_data)


class GameListQuery(serializers.Serializer):  # type: ignore[type-arg]
    owner = serializers.CharField(required=False, max_length=150, trim_whitespace=False)
    status = serializers.ChoiceField(choices=list(engine.STATUSES), required=False)
    rules = serializers.ChoiceField(choices=list(engine.RULESETS), required=False)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False, trim_whitespace=False)


class LiveQuery(serializers.Serializer):  # type: ignore[type-arg]
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)


#: A month of the calendar, ``YYYY-MM``: year 0001 to 9999 (there is no year 0).
MONTH_PATTERN = r"^(000[1-9]|00[1-9]\d|0[1-9]\d{2}|[1-9]\d{3})-(0[1-9]|1[0-2])$"


class MonthQuery(serializers.Serializer):  # type: ignore[type-arg]
    month = serializers.RegexField(MONTH_PATTERN, required=False)


class GameGetQuery(serializers.Serializer):  # type: ignore[type-arg]
    #: The body: JSON, or the game in the notation (docs/notation.md).
    format = serializers.ChoiceField(choices=["json", "scorpion"], required=False)


#: The largest ``seq`` a game may reach (the events table stores it as a 32-bit integer).
MAX_SEQ = 2**31 - 1


class RatingHistoryQuery(serializers.Serializer):  # type: ignore[type-arg]
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False, max_length=500)


class LeaderboardQuery(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.ChoiceField(choices=["all", "month", "week"], default="all")
    at = serializers.CharField(required=False, max_length=10)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False, max_length=500)


class ContestStartIn(StrictSerializer):
    """A new contest's start (``countdown`` seconds from now, or ``starts_at``), ruleset,
    title and whether it is listed."""

    rules = serializers.ChoiceField(
        choices=list(engine.RULESETS), default=engine.DEFAULT_RULES.name
    )
    countdown = StrictIntegerField(
        min_value=0,
        max_value=settings.RACE_MAX_COUNTDOWN_SECONDS,
        required=False,
        help_text="seconds from now to the start (default 30 when starts_at is not given)",
    )
    starts_at = serializers.DateTimeField(
        required=False, help_text="the start, ISO 8601 (instead of countdown)"
    )
    public = StrictBooleanField(default=True)
    title = StrictCharField(max_length=100, required=False, allow_blank=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "countdown" in attrs and "starts_at" in attrs:
            raise serializers.ValidationError(
                {"non_field_errors": [messages.COUNTDOWN_OR_START]}, code="invalid"
            )
        start = attrs.get("starts_at")
        if start is not None:
            ahead = (start - clock.now()).total_seconds()
            if ahead < 0:
                raise serializers.ValidationError(
                    {"starts_at": [messages.START_IN_PAST]}, code="invalid"
                )
            if ahead > settings.RACE_MAX_COUNTDOWN_SECONDS:
                limit = settings.RACE_MAX_COUNTDOWN_SECONDS
                raise serializers.ValidationError(
                    {"starts_at": [messages.START_TOO_FAR % {"limit": limit}]}, code="invalid"
                )
        return attrs


@extend_schema_serializer(component_name="RaceCreate")
class RaceCreateIn(ContestStartIn):
    """A new race: a start (``countdown`` seconds from now, or ``starts_at``), a time limit."""

    deals = StrictIntegerField(min_value=1, max_value=5, default=1)
    time_limit = StrictIntegerField(
        min_value=10,
        max_value=settings.RACE_MAX_TIME_LIMIT_SECONDS,
        help_text="seconds from the start to the end",
    )


#: How long a player's arena may last: a minute to a week (the rotation's weekly one).
ARENA_MIN_SECONDS, ARENA_MAX_SECONDS = 60, 7 * 86400


@extend_schema_serializer(component_name="ArenaCreate")
class ArenaCreateIn(ContestStartIn):
    """A player's arena: a start (``countdown`` seconds from now, or ``starts_at``) and how
    long it lasts."""

    duration = StrictIntegerField(
        min_value=ARENA_MIN_SECONDS,
        max_value=ARENA_MAX_SECONDS,
        help_text="seconds from the start to the end (a minute to a week)",
    )


class ContestListQuery(serializers.Serializer):  # type: ignore[type-arg]
    status = serializers.ChoiceField(choices=["scheduled", "running", "finished"], required=False)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False, trim_whitespace=False)


class EventListQuery(serializers.Serializer):  # type: ignore[type-arg]
    after = serializers.IntegerField(min_value=0, max_value=MAX_SEQ, default=0)


class _CommandBase(StrictSerializer):
    expected_version = StrictIntegerField(
        min_value=1, required=False, help_text="refuse (409) unless this is the current version"
    )


def _command_type(kind: str) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=[kind])


@extend_schema_serializer(component_name="MoveCommand")
class MoveIn(_CommandBase):
    """Move the face-up card at ``index`` of column ``from`` and everything above it."""

    type = _command_type("move")
    from_ = StrictIntegerField(min_value=1, max_value=MAX_COLUMNS)
    index = StrictIntegerField(min_value=0, max_value=MAX_INDEX)
    to = StrictIntegerField(min_value=1, max_value=MAX_COLUMNS)
    card = CardField(
        required=False, help_text="the card expected at from/index; else 409 stale_card"
    )

    def get_fields(self) -> dict[str, Any]:
        return _renamed(super().get_fields(), from_="from")


@extend_schema_serializer(component_name="CellMoveCommand")
class CellMoveIn(_CommandBase):
    """Play the card of a cell onto a column (``three_blind_mice``)."""

    type = _command_type("move")
    cell = StrictIntegerField(min_value=1, max_value=MAX_CELLS)
    to = StrictIntegerField(min_value=1, max_value=MAX_COLUMNS)
    card = CardField(required=False, help_text="the card expected in the cell")


@extend_schema_serializer(component_name="DealCommand")
class DealIn(_CommandBase):
    type = _command_type("deal")


@extend_schema_serializer(component_name="UndoCommand")
class UndoIn(_CommandBase):
    type = _command_type("undo")


@extend_schema_serializer(component_name="RestartCommand")
class RestartIn(_CommandBase):
    type = _command_type("restart")


@extend_schema_serializer(component_name="ResignCommand")
class ResignIn(_CommandBase):
    type = _command_type("resign")


COMMAND_SHAPES: tuple[type[_CommandBase], ...] = (
    MoveIn,
    CellMoveIn,
    DealIn,
    UndoIn,
    RestartIn,
    ResignIn,
)
_BY_TYPE: dict[str, type[_CommandBase]] = {
    "deal": DealIn,
    "undo": UndoIn,
    "restart": RestartIn,
    "resign": ResignIn,
}


def parse_command(data: Any) -> tuple[dict[str, Any], int | None]:
    """The command of a request body and its ``expected_version``; ``ValidationError``
    (400 with ``fields``) for anything that is not one of the command shapes of
    docs/api.md#commands."""
    command = _parsed(data, MoveIn, CellMoveIn, _BY_TYPE)
    return command, command.pop("expected_version", None)


def _ply() -> Any:
    """A puzzle move's ``ply``, in place of a game command's ``expected_version``."""
    return StrictIntegerField(
        min_value=0,
        max_value=MAX_SEQ,
        required=False,
        help_text="how many moves of the attempt you know were played: a retry of the last "
        "one is answered again; any other that is not the next is 409 puzzle_moved_on",
    )


@extend_schema_serializer(component_name="PuzzleMoveCommand")
class PuzzleMoveIn(MoveIn):
    """Move the face-up card at ``index`` of column ``from`` and everything above it."""

    expected_version = None  # type: ignore[assignment]
    ply = _ply()


@extend_schema_serializer(component_name="PuzzleCellMoveCommand")
class PuzzleCellMoveIn(CellMoveIn):
    """Play the card of a cell onto a column (``three_blind_mice``)."""

    expected_version = None  # type: ignore[assignment]
    ply = _ply()


@extend_schema_serializer(component_name="PuzzleDealCommand")
class PuzzleDealIn(DealIn):
    expected_version = None  # type: ignore[assignment]
    ply = _ply()


PUZZLE_MOVE_SHAPES: tuple[type[StrictSerializer], ...] = (
    PuzzleMoveIn,
    PuzzleCellMoveIn,
    PuzzleDealIn,
)


def parse_puzzle_move(data: Any) -> tuple[dict[str, Any], int | None]:
    """The move (a ``move`` or a ``deal``) of a puzzle move's body, and its ``ply``;
    ``ValidationError`` for anything else."""
    command = _parsed(data, PuzzleMoveIn, PuzzleCellMoveIn, {"deal": PuzzleDealIn})
    return command, command.pop("ply", None)


def _parsed(
    data: Any,
    move: type[StrictSerializer],
    cell_move: type[StrictSerializer],
    others: dict[str, Any],
) -> dict[str, Any]:
    """``data`` validated by the shape its ``type`` names (for ``move``, ``cell_move`` when
    it names a cell), one of ``others`` for another type."""
    if not isinstance(data, Mapping):
        raise serializers.ValidationError({"non_field_errors": [messages.NOT_AN_OBJECT]})
    kind = data.get("type")
    if kind == "move":
        shape = cell_move if "cell" in data else move
    elif isinstance(kind, str) and kind in others:
        shape = others[kind]
    else:
        field = serializers.ChoiceField(choices=["move", *others])
        detail = (
            field.error_messages["required"]
            if "type" not in data
            else field.error_messages["invalid_choice"].format(input=kind)
        )
        raise serializers.ValidationError({"type": [detail]})
    return dict(shape.validated(data))


# --- output: described from the shapes the presenters build (api.schema) ---------------------

GameOut = serializer_for(shapes.GameBody)
RatingsOut = serializer_for(shapes.RatingsBody)
RatingHistoryOut = serializer_for(shapes.RatingHistoryBody)
AnalysisPendingOut = serializer_for(shapes.AnalysisPendingBody)
GamePageOut = serializer_for(shapes.GamePageBody)
EventPageOut = serializer_for(shapes.EventPageBody)
LogPageOut = serializer_for(shapes.LogPageBody)
ExportListOut = serializer_for(shapes.ExportListBody)
CommandOut = serializer_for(shapes.CommandResultBody, name="CommandResult")
ChallengeOut = serializer_for(shapes.ChallengeBody)
StandingsOut = serializer_for(shapes.StandingsBody)
RaceOut = serializer_for(shapes.RaceBody)
ArenaOut = serializer_for(shapes.ArenaBody)
RacePageOut = serializer_for(shapes.RacePageBody)
ArenaPageOut = serializer_for(shapes.ArenaPageBody)
RaceStandingsOut = serializer_for(shapes.RaceStandingsBody)
ArenaStandingsOut = serializer_for(shapes.ArenaStandingsBody)
GameListOut = serializer_for(shapes.GameListBody)
MovesOut = serializer_for(shapes.MovesBody)
HintOut = serializer_for(shapes.HintBody)
AnalysisOut = serializer_for(shapes.AnalysisBody)
RulesOut = serializer_for(shapes.RulesBody)
PlayerOut = serializer_for(shapes.PlayerBody)
RulesetStatsOut = serializer_for(shapes.RulesetStatsBody)
StakesOut = serializer_for(shapes.StakesBody)
LiveGamesOut = serializer_for(shapes.LiveGamesBody)
TvOut = serializer_for(shapes.TvBody)
ChallengeMonthOut = serializer_for(shapes.ChallengeMonthBody)
SolutionStepOut = serializer_for(shapes.SolutionStepBody)
RegisteredOut = serializer_for(shapes.RegisteredBody)
TokenOut = serializer_for(shapes.TokenBody)
MeOut = serializer_for(shapes.MeBody)
PreferencesOut = serializer_for(shapes.PreferencesBody)
FinishOut = serializer_for(shapes.FinishBody)
EmailOut = serializer_for(shapes.EmailConfirmedBody)
KeysOut = serializer_for(shapes.KeysBody)
WsTicketOut = serializer_for(shapes.WsTicketBody)
LeaderboardOut = serializer_for(shapes.LeaderboardBody)
BoardsOut = serializer_for(shapes.BoardsBody)
AttemptOut = serializer_for(puzzle_shapes.AttemptBody)
PuzzleMoveOut = serializer_for(puzzle_shapes.PuzzleMoveBody, name="PuzzleMoveResult")
StreakPlayOut = serializer_for(puzzle_shapes.StreakPlayBody)
StreakRecordOut = serializer_for(puzzle_shapes.StreakRecordBody)
PuzzleDayOut = serializer_for(puzzle_shapes.PuzzleDayBody)
PuzzleDashboardOut = serializer_for(puzzle_shapes.PuzzleDashboardBody)
ThemesOut = serializer_for(puzzle_shapes.ThemesBody)
PuzzleExportListOut = serializer_for(puzzle_shapes.PuzzleExportListBody)
