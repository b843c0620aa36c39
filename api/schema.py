"""OpenAPI helpers shared by the views' ``@extend_schema`` declarations."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

from api.serializers import ErrorOut

_MEANINGS = {
    400: "malformed request: code `invalid`, with `fields` {name: [messages]}",
    401: "not authenticated (`not_authenticated`, `authentication_failed`, `invalid_credentials`)",
    403: "not allowed (`not_owner`, `private_game`, `challenge_in_progress`, "
    "`challenge_closed`, `banned`, `permission_denied`)",
    404: "no such resource (`not_found`)",
    409: "`version_conflict` or `stale_card`; `version` is the game's current version",
    422: "a rule refused the action (a rejection code of RULES.md), or `idempotency_key_reused`",
    429: "throttled (`throttled`); see the `Retry-After` header",
    503: "the database is unavailable (`unavailable`); retry after `Retry-After` seconds",
}


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """Error responses for ``@extend_schema(responses=…)``: the given statuses, plus 429 and
    503, which any operation may answer."""
    wanted = sorted({*statuses, 429, 503})
    return {
        status: OpenApiResponse(response=ErrorOut, description=_MEANINGS[status])
        for status in wanted
    }
