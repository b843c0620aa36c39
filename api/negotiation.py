"""Content negotiation that answers the common case at once.

Every API view renders JSON only. DRF's negotiation parses the ``Accept`` header on every
request to pick among renderers; a request that accepts JSON (or anything, or says nothing)
is answered here without that, and every other one goes through DRF's own negotiation
(which answers 406 when nothing acceptable is on offer).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

_ANY_JSON = frozenset({"", "*/*", "application/json"})


class JsonFirstNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> Any:
        renderers = list(renderers)
        first = renderers[0] if renderers else None
        accept = request.META.get("HTTP_ACCEPT", "").strip()
        if (
            first is not None
            and first.media_type == "application/json"
            and format_suffix is None
            and accept in _ANY_JSON
            and "format" not in request.query_params
        ):
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)
