"""The AsyncAPI 3.0 document of the WebSocket feeds (docs/api.md#websocket), served at
``/api/asyncapi.json`` beside the OpenAPI document.

It is made from what the server sends, not written by hand: the channels are the routes of
``api.routing``, the messages the frames of ``games.live`` (``FEEDS``, each frame's fields),
and the bodies they carry (a Game, an Event, a Race, a standings row …) are the schemas of
the OpenAPI document, copied in as JSON Schema (OpenAPI 3.0's ``nullable`` becomes a
``null`` type), so that the REST and WebSocket contracts cannot drift apart.
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.generators import SchemaGenerator

from api.exceptions import error_body
from games import live

#: Each feed's channel: its address and its parameters (docs/api.md#websocket).
_CHANNELS: dict[live.Feed, tuple[str, dict[str, str], str]] = {
    "game": (
        "/ws/games/{game}/",
        {"game": "the game's id"},
        "One game, event by event: ?after=N resumes after event N, ?watchers=1 adds counts.",
    ),
    "challenge": (
        "/ws/challenges/{date}/",
        {"date": "a UTC day, YYYY-MM-DD, or today"},
        "A daily challenge's standings.",
    ),
    "race": (
        "/ws/races/{race}/",
        {"race": "the race's id or short code"},
        "A race's countdown, start, standings and finish.",
    ),
    "arena": (
        "/ws/arenas/{arena}/",
        {"arena": "the arena's id"},
        "An arena's start, standings and finish.",
    ),
}

#: What a client may send on any feed.
_PING: dict[str, Any] = {
    "type": "object",
    "properties": {"type": {"type": "string", "const": "ping"}},
    "required": ["type"],
}


def _json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable: true`` becomes a ``null`` type."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            return {"anyOf": [out, {"type": "null"}]}
    return out


def _referenced(schemas: dict[str, Any], roots: list[Any]) -> dict[str, Any]:
    """The OpenAPI schemas that ``roots`` refer to, directly or not."""
    names: set[str] = set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in names:
                    names.add(name)
                    todo.append(schemas[name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return {name: _json_schema(schemas[name]) for name in sorted(names)}


def _message_name(feed: str, frame_type: str) -> str:
    return f"{feed}.{frame_type}"


@functools.cache
def document() -> dict[str, Any]:
    """The AsyncAPI document (made once per process; the caller must not change it)."""
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]
    openapi = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    messages: dict[str, Any] = {
        "ping": {
            "name": "ping",
            "title": "ping",
            "summary": "Keep-alive; also makes the feed look for anything a relay dropped.",
            "payload": _PING,
        }
    }
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    for feed, (address, parameters, description) in _CHANNELS.items():
        names = []
        for frame in live.FEEDS[feed]:
            name = _message_name(feed, frame.TYPE)
            names.append(name)
            messages[name] = {
                "name": frame.TYPE,
                "title": frame.TYPE,
                "summary": frame.SUMMARY,
                "payload": live.frame_schema(frame, feed),
            }
        channels[feed] = {
            "address": address,
            "description": description,
            "parameters": {key: {"description": text} for key, text in parameters.items()},
            "messages": {
                **{name: {"$ref": f"#/components/messages/{name}"} for name in names},
                "ping": {"$ref": "#/components/messages/ping"},
            },
        }
        operations[f"{feed}.frames"] = {
            "action": "send",
            "channel": {"$ref": f"#/channels/{feed}"},
            "summary": f"What the server sends on the {feed} feed.",
            "messages": [{"$ref": f"#/channels/{feed}/messages/{name}"} for name in names],
        }
        operations[f"{feed}.ping"] = {
            "action": "receive",
            "channel": {"$ref": f"#/channels/{feed}"},
            "summary": "A client's ping, answered with pong.",
            "messages": [{"$ref": f"#/channels/{feed}/messages/ping"}],
        }
    payloads = [message["payload"] for message in messages.values()]
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": f"{settings.SPECTACULAR_SETTINGS['TITLE']}: live feeds",
            "version": str(settings.SPECTACULAR_SETTINGS["VERSION"]),
            "description": "The WebSocket feeds (docs/api.md#websocket). Every frame is a "
            "JSON text frame whose type names it. Close codes: 4001 the rights the socket "
            "was opened with ended (reconnect), 4400 bad request, 4401 bad credentials, 4403 "
            "not allowed, 4404 not found, 4429 over a limit, 4503 not ready, 1009 message "
            "too large.",
        },
        "defaultContentType": "application/json",
        "channels": channels,
        "operations": operations,
        "components": {
            "messages": messages,
            "schemas": _referenced(openapi["components"]["schemas"], payloads),
        },
    }


@csrf_exempt  # any other method is a 405 in the API's shape, not a CSRF failure
def asyncapi_view(request: HttpRequest) -> HttpResponse:
    """``GET /api/asyncapi.json``: the document, as JSON (other methods: 405
    ``method_not_allowed``, as everywhere under ``/api/``)."""
    if request.method not in ("GET", "HEAD"):
        refused = JsonResponse(error_body("method_not_allowed"), status=405)
        refused["Allow"] = "GET, HEAD"
        return refused
    return JsonResponse(document(), json_dumps_params={"ensure_ascii": False})
