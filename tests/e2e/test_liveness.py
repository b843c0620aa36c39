"""``/healthz`` on a real daphne: answered on the event loop (``scorpion_server.liveness``),
so it answers while every request thread waits, and it says what Django's view says."""

from __future__ import annotations

import threading
import time

import httpx
import psycopg
import pytest

from tests.e2e.test_observability import samples, value

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_healthz_answers_while_every_request_thread_waits(
    live_server_factory, live_database_url
) -> None:
    server = live_server_factory(HTTP_THREADS="1")
    answers: list[int] = []
    with psycopg.connect(live_database_url) as locker:
        # The one request thread waits on the accounts' tables, held here.
        locker.execute("LOCK TABLE auth_user, games_player IN ACCESS EXCLUSIVE MODE")

        def held() -> None:
            held_url = f"{server.http}/api/v1/players/nobody"
            answers.append(httpx.get(held_url, timeout=60).status_code)

        waiting = threading.Thread(target=held)
        waiting.start()
        time.sleep(1.0)
        assert not answers
        # Anything Django serves now waits for that thread (so the test can fail) ...
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{server.http}/healthz", timeout=1.0)
        # ... but the probe does not.
        probe = httpx.get(f"{server.http}/healthz", timeout=5)
        assert probe.status_code == 200
        assert probe.json() == {"status": "ok"}
        assert not answers  # the thread was still held
        locker.rollback()
    waiting.join(timeout=60)
    assert answers == [404]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def test_healthz_says_what_the_django_view_says(server, client) -> None:
    fast = httpx.get(f"{server.http}/healthz", headers={"X-Request-ID": "probe-1"}, timeout=10)
    django = client.get("/healthz")

    assert fast.status_code == django.status_code == 200
    assert fast.content == django.content
    assert fast.headers["X-Request-ID"] == "probe-1"
    assert fast.headers["Cache-Control"] == "no-store"
    for name in (
        "Content-Type",
        "Content-Length",
        "X-Content-Type-Options",
        "Referrer-Policy",
        "Cross-Origin-Opener-Policy",
        "X-Frame-Options",
    ):
        assert fast.headers[name] == django.headers[name], name

    head = httpx.head(f"{server.http}/healthz", timeout=10)
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["Content-Length"] == fast.headers["Content-Length"]
    # An id that is not sane is replaced, as the middleware replaces it.
    odd = httpx.get(f"{server.http}/healthz", headers={"X-Request-ID": "a b"}, timeout=10)
    assert odd.headers["X-Request-ID"] != "a b"
    assert len(odd.headers["X-Request-ID"]) == 32
    # A probe sent to the process's own address, whatever ALLOWED_HOSTS says, is answered.
    stranger = httpx.get(f"{server.http}/healthz", headers={"Host": "10.1.2.3"}, timeout=10)
    assert stranger.status_code == 200


def test_probes_are_counted_by_route(server) -> None:
    before = value(samples(server), "scorpion_http_requests_total", route="healthz",
                   method="GET", status="200")  # fmt: skip
    for _ in range(3):
        httpx.get(f"{server.http}/healthz", timeout=10)
    after = value(samples(server), "scorpion_http_requests_total", route="healthz",
                  method="GET", status="200")  # fmt: skip
    assert after - before == 3
