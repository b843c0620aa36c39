"""Renderers beyond JSON: the game notation (docs/notation.md)."""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import BaseRenderer

from games.reads import selectors


class NotationRenderer(BaseRenderer):
    """A game in the notation, asked for with ``Accept: text/x-scorpion`` or
    ``?format=scorpion``. It renders the text a view answers; errors stay JSON (the view
    that offers it answers them with the JSON renderer)."""

    media_type = selectors.NOTATION_MEDIA_TYPE
    format = "scorpion"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        assert isinstance(data, str), "only a game's text renders as the notation"
        return data.encode()
