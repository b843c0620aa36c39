"""Fixtures of the REST API tests: users with tokens, and a client that checks every answer.

Every response the ``api`` client receives for ``/api/v1/`` is validated against the
OpenAPI document the server serves, when the schema documents its status: the schema is
tested by every test, not by a sample.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.test import Client
from openapi_core import Config, OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse
from openapi_core.deserializing.media_types.util import plain_loads

from api import ws_limits
from games.store import streams
from games.writes import accounts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Registration and token tests hash many passwords; the real hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """No throttle counts, open-socket counts or cached streams carry over from another
    test (a communicator a test leaves open never disconnects)."""
    cache.clear()
    streams.cache.clear()
    ws_limits.reset()
    yield
    cache.clear()
    streams.cache.clear()
    ws_limits.reset()


@pytest.fixture(scope="session")
def openapi() -> Any:
    """The OpenAPI document the server serves, ready to validate responses (the game
    notation, ``text/x-scorpion``, and the public log's stream, ``application/x-ndjson``,
    are text to it, as ``text/plain`` is)."""
    client = Client()
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    text = Config(
        extra_media_type_deserializers={
            "text/x-scorpion": plain_loads,
            "application/x-ndjson": plain_loads,
            "application/gzip": lambda data: data.decode("latin-1"),  # bytes, as a string
        }
    )
    return OpenAPI.from_dict(json.loads(response.content), config=text)


def operation_of(openapi: Any, response: Any) -> tuple[str, str] | None:
    """The documented ``(path, method)`` that answered ``response`` with a documented
    status, or ``None``."""
    request = response.wsgi_request
    match = request.resolver_match
    if match is None or not request.path.startswith("/api/v1/"):
        return None
    path = "/api/v1/" + _openapi_route(match.route.removeprefix("api/v1/"))
    method = request.method.lower()
    item = openapi.spec / "paths"
    if path not in item or method not in item / path:
        return None
    if str(response.status_code) not in item / path / method / "responses":
        return None
    return path, method


def _openapi_route(route: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


class Api:
    """The Django test client speaking JSON, as one user (or anonymously), checking every
    answer with a documented status against the OpenAPI document."""

    def __init__(
        self,
        openapi: Any,
        token: str | None = None,
        language: str | None = None,
        validated: list[tuple[str, str, int]] | None = None,
    ):
        self.client = Client()
        self.openapi = openapi
        self.token = token
        self.language = language
        #: ``(path, method, status)`` of every response validated, shared by copies.
        self.validated = [] if validated is None else validated

    def as_user(self, token: str | None) -> Api:
        return Api(self.openapi, token, self.language, self.validated)

    def in_language(self, language: str) -> Api:
        return Api(self.openapi, self.token, language, self.validated)

    def headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {}
        if self.token is not None:
            headers["Authorization"] = f"Token {self.token}"
        if self.language is not None:
            headers["Accept-Language"] = self.language
        headers.update(extra or {})
        return headers

    def get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        return self.check(self.client.get(path, headers=self.headers(headers)))

    def post(
        self,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Any:
        data = raw if raw is not None else json.dumps({} if body is None else body)
        response = self.client.post(
            path, data=data, content_type="application/json", headers=self.headers(headers)
        )
        return self.check(response)

    def put(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        response = self.client.put(
            path,
            data=json.dumps(body),
            content_type="application/json",
            headers=self.headers(headers),
        )
        return self.check(response)

    def delete(self, path: str, headers: dict[str, str] | None = None) -> Any:
        return self.check(self.client.delete(path, headers=self.headers(headers)))

    def check(self, response: Any) -> Any:
        empty = False
        if getattr(response, "is_async", False):  # a stream: read it whole, then check it
            chunks = async_to_sync(_collect)(response.streaming_content)
            response.streaming_content = iter(chunks)
            # An empty download (one's data with no game) is a whole answer, which the
            # validator takes for a missing body.
            empty = not any(chunks) and not response.get("Content-Type", "").startswith(
                "application/json"
            )
        assert response.status_code != 500, response.content if not response.streaming else ""
        operation = operation_of(self.openapi, response)
        if operation is not None and not empty:
            self.openapi.validate_response(
                _RequestWithoutBody(response.wsgi_request), DjangoOpenAPIResponse(response)
            )
            self.validated.append((*operation, response.status_code))
        return _without_request_id(response)


async def _collect(chunks: Any) -> list[bytes]:
    return [chunk async for chunk in chunks]


def _without_request_id(response: Any) -> Any:
    """Every error body names its request (``request_id``, the ``X-Request-ID`` header of the
    answer): checked here for every answer, then left out so that tests compare the rest."""
    if response.status_code < 400 or response.get("Content-Type") != "application/json":
        return response
    body = json.loads(response.content)
    if isinstance(body, dict) and "code" in body:
        assert body.pop("request_id") == response["X-Request-ID"], body
        response.content = json.dumps(body).encode()
        if hasattr(response, "_json"):
            del response._json
    return response


class _RequestWithoutBody(DjangoOpenAPIRequest):
    """Only responses are validated: never read the request body (it may be one that the
    server refused as too large)."""

    @property
    def body(self) -> bytes:
        return b""


@pytest.fixture
def api(openapi) -> Api:
    """An anonymous client."""
    return Api(openapi)


@pytest.fixture
def player(django_user_model):
    """Make a player: ``player("carol", is_staff=True)`` gives ``(user, token key)``."""

    def make(name: str, **extra: Any) -> tuple[Any, str]:
        user = django_user_model.objects.create_user(name, password=f"pw-{name}-123", **extra)
        return user, accounts.key_issue(user=user)

    return make


@pytest.fixture
def alice(player):
    return player("alice")


@pytest.fixture
def bob(player):
    return player("bob")


@pytest.fixture
def staff(player):
    return player("root", is_staff=True)


@pytest.fixture
def as_alice(api, alice) -> Api:
    return api.as_user(alice[1])


@pytest.fixture
def as_bob(api, bob) -> Api:
    return api.as_user(bob[1])


@pytest.fixture
def as_staff(api, staff) -> Api:
    return api.as_user(staff[1])


@pytest.fixture(scope="session")
def sample_deal() -> list[str]:
    """The sample deal printed in the rules: its first move (2, 5 → 7) is legal."""
    return list(json.loads((FIXTURES / "seed_deal.json").read_text())["deal"])
