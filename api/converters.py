"""The path converter of every text parameter of the API's routes, REST and WebSocket.

Django's ``str`` converter takes any character but ``/``: a NUL byte or another control
character then reaches a lookup, where PostgreSQL refuses it and the client would get a 500
(a 1011 close on a WebSocket). ``text`` takes none of them, so such a path matches no route:
a 404 with a code, or a 4404 close (``api.consumers.NoRoute``). No id, code, day or name
the server makes holds one.
"""

from __future__ import annotations

from django.urls import register_converter


class TextConverter:
    """Text without ``/`` or a control character (the OpenAPI document states it as the
    parameters' pattern). A lone surrogate cannot arrive: daphne decodes a path's escapes
    with U+FFFD for bytes that are not UTF-8."""

    regex = "[^/\x00-\x1f\x7f-\x9f]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TextConverter, "text")
