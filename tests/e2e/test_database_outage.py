"""PostgreSQL stopped under a running server: /readyz within its cap, commands 503 at once.

The test starts a PostgreSQL of its own (initdb and pg_ctl from the machine's PostgreSQL
binaries) on a free port, serves from it, stops it, starts it again, and removes it: the
machine's PostgreSQL is never touched.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.postgres import PrivatePostgres, cluster

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def postgres() -> Iterator[PrivatePostgres]:
    with cluster(migrated=True) as made:
        yield made


def timed(call):
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


def test_a_stopped_database_fails_fast_and_recovers(live_server_factory, postgres) -> None:
    server = live_server_factory(serve=True, DATABASE_URL=postgres.url)
    with httpx.Client(base_url=server.http, timeout=30) as client:
        token = client.post(
            "/api/v1/auth/register", json={"username": "alice", "password": "x7-lantern-Q"}
        ).json()["token"]
        auth = {"Authorization": f"Token {token}"}
        game = client.post("/api/v1/games", json={"seed": 3}, headers=auth).json()["id"]
        assert client.get("/readyz").status_code == 200

        postgres.stop()
        try:
            readiness, readiness_took = timed(lambda: client.get("/readyz"))
            commands = [
                timed(
                    lambda key=key: client.post(
                        f"/api/v1/games/{game}/commands",
                        json={"type": "deal"},
                        headers={**auth, "Idempotency-Key": key},
                    )
                )
                for key in ("deal-1", "deal-1", "deal-1")
            ]
            listing, listing_took = timed(lambda: client.get("/api/v1/games"))
            time.sleep(1.5)  # past the trial interval: one request waits on the pool again
            later = [timed(lambda: client.get("/api/v1/games")) for _ in range(3)]
            again, again_took = timed(lambda: client.get("/readyz"))
        finally:
            postgres.start()

        assert readiness.status_code == 503 and readiness.json()["database"] == "unavailable"
        assert readiness_took < 3.5, readiness_took
        assert again.status_code == 503 and again_took < 3.5, again_took
        for answer, took in [*commands, (listing, listing_took), *later]:
            assert answer.status_code == 503, answer.text
            assert answer.json()["code"] == "unavailable"
            assert answer.headers["Retry-After"] == "5"
            assert took < 3.5, [round(took, 2) for _, took in commands]

        back = time.monotonic()
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < back + 30, "not ready again after PostgreSQL came back"
            time.sleep(0.2)
        recovered = time.monotonic() - back
        dealt = client.post(
            f"/api/v1/games/{game}/commands",
            json={"type": "deal"},
            headers={**auth, "Idempotency-Key": "deal-1"},
        )
        assert dealt.status_code == 201, dealt.text
        assert dealt.json()["game"]["version"] == 2
    print(
        "readyz",
        round(readiness_took, 2),
        "commands",
        [round(t, 2) for _, t in commands],
        "later",
        [round(t, 2) for _, t in later],
        "ready again after",
        round(recovered, 2),
    )
