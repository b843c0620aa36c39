"""Cross-origin clients (django-cors-headers): off by default; the origins that
``CORS_ALLOWED_ORIGINS`` names may call ``/api/`` from a browser, with the API's headers."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from scorpion_server.env import env_origins

pytestmark = pytest.mark.django_db

APP = "https://app.example"


def preflight(client, path: str, origin: str):
    return client.options(
        path,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )


def test_no_origin_is_allowed_by_default(client):
    response = client.get("/api/v1/rules", HTTP_ORIGIN=APP)

    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Origin" not in preflight(client, "/api/v1/games", APP)


def test_an_allowed_origin_calls_the_api_with_its_headers(client, settings):
    settings.CORS_ALLOWED_ORIGINS = [APP]

    ahead = preflight(client, "/api/v1/games/x/commands", APP)
    response = client.get("/api/v1/rules", HTTP_ORIGIN=APP)

    assert ahead.status_code == 200 and ahead["Access-Control-Allow-Origin"] == APP
    allowed = {name.strip() for name in ahead["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "x-request-id"} <= allowed
    assert response["Access-Control-Allow-Origin"] == APP
    exposed = {name.strip() for name in response["Access-Control-Expose-Headers"].split(",")}
    assert {"x-request-id", "retry-after", "idempotent-replayed"} <= exposed
    assert "Access-Control-Allow-Credentials" not in response  # keys, never cookies


def test_other_origins_and_other_paths_get_nothing(client, settings):
    settings.CORS_ALLOWED_ORIGINS = [APP]

    other = client.get("/api/v1/rules", HTTP_ORIGIN="https://evil.example")
    page = client.get("/healthz", HTTP_ORIGIN=APP)

    assert "Access-Control-Allow-Origin" not in other
    assert "Access-Control-Allow-Origin" not in page


@pytest.mark.parametrize("value", ["app.example", "https://app.example/path", "ftp://x", "*"])
def test_a_bad_origin_stops_the_server_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("CORS_ALLOWED_ORIGINS", f"{APP},{value}")

    with pytest.raises(ImproperlyConfigured, match="CORS_ALLOWED_ORIGINS"):
        env_origins("CORS_ALLOWED_ORIGINS")


def test_origins_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("CORS_ALLOWED_ORIGINS", f" {APP} , http://localhost:5173 ,")

    assert env_origins("CORS_ALLOWED_ORIGINS") == [APP, "http://localhost:5173"]


def test_an_allowed_origins_pages_may_open_feeds(settings):
    from urllib.parse import urlparse

    from api.ws_auth import BrowserOriginValidator

    settings.CORS_ALLOWED_ORIGINS = [APP]
    validator = BrowserOriginValidator(application=None)

    assert validator.valid_origin(urlparse(APP))
    assert not validator.valid_origin(urlparse("https://evil.example"))
