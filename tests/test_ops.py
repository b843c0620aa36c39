"""Operations endpoints: /healthz, /readyz, the OpenAPI schema and the API docs page."""

import json
import logging
import re

import pytest
import yaml
from django.db import connection
from django.db.utils import OperationalError
from django.utils.timezone import now

from api.views import ops
from games import jobs
from games.store.models import JobWorker


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


@pytest.mark.django_db(transaction=True)
def test_readyz_names_the_background_work_that_is_missing_or_late(client, settings, caplog):
    settings.READYZ_JOBS = True

    with caplog.at_level(logging.INFO):
        alone = client.get("/readyz")  # no worker heartbeats at all

    assert alone.status_code == 503
    # A state the server passes through while it starts: a warning, not an error.
    assert [r.levelname for r in caplog.records if r.name == "api.views.ops"] == ["WARNING"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    body = alone.json()
    assert body["database"] == body["channel_layer"] == "ok"
    assert body["jobs"] == {"workers": "no worker heartbeats on the queues schedule, solver, mail"}
    assert "schedule, solver, mail" in body["detail"]

    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
        (every,) = cursor.fetchone()
        cursor.execute(
            "INSERT INTO procrastinate_workers (last_heartbeat)"
            " VALUES (now() - interval '1 hour') RETURNING id"
        )
        (silent,) = cursor.fetchone()
    JobWorker.objects.create(worker_id=silent, queues="solver", host="h", pid=1, started_at=now())
    JobWorker.objects.create(
        worker_id=every, queues="schedule,mail", host="h", pid=2, started_at=now()
    )

    # The solver's worker has not heartbeaten for an hour: its queue counts as uncovered.
    assert client.get("/readyz").json()["jobs"] == {
        "workers": "no worker heartbeats on the queues solver"
    }

    JobWorker.objects.filter(worker_id=every).update(queues="")  # every queue
    assert client.get("/readyz").status_code == 200
    assert client.get("/readyz").json()["jobs"] == "ok"

    jobs.fill_pools.defer()
    with connection.cursor() as cursor:  # queued ten minutes ago, and no one took it
        cursor.execute(
            "UPDATE procrastinate_events SET at = now() - interval '10 minutes'"
            " WHERE type = 'deferred'"
        )
    late = client.get("/readyz")
    assert late.status_code == 503
    assert late.json()["jobs"]["queues"].startswith(
        "the oldest due job has waited too long on solver (6"
    )

    metrics = client.get("/metrics", REMOTE_ADDR="127.0.0.1").content.decode()
    # Every due job of the queue: this one, and any that an earlier test of this database
    # left (procrastinate's tables are not Django's, so a test's flush leaves them).
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE queue_name = 'solver'"
            " AND status = 'todo' AND (scheduled_at IS NULL OR scheduled_at <= now())"
        )
        (due,) = cursor.fetchone()
    assert due >= 1 and f'scorpion_queue_jobs{{queue="solver"}} {float(due)}' in metrics
    assert re.search(r'scorpion_queue_oldest_seconds\{queue="solver"\} 6\d\d', metrics)
    assert "scorpion_job_workers 1.0" in metrics
    assert 'scorpion_pool_fill_per_minute{rules="classic"} 0.0' in metrics
