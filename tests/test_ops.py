"""Operations endpoints: /healthz, /readyz, the OpenAPI schema and the API docs page."""

import json

import pytest
import yaml
from django.db.utils import OperationalError

from api.views import ops


def test_healthz_answers_without_touching_the_database(client):
    # No django_db mark: any database access in this test would raise.
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_reports_database_and_channel_layer_ok(client):
    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}


@pytest.mark.django_db
def test_readyz_round_trips_through_a_redis_channel_layer(client, settings, redis_url):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_url]},
        }
    }

    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json()["channel_layer"] == "ok"


@pytest.mark.django_db
def test_readyz_is_503_when_the_channel_layer_is_unreachable(client, settings, free_port):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{free_port}/0"]},
        }
    }

    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "unavailable"
    assert body["database"] == "ok"
    assert body["channel_layer"] == "unavailable"
    assert "channel_layer" in body["detail"]


@pytest.mark.django_db
def test_readyz_is_503_when_the_database_fails(client, monkeypatch):
    def refuse() -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(ops, "_select_one", refuse)

    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "unavailable"
    assert body["database"] == "unavailable"
    assert body["channel_layer"] == "ok"


def test_schema_is_an_openapi_3_document(client):
    as_yaml = client.get("/api/schema/")
    as_json = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert as_yaml.status_code == 200
    assert yaml.safe_load(as_yaml.content)["openapi"].startswith("3.")
    assert as_json.status_code == 200
    document = json.loads(as_json.content)
    assert document["openapi"].startswith("3.")
    assert document["info"]["title"] == "Scorpion server API"


def test_docs_page_renders_from_local_static_files(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page
    assert "cdn" not in page.lower()
