"""The OpenAPI document and the code agree, checked by schemathesis.

For every operation of the served document, schemathesis generates requests that the
document allows (positive) and requests it does not (negative), sends them to a real
daphne process, and runs every check it has on each answer: no 500, a documented status,
content type and headers, a body valid against the document, allowed data accepted and
disallowed data refused, 405 with ``Allow`` for a method the path does not take, and
authentication not ignored. A document looser or stricter than the validation fails here.

The examples per operation are bounded (``SCHEMATHESIS_EXAMPLES``, default 12 for each
mode) so the whole run stays near a minute on a loaded machine.
"""

from __future__ import annotations

import os
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.test import override_settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    ignored_auth,
    missing_required_header,
    negative_data_rejection,
    not_a_server_error,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from games.dailies import challenges
from games.writes import accounts, puzzles, services
from tests.e2e.conftest import E2E_DAILY_SECRET
from tests.puzzle_helpers import POSITIONS, make_puzzle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "12"))


#: Every check that applies to one request and its answer (the stateful ones, such as
#: use_after_free, need links between operations, which the document does not declare).
@schemathesis.check
def not_a_server_error_but_an_empty_pool(ctx: Any, response: Any, case: Any) -> bool | None:
    """``not_a_server_error``, but for ``POST /games`` answering 503 ``pool_empty``: a
    winnable or rated game of a ruleset whose pool nothing fills here, which the document
    names (retry after ``Retry-After``), not a fault."""
    empty = response.status_code == 503 and b'"pool_empty"' in response.content
    if empty and case.operation.path == "/api/v1/games":
        return None
    return not_a_server_error(ctx, response, case)


CHECKS = [
    not_a_server_error_but_an_empty_pool,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
    missing_required_header,
    unsupported_method,
    ignored_auth,
]

#: Rules that JSON Schema cannot state, so data the document allows may still be refused
#: with 400 (each named in the document's descriptions): a registration's password must not
#: be common or too like the username (a new password likewise), and the username must not
#: be taken; a game's deal
#: must be a complete deck for its ruleset. Only for those operations, and only the
#: "allowed data is accepted" check is left out; every other check still runs on them.
#: Likewise a race's start must be in the future and not too far (it depends on the time of
#: the request), and a leaderboard's ``at`` must name a month or week that exists, of the
#: period's kind. A reset or verification link's token is only what an email carried (any
#: other is 400 ``link_invalid``), and Django's check of an email address is stricter than
#: JSON Schema's ``email`` format.
SEMANTIC_400 = {
    ("POST", "/api/v1/auth/register"),
    ("POST", "/api/v1/auth/password"),
    ("POST", "/api/v1/auth/password/reset"),
    ("POST", "/api/v1/auth/password/reset/confirm"),
    ("POST", "/api/v1/auth/email"),
    ("POST", "/api/v1/auth/email/verify"),
    ("POST", "/api/v1/games"),
    ("POST", "/api/v1/races"),
    ("POST", "/api/v1/arenas"),
    ("GET", "/api/v1/leaderboards/{scope}/{metric}"),
}


@pytest.fixture(scope="module")
def server(live_server_factory):
    # Throttles off: thousands of generated requests are not an attack.
    # The public log's stream ends within a second, so that every example gets its answer.
    return live_server_factory(
        THROTTLE_ANON="off",
        THROTTLE_USER="off",
        THROTTLE_AUTH="off",
        LOG_LEVEL="ERROR",
        LOG_STREAM_SECONDS="1",
        LOG_POLL_SECONDS="0.2",
    )


@pytest.fixture(scope="module")
def api_schema(server):
    schema = schemathesis.openapi.from_url(f"{server.http}/api/schema/?format=json")
    # A well-formed command that the rules refuse is a 422, not a malformed request.
    schema.config.checks.positive_data_acceptance.expected_statuses = [
        "2xx",
        "3xx",
        "401",
        "403",
        "404",
        "409",
        "422",
        "429",
    ]
    return schema


@pytest.fixture
def player(django_user_model) -> tuple[str, str, str]:
    """A player's token, a public game of theirs and a puzzle attempt of theirs, which half
    of the runs of each operation with a ``game_id`` (or an ``attempt``) name, so that
    commands, moves and reads reach a real game and a real attempt."""
    user = django_user_model.objects.create_user("schemathesis", password="pw-schema-123")
    game = services.game_create(owner=user, rules="classic", seed=7)
    with override_settings(DAILY_SECRET=E2E_DAILY_SECRET):  # today, as the server's job would
        challenges.prepare(challenges.today())
    for name in POSITIONS:
        make_puzzle(name)
    attempt = puzzles.puzzle_next(player=user)
    puzzles.puzzle_days_prepare()
    return accounts.key_issue(user=user), str(game.game_id), str(attempt.id)


@pytest.fixture
def revocable(django_user_model) -> Any:
    """Makes keys of another account, for the operations that revoke the key they get."""
    user = django_user_model.objects.create_user("revoker", password="pw-revoker-123")
    return lambda: accounts.key_issue(user=user)


def test_the_api_keeps_to_its_document(
    api_schema: Any, server: Any, player: Any, revocable: Any
) -> None:
    token, game_id, attempt_id = player
    failures: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) == 75
    for operation in operations:
        checks = CHECKS
        if (operation.method.upper(), operation.path) in SEMANTIC_400:
            checks = [check for check in CHECKS if check is not positive_data_acceptance]
        fixed: list[dict[str, Any] | None] = [None]
        if "game_id" in operation.path:
            fixed.append({"game_id": game_id})
        if "{attempt}" in operation.path:
            fixed.append({"attempt": attempt_id})
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            for path_parameters in fixed:
                strategy = operation.as_strategy(mode, path_parameters=path_parameters)
                if mode is GenerationMode.POSITIVE and _takes_cursor(operation):
                    # A cursor is opaque: only a previous page's ``next`` makes a valid one,
                    # and any other is refused (400), as the document says.
                    strategy = strategy.filter(
                        lambda case: not {"cursor", "after"} & set(case.query or {})
                    )
                label = f"{operation.method.upper()} {operation.path} ({mode.value})"
                # Revoking a key would revoke the one every other run uses: these runs get
                # a key of their own.
                key = revocable() if operation.method.upper() == "DELETE" else token
                failure = _run(strategy, server.http, key, checks)
                if failure is not None:
                    failures.append(f"{label}: {failure}")
    assert not failures, "\n\n".join(failures)


def _takes_cursor(operation: Any) -> bool:
    """Whether the operation takes a cursor: ``cursor``, or the public log's ``after``."""
    names = {parameter.name for parameter in operation.query}
    return "cursor" in names or (operation.path.startswith("/api/v1/log") and "after" in names)


def _run(strategy: Any, base_url: str, token: str, checks: list[Any]) -> str | None:
    """Run the examples of one strategy; the first failure, shrunk, as text."""

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate, hypothesis.Phase.shrink],
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.given(case=strategy)
    def run(case: Any) -> None:
        case.call_and_validate(
            base_url=base_url, headers={"Authorization": f"Token {token}"}, checks=checks
        )

    try:
        run()
    except hypothesis.errors.Unsatisfiable:
        return None  # nothing to generate: an operation without input has no negative case
    except (Exception, BaseExceptionGroup) as error:  # schemathesis raises its failures
        return f"{type(error).__name__}: {error}"
    return None
