"""Small input and output serializers of the REST API.

Inputs are strict JSON: integers are JSON integers (not ``true``, not ``"5"``), booleans are
``true``/``false``, and a key the operation does not know is refused, so a typo never
passes silently. Output serializers describe the bodies that ``games.presenters`` builds;
they exist for the OpenAPI document, and tests check real responses against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from api import messages
from games import engine

#: The largest layout of any ruleset: columns, cells and positions in a column.
MAX_COLUMNS = 16
MAX_CELLS = 4
MAX_INDEX = 103

COMMAND_TYPES = ("move", "deal", "undo", "restart", "resign")


# --- strict fields ---------------------------------------------------------------------------


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer; ``true``, ``5.0`` and ``"5"`` are refused."""

    def to_internal_value(self, data: Any) -> int:
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


class CardField(StrictCharField):
    """A card code (``AS``, ``TD``, ``10D``, any case), given back in canonical form."""

    default_error_messages = {"not_a_card": messages.NOT_A_CARD}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 3)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data)
        try:
            return engine.card_code(engine.parse_card(text))
        except engine.CardError:
            self.fail("not_a_card")
            raise  # unreachable: fail() raises


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Refuses a body that is not a JSON object or carries keys it does not declare."""

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
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        user = get_user_model()(username=attrs["username"])
        try:
            validate_password(attrs["password"], user=user)
        except DjangoValidationError as error:
            raise serializers.ValidationError({"password": list(error.messages)}) from None
        return attrs


@extend_schema_serializer(component_name="Registered")
class RegisteredOut(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    token = serializers.CharField()


@extend_schema_serializer(component_name="Token")
class TokenOut(serializers.Serializer):  # type: ignore[type-arg]
    token = serializers.CharField()


@extend_schema_serializer(component_name="Player")
class PlayerOut(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="won / played, 4 decimals; 0.0 with no games")
    streak = serializers.IntegerField()
    best_streak = serializers.IntegerField()
    best_time_ms = serializers.IntegerField(
        allow_null=True, help_text="fastest won game, from creation to the win"
    )


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
        help_text="card codes in layout order (RULES.md): a complete deck for the ruleset",
    )
    public = StrictBooleanField(default=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "seed" in attrs and "deal" in attrs:
            raise serializers.ValidationError(
                {"non_field_errors": [messages.SEED_OR_DEAL]}, code="invalid"
            )
        return attrs


class GameListQuery(serializers.Serializer):  # type: ignore[type-arg]
    owner = serializers.CharField(required=False, max_length=150)
    status = serializers.ChoiceField(choices=list(engine.STATUSES), required=False)
    rules = serializers.ChoiceField(choices=list(engine.RULESETS), required=False)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False)


class EventListQuery(serializers.Serializer):  # type: ignore[type-arg]
    after = serializers.IntegerField(min_value=0, default=0)


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
    (400 with ``fields``) for anything that is not one of API.md's command shapes."""
    if not isinstance(data, Mapping):
        raise serializers.ValidationError({"non_field_errors": [messages.NOT_AN_OBJECT]})
    kind = data.get("type")
    if kind == "move":
        shape: type[_CommandBase] = CellMoveIn if "cell" in data else MoveIn
    elif isinstance(kind, str) and kind in _BY_TYPE:
        shape = _BY_TYPE[kind]
    else:
        field = serializers.ChoiceField(choices=list(COMMAND_TYPES))
        detail = (
            field.error_messages["required"]
            if "type" not in data
            else field.error_messages["invalid_choice"].format(input=kind)
        )
        raise serializers.ValidationError({"type": [detail]})
    serializer = shape(data=data)
    serializer.is_valid(raise_exception=True)
    command = dict(serializer.validated_data)
    expected_version = command.pop("expected_version", None)
    return command, expected_version


# --- games: output (the shapes of games.presenters) ------------------------------------------


class _Column(serializers.ListField):
    child = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="Game")
class GameOut(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.UUIDField()
    rules = serializers.ChoiceField(choices=list(engine.RULESETS))
    seed = serializers.IntegerField(
        allow_null=True,
        help_text="null while playing (except for staff) and for games created from a deal",
    )
    owner = serializers.CharField()
    public = serializers.BooleanField()
    version = serializers.IntegerField(help_text="the seq of the game's last event")
    status = serializers.ChoiceField(choices=list(engine.STATUSES))
    blocked = serializers.BooleanField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField(help_text="moves and deals ever applied")
    undos = serializers.IntegerField()
    reserve = serializers.IntegerField(help_text="cards still in the reserve")
    removed = serializers.ListField(
        child=serializers.CharField(), help_text="suits of removed sequences, in order"
    )
    columns = serializers.ListField(
        child=_Column(), help_text="bottom to top; a face-down card is null"
    )
    cells = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        required=False,
        help_text="three_blind_mice only; an emptied cell is null",
    )
    reserve_cards = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="the reserve's cards: finished games, and staff",
    )
    challenge = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class _Flipped(serializers.Serializer):  # type: ignore[type-arg]
    column = serializers.IntegerField()
    card = serializers.CharField()


class _Removed(serializers.Serializer):  # type: ignore[type-arg]
    column = serializers.IntegerField()
    suit = serializers.CharField()


@extend_schema_serializer(component_name="Effects")
class EffectsOut(serializers.Serializer):  # type: ignore[type-arg]
    points = serializers.IntegerField(help_text="the change of score")
    flipped = _Flipped(many=True)
    removed = _Removed(many=True)
    undid = serializers.IntegerField(required=False, help_text="undone: the seq it undid")


@extend_schema_serializer(component_name="Event")
class EventOut(serializers.Serializer):  # type: ignore[type-arg]
    seq = serializers.IntegerField()
    type = serializers.ChoiceField(
        choices=[
            "created",
            "moved",
            "dealt",
            "undone",
            "restarted",
            "resigned",
            "result_voided",
            "result_restored",
        ]
    )
    data = serializers.DictField(
        help_text="created: {rules, seed, deal, …} (seed and deal null until the game is "
        "finished); moved: {from, index, to} or {cell, to}; moderation: {reason}"
    )
    by = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()
    effects = EffectsOut()


@extend_schema_serializer(component_name="CommandResult")
class CommandOut(serializers.Serializer):  # type: ignore[type-arg]
    event = EventOut()
    game = GameOut()


@extend_schema_serializer(component_name="GamePage")
class GamePageOut(serializers.Serializer):  # type: ignore[type-arg]
    results = GameOut(many=True)
    next = serializers.URLField(allow_null=True)


@extend_schema_serializer(component_name="EventPage")
class EventPageOut(serializers.Serializer):  # type: ignore[type-arg]
    results = EventOut(many=True)
    next = serializers.URLField(allow_null=True, help_text="more events follow from here")


@extend_schema_serializer(component_name="Challenge")
class ChallengeOut(serializers.Serializer):  # type: ignore[type-arg]
    date = serializers.DateField()
    rules = serializers.ChoiceField(choices=list(engine.RULESETS))
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    participants = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "closed"])
    seed = serializers.IntegerField(allow_null=True, help_text="null until the day ends")


@extend_schema_serializer(component_name="Standing")
class StandingOut(serializers.Serializer):  # type: ignore[type-arg]
    rank = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=list(engine.STATUSES))
    moves = serializers.IntegerField()
    score = serializers.IntegerField()
    sequences = serializers.IntegerField()
    revealed = serializers.IntegerField(help_text="face-down cards turned up")
    elapsed_ms = serializers.IntegerField(help_text="from joining to the last event (the win)")


@extend_schema_serializer(component_name="Standings")
class StandingsOut(serializers.Serializer):  # type: ignore[type-arg]
    results = StandingOut(many=True)


@extend_schema_serializer(component_name="Action")
class ActionOut(serializers.Serializer):  # type: ignore[type-arg]
    """A legal action: ``{type: move, from, index, to, card}``, ``{type: move, cell, to,
    card}`` or ``{type: deal}``."""

    type = serializers.ChoiceField(choices=["move", "deal"])
    from_ = serializers.IntegerField(required=False)
    index = serializers.IntegerField(required=False)
    cell = serializers.IntegerField(required=False)
    to = serializers.IntegerField(required=False)
    card = serializers.CharField(required=False)

    def get_fields(self) -> dict[str, Any]:
        return _renamed(super().get_fields(), from_="from")


@extend_schema_serializer(component_name="Moves")
class MovesOut(serializers.Serializer):  # type: ignore[type-arg]
    moves = ActionOut(many=True)


@extend_schema_serializer(component_name="Hint")
class HintOut(serializers.Serializer):  # type: ignore[type-arg]
    move = ActionOut(allow_null=True)


class _LayoutColumn(serializers.Serializer):  # type: ignore[type-arg]
    face_down = serializers.IntegerField()
    face_up = serializers.IntegerField()


@extend_schema_serializer(component_name="Ruleset")
class RulesetOut(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField()
    title = serializers.CharField()
    decks = serializers.IntegerField()
    columns = serializers.IntegerField()
    layout = _LayoutColumn(many=True)
    reserve = serializers.IntegerField()
    reserve_to = serializers.ListField(child=serializers.IntegerField())
    cells = serializers.IntegerField()
    build = serializers.ChoiceField(choices=["same_suit", "any_suit"])
    empty_column = serializers.ChoiceField(choices=["king", "any"])
    whole_column_to_empty = serializers.BooleanField()
    sequences = serializers.ChoiceField(choices=["destination", "all", "stay"])
    sequences_to_win = serializers.IntegerField()
    deal = serializers.ChoiceField(choices=["any_time", "when_stuck"])
    undo_depth = serializers.IntegerField(allow_null=True, help_text="null: unlimited")
    lose_when_blocked = serializers.BooleanField()


@extend_schema_serializer(component_name="Rules")
class RulesOut(serializers.Serializer):  # type: ignore[type-arg]
    results = RulesetOut(many=True)
    default = serializers.CharField()


@extend_schema_serializer(component_name="Error")
class ErrorOut(serializers.Serializer):  # type: ignore[type-arg]
    """Every error: a stable ``code``, a localised ``detail``, and fields named by status."""

    code = serializers.CharField()
    detail = serializers.CharField()
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="400: messages by request field (non_field_errors for the whole body)",
    )
    version = serializers.IntegerField(required=False, help_text="409: the game's current version")
