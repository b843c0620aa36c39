"""Reads that may lag, on a real streaming replica: a private primary, a replica of it made
with ``pg_basebackup -R``, and a daphne process with ``DATABASE_REPLICA_URL``.

The tests share the pair and the server (a module's fixtures) and run in order: the replica
paused (anonymous reads stale, the writer's fresh, a new game's link found, the replica
skipped past ``REPLICA_MAX_LAG``), then stopped (reads fall back, no 5xx).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from games import engine
from tests.e2e.players import register
from tests.e2e.postgres import PrivatePostgres, cluster, replica_of

pytestmark = pytest.mark.e2e

MAX_LAG = 1.5


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[PrivatePostgres, PrivatePostgres]]:
    with cluster(migrated=True) as primary, replica_of(primary) as replica:
        yield primary, replica


@pytest.fixture(scope="module")
def server(live_server_factory, pair):
    primary, replica = pair
    return live_server_factory(
        DATABASE_URL=primary.url,
        DATABASE_REPLICA_URL=replica.url,
        REPLICA_MAX_LAG=str(MAX_LAG),
        REPLICA_CHECK_SECONDS="0.1",
    )


def sql(url: str, query: str) -> Any:
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(query).fetchone()
        return None if row is None else row[0]


def metric(base: str, name: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    found = re.search(rf"^{re.escape(name)} ([0-9.e+-]+|NaN|\+Inf)$", text, re.M)
    assert found, f"{name} not in /metrics"
    return float(found.group(1))


def caught_up(pair: tuple[PrivatePostgres, PrivatePostgres], server: Any) -> None:
    """Until the replica has replayed all the primary wrote, and the server uses it."""
    primary, replica = pair
    target = sql(primary.url, "SELECT pg_current_wal_lsn()::text")
    deadline = time.monotonic() + 20
    while (
        sql(replica.url, f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn") is not True
        or metric(server.http, "scorpion_replica_up") != 1
    ):
        assert time.monotonic() < deadline, "the replica did not catch up"
        time.sleep(0.05)


def test_a_paused_replica_serves_stale_reads_to_others_and_fresh_ones_to_the_writer(
    server, pair
) -> None:
    primary, replica = pair
    alice = register(server.http, "alice")
    anonymous = httpx.Client(base_url=server.http, timeout=30)
    rules = engine.RULESETS["classic"]
    moves = [
        engine.action_to_command(action)
        for action in engine.legal_line(rules, engine.seeded_deal(rules, 21), 3)
    ]
    game = alice.post("/api/v1/games", json={"seed": 21}).json()["id"]
    path = f"/api/v1/games/{game}"
    assert alice.post(f"{path}/commands", json=moves[0]).status_code == 201
    caught_up(pair, server)
    replica_reads = metric(server.http, 'scorpion_replica_reads_total{side="replica"}')
    assert anonymous.get(path).json()["version"] == 2
    assert metric(server.http, 'scorpion_replica_reads_total{side="replica"}') > replica_reads

    sql(replica.url, "SELECT pg_wal_replay_pause()")
    paused_at = time.monotonic()
    try:
        assert alice.post(f"{path}/commands", json=moves[1]).status_code == 201
        fresh_game = alice.post("/api/v1/games", json={"seed": 22}).json()["id"]
        # Within REPLICA_MAX_LAG: others read the replica as it was; the writer reads its
        # own write; a link to the game made a moment ago is found (on the primary).
        stale = anonymous.get(path)
        mine = alice.get(path)
        retried = metric(server.http, 'scorpion_replica_reads_total{side="retried"}')
        linked = anonymous.get(f"/api/v1/games/{fresh_game}")
        assert time.monotonic() - paused_at < MAX_LAG, "too slow to see the replica lag"
        assert stale.status_code == 200 and stale.json()["version"] == 2
        assert mine.status_code == 200 and mine.json()["version"] == 3
        assert linked.status_code == 200, linked.text
        assert metric(server.http, 'scorpion_replica_reads_total{side="retried"}') > retried

        # Past REPLICA_MAX_LAG the replica is skipped: everyone reads the primary.
        deadline = time.monotonic() + 10
        while metric(server.http, "scorpion_replica_up") != 0:
            assert time.monotonic() < deadline, "the lagging replica was not skipped"
            time.sleep(0.1)
        assert metric(server.http, "scorpion_replica_lag_seconds") > MAX_LAG
        assert anonymous.get(path).json()["version"] == 3
        assert sql(replica.url, "SELECT pg_is_wal_replay_paused()") is True
    finally:
        sql(replica.url, "SELECT pg_wal_replay_resume()")
    caught_up(pair, server)
    assert anonymous.get(path).json()["version"] == 3


def test_a_stopped_replica_falls_back_to_the_primary_without_a_5xx(server, pair) -> None:
    primary, replica = pair
    alice = register(server.http, "bob")
    game = alice.post("/api/v1/games", json={"seed": 5}).json()["id"]
    caught_up(pair, server)
    anonymous = httpx.Client(base_url=server.http, timeout=30)
    paths = [f"/api/v1/games/{game}", "/api/v1/games", "/api/v1/log", "/api/v1/players/bob"]
    replica.stop()
    answers = []
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:  # at once, and after the server noticed
        answers += [anonymous.get(path).status_code for path in paths]
    assert set(answers) == {200}, answers
    assert metric(server.http, "scorpion_replica_up") == 0
