"""JSON in and out, safe for any input: bodies, WebSocket frames and error messages.

Python's parser recurses once per nesting level and raises ``RecursionError`` (not a
``ValueError``) around a thousand levels deep, and it turns a ``\\ud800`` escape into a
string that cannot be encoded as UTF-8, so a message that echoes it (an unknown key, a bad
choice) fails to render, and PostgreSQL cannot store it. :func:`loads` refuses both before
anything else sees the value: JSON nested deeper than :data:`MAX_DEPTH` is refused before
it is parsed, and text holding a lone surrogate once it is. The renderer escapes anything
it cannot encode, as a last line of defence.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rest_framework import parsers, renderers
from rest_framework.exceptions import ValidationError

from api import messages

#: Deepest nesting of arrays and objects accepted (every shape of the API needs 3).
MAX_DEPTH = 32

#: Escapes inside strings (skipped whole), quotes, and brackets.
_TOKENS = re.compile(r'\\.|["\[\]{}]', re.DOTALL)
#: The escape of a UTF-16 surrogate: only those can make a lone one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class BadJson(ValueError):
    """Text that is not JSON the API accepts; ``reason`` is the field message to show."""

    def __init__(self, reason: Any) -> None:
        super().__init__(str(reason))
        self.reason = reason


def _strict_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def depth(text: str) -> int:
    """How deeply ``text``'s arrays and objects nest (brackets inside strings not counted),
    read without parsing and without recursion."""
    deepest = level = 0
    in_string = False
    for token in _TOKENS.finditer(text):
        char = token.group()
        if char == '"':
            in_string = not in_string
        elif in_string or len(char) > 1:
            continue
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def loads(text: str) -> Any:
    """The value of JSON ``text``; :class:`BadJson` if it is malformed, nested deeper than
    :data:`MAX_DEPTH`, or holds a lone surrogate."""
    if depth(text) > MAX_DEPTH:
        raise BadJson(messages.TOO_DEEP % {"depth": MAX_DEPTH})
    try:
        value = json.loads(text, parse_constant=_strict_constant)
    except (ValueError, RecursionError):
        raise BadJson(messages.MALFORMED_JSON) from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            raise BadJson(messages.LONE_SURROGATE) from None
    return value


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with :func:`loads`: 400 ``invalid`` with ``fields.body``."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
        try:
            text = stream.read().decode(encoding) if stream is not None else ""
            return loads(text)
        except UnicodeDecodeError:
            raise ValidationError({"body": [messages.MALFORMED_JSON]}) from None
        except BadJson as error:
            raise ValidationError({"body": [error.reason]}) from None


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer; text UTF-8 cannot carry (a lone surrogate) goes out escaped."""

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return _AsciiJSONRenderer().render(data, accepted_media_type, renderer_context)


class _AsciiJSONRenderer(renderers.JSONRenderer):
    ensure_ascii = True
