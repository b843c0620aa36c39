"""The error shape for everything that is not a domain refusal: unknown URLs, methods,
media types, malformed and oversized bodies, sessions without CSRF, a database outage, and
Django's own error views (400, 403, 404, 500) under ``/api/``."""

import json

import psycopg
import pytest
from django.db import InterfaceError, OperationalError, connection
from django.test import Client
from django.utils import translation
from psycopg_pool import PoolTimeout

from api import exceptions
from api.messages import message
from api.views.games import RulesListApi
from games.writes import services

pytestmark = pytest.mark.django_db


def error(response) -> dict:
    assert response["Content-Type"] == "application/json", response.content
    body: dict = json.loads(response.content)
    assert {"code", "detail"} <= set(body)
    # Every error names its request, as the X-Request-ID header does; compared apart (the
    # ``api`` client of conftest checked and removed it already).
    assert body.pop("request_id", response["X-Request-ID"]) == response["X-Request-ID"]
    return body


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nothing",
        "/api/v1/games/",
        "/api/v1/rules/",
        "/api/v2/games",
        "/api/",
        "/api/v1/games/6f1c/states/x",
        "/api/v1/games/6f1c/states/-1",
    ],
)
def test_unknown_api_urls_are_json_404(api, path):
    response = api.get(path)

    assert response.status_code == 404
    assert error(response) == {"code": "not_found", "detail": "Not found."}


def test_unknown_urls_outside_the_api_keep_django_pages(client):
    response = client.get("/nothing-here")

    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("delete", "/api/v1/games", "GET, POST"),
        ("put", "/api/v1/rules", "GET"),
        ("get", "/api/v1/auth/token", "POST"),
        ("patch", "/api/v1/games/6f1c3e4a-0000-4000-8000-000000000000", "GET"),
    ],
)
def test_wrong_methods_are_405(method, path, allow):
    response = getattr(Client(), method)(path)

    assert response.status_code == 405
    assert error(response) == {
        "code": "method_not_allowed",
        "detail": "This method is not allowed here.",
    }
    assert allow in response["Allow"]


def test_a_body_that_is_not_json_is_415(as_alice):
    response = as_alice.client.post(
        "/api/v1/games",
        data="seed=1",
        content_type="application/x-www-form-urlencoded",
        headers=as_alice.headers(None),
    )

    assert response.status_code == 415
    assert error(response)["code"] == "unsupported_media_type"


def test_asking_for_html_is_406(api):
    response = api.get("/api/v1/rules", headers={"Accept": "text/html"})

    assert response.status_code == 406
    assert error(response)["code"] == "not_acceptable"


@pytest.mark.parametrize("raw", [b"{", b'{"seed": 1,}', b"\xff\xfe", b"NaN-ish"])
def test_malformed_json_is_400_with_a_body_field(as_alice, raw):
    response = as_alice.post("/api/v1/games", raw=raw)

    assert response.status_code == 400
    assert error(response) == {
        "code": "invalid",
        "detail": "The request is not valid; see fields.",
        "fields": {"body": ["The body is not valid JSON."]},
    }


def test_a_one_megabyte_body_is_413_not_500(as_alice, alice, sample_deal):
    game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id
    huge = json.dumps({"type": "deal", "padding": "x" * 1_000_000}).encode()

    for path in ("/api/v1/games", f"/api/v1/games/{game_id}/commands", "/api/v1/auth/register"):
        response = as_alice.post(path, raw=huge)
        assert response.status_code == 413, path
        assert error(response) == {
            "code": "too_large",
            "detail": "The request body is larger than 65536 bytes.",
        }


def test_a_body_just_under_the_limit_is_parsed(as_alice):
    body = json.dumps({"seed": 1, "x": "y" * (65536 - 30)}).encode()
    assert len(body) <= 65536

    response = as_alice.post("/api/v1/games", raw=body)

    assert response.status_code == 400
    assert response.json()["fields"] == {"x": ["Unknown field."]}


def test_a_session_post_without_csrf_token_is_403_json(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice[0])

    response = browser.post("/api/v1/games", data="{}", content_type="application/json")

    assert response.status_code == 403
    assert error(response)["code"] == "permission_denied"


def wrapped(django_error, driver_error):
    """What Django raises when psycopg fails under it: its own class, caused by psycopg's."""
    error = django_error(*driver_error.args)
    error.__cause__ = driver_error
    return error


@pytest.mark.parametrize(
    "failure",
    [
        wrapped(OperationalError, psycopg.OperationalError("connection refused")),
        wrapped(InterfaceError, psycopg.InterfaceError("the connection is lost")),
        wrapped(OperationalError, PoolTimeout("couldn't get a connection after 10.00 sec")),
        psycopg.OperationalError("server closed the connection unexpectedly"),
    ],
    ids=["operational", "interface", "pool-timeout", "unwrapped"],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/games"),
        ("get", "/api/v1/players/alice"),
        ("post", "/api/v1/auth/token"),
    ],
)
def test_a_database_outage_is_503_with_retry_after(api, alice, failure, method, path):
    def refuse(execute, sql, params, many, context):
        raise failure

    with connection.execute_wrapper(refuse):
        if method == "get":
            response = api.get(path)
        else:
            response = api.post(path, {"username": "alice", "password": "pw-alice-123"})

    assert response.status_code == 503
    assert error(response) == {
        "code": "unavailable",
        "detail": "The service is unavailable right now; try again shortly.",
    }
    assert response["Retry-After"] == "5"


def test_a_database_outage_during_a_command_is_503(as_alice, alice, sample_deal):
    game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id

    def refuse(execute, sql, params, many, context):
        if "INSERT INTO games_event" in sql or 'INSERT INTO "games_event"' in sql:
            raise wrapped(OperationalError, psycopg.OperationalError("server closed"))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(refuse):
        response = as_alice.post(f"/api/v1/games/{game_id}/commands", {"type": "deal"})

    assert response.status_code == 503
    assert error(response)["code"] == "unavailable"
    with connection.execute_wrapper(lambda execute, *args: execute(*args)):
        retried = as_alice.post(f"/api/v1/games/{game_id}/commands", {"type": "deal"})
    assert retried.status_code == 201 and retried.json()["event"]["seq"] == 2


# --- Django's own error views answer the API's shape under /api/ -----------------------------


@pytest.mark.parametrize("path", ["/api/v2/games", "/api/", "/api/schema/x", "/api/docs/x"])
def test_unknown_api_urls_are_json_404_with_debug_on_too(client, settings, path):
    settings.DEBUG = True

    response = client.get(path)

    assert response.status_code == 404
    assert error(response) == {"code": "not_found", "detail": "Not found."}


def test_a_bug_under_the_api_is_a_json_500_with_its_code(client, monkeypatch):
    """Django's ``handler500``, reached by an exception no handler maps (a bug)."""

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(RulesListApi, "get", broken)
    client.raise_request_exception = False

    response = client.get("/api/v1/rules", HTTP_ACCEPT_LANGUAGE="it")

    assert response.status_code == 500
    with translation.override("it"):
        assert error(response) == {"code": "server_error", "detail": message("server_error")}


def test_a_bad_host_under_the_api_is_a_json_400(client, settings):
    """Django's ``handler400`` (``DisallowedHost`` is raised before any view)."""
    settings.ALLOWED_HOSTS = ["scorpion.example"]

    response = client.get("/api/v1/rules", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert error(response)["code"] == "invalid"


@pytest.mark.parametrize(
    ("view", "status", "code"),
    [
        (exceptions.bad_request, 400, "invalid"),
        (exceptions.permission_denied, 403, "permission_denied"),
        (exceptions.not_found, 404, "not_found"),
    ],
)
def test_djangos_error_views_answer_the_api_shape_under_api(rf, view, status, code):
    request = rf.get("/api/v1/anything")

    response = view(request, Exception())

    assert response.status_code == status and response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert body["code"] == code and isinstance(body["detail"], str)


def test_djangos_error_views_keep_their_pages_elsewhere(rf):
    request = rf.get("/games/x")
    for view in (exceptions.bad_request, exceptions.permission_denied, exceptions.not_found):
        assert not view(request, Exception())["Content-Type"].startswith("application/json")
    assert not exceptions.server_error(request)["Content-Type"].startswith("application/json")


def test_the_asyncapi_document_is_json_and_other_methods_are_a_json_405(client):
    assert client.get("/api/asyncapi.json").json()["asyncapi"].startswith("3.")

    response = client.post("/api/asyncapi.json")

    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert error(response)["code"] == "method_not_allowed"
