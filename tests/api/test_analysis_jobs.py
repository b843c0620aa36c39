"""The post-game analysis off the request path: a request searches a few thousand nodes at
most; a game that needs more is a job on the solver queue (202, poll the same URL), run by a
real procrastinate worker, stored once; each caller has a cap on analyses in flight (429
solver_busy), anonymous callers by address."""

from __future__ import annotations

import json
import threading
import uuid

import pytest
from django.core.cache import cache
from django.db import connection
from procrastinate.contrib.django import app

from games import engine
from games.store.models import GameAnalysis
from games.writes import analysis as analysis_writes

CLASSIC = engine.RULESETS["classic"]
#: Classic seeds the solver does not decide in 1 node (most deals are lost at the root).
UNDECIDED = (0, 13, 22, 29, 46, 67)


def jobs(task: str = "analyse") -> list[dict]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT queue_name, status::text, args, lock, queueing_lock FROM procrastinate_jobs"
            " WHERE task_name = %s ORDER BY id",
            [task],
        )
        names = [column.name for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:
        row["args"] = json.loads(row["args"]) if isinstance(row["args"], str) else row["args"]
    return rows


def resigned(client, seed: int, rules: str = "classic") -> str:
    game = client.post("/api/v1/games", {"rules": rules, "seed": seed}).json()["id"]
    assert client.post(f"/api/v1/games/{game}/commands", {"type": "resign"}).status_code == 201
    return game


def run_solver_worker() -> None:
    """A real worker on the solver queue (on its own connection, as ``manage.py worker``
    runs it), until the queue is empty."""
    with app.replace_connector(app.connector.get_worker_connector()) as worker_app:
        worker_app.run_worker(
            queues=["solver"], wait=False, install_signal_handlers=False, listen_notify=False
        )


@pytest.fixture(autouse=True)
def _no_pools(settings):
    """The worker these tests run may also start the periodic jobs: no pool to fill."""
    settings.POOL_RULES = []


@pytest.fixture(autouse=True)
def _empty_queue(django_db_setup, django_db_blocker):
    """No job of another test: the queue's tables are not models, which Django flushes."""

    def empty() -> None:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("TRUNCATE procrastinate_jobs CASCADE")

    empty()
    yield
    empty()


@pytest.fixture
def tiny_inline(settings):
    """Requests may search 1 node: every undecided deal becomes a job."""
    settings.ANALYSIS_INLINE_NODES = 1


@pytest.mark.django_db
def test_a_game_decided_within_the_inline_bound_is_answered_at_once(as_alice) -> None:
    game = resigned(as_alice, 1)  # classic seed 1 is lost as dealt

    response = as_alice.get(f"/api/v1/games/{game}/analysis")

    assert response.status_code == 200
    assert response.json()["winnable"] is False and response.json()["decided"] is True
    assert response.json()["nodes"] <= 5_000 + 5_000
    assert jobs() == []


@pytest.mark.django_db(transaction=True)
def test_a_costly_analysis_is_a_job_polled_until_stored(tiny_inline, as_alice, alice) -> None:
    game = resigned(as_alice, 0)  # winnable: more than 1 node to prove

    first = as_alice.get(f"/api/v1/games/{game}/analysis")
    again = as_alice.get(f"/api/v1/games/{game}/analysis")

    assert first.status_code == 202
    assert first.json() == {"status": "pending", "game": game, "retry_after": 2}
    assert first["Location"] == f"/api/v1/games/{game}/analysis"
    assert first["Retry-After"] == "2"
    assert again.status_code == 202
    (job,) = jobs()  # asking again queued nothing more
    assert job["queue_name"] == "solver" and job["status"] == "todo"
    assert job["args"] == {"game_id": game, "requester": f"account:{alice[0].pk}"}
    assert job["lock"] == job["queueing_lock"] == f"analysis:{game}"
    assert not GameAnalysis.objects.exists()

    run_solver_worker()

    assert [job["status"] for job in jobs()] == ["succeeded"]
    done = as_alice.get(f"/api/v1/games/{game}/analysis")
    assert done.status_code == 200
    body = done.json()
    assert body["winnable"] is True and body["decided"] is True
    assert body["lost_at"] is None and body["last_winnable"] == 2  # resigned while winnable
    actions = [engine.action_from_command(command) for command in body["line"]]
    assert engine.replay(CLASSIC, engine.seeded_deal(CLASSIC, 0), actions).status == engine.WON
    assert GameAnalysis.objects.get(game_id=uuid.UUID(game)).nodes == body["nodes"]


@pytest.mark.django_db(transaction=True)
def test_each_account_has_a_cap_on_analyses_in_flight(tiny_inline, settings, as_alice, as_bob):
    settings.SOLVER_MAX_IN_FLIGHT = 2
    games = [resigned(as_alice, seed) for seed in UNDECIDED[:3]]
    assert [as_alice.get(f"/api/v1/games/{g}/analysis").status_code for g in games[:2]] == [
        202,
        202,
    ]

    refused = as_alice.get(f"/api/v1/games/{games[2]}/analysis")

    assert refused.status_code == 429
    assert refused.json()["code"] == "solver_busy"
    assert int(refused["Retry-After"]) > 0
    assert len(jobs()) == 2
    # Another account is not held by alice's cap; alice's pending games still answer 202.
    assert as_bob.get(f"/api/v1/games/{games[2]}/analysis").status_code == 202
    assert as_alice.get(f"/api/v1/games/{games[0]}/analysis").status_code == 202
    run_solver_worker()
    assert as_alice.get(f"/api/v1/games/{games[2]}/analysis").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_cannot_pass_the_cap_together(tiny_inline, settings, as_alice, api):
    settings.SOLVER_MAX_IN_FLIGHT = 2
    games = [resigned(as_alice, seed) for seed in UNDECIDED[:6]]
    # Each quick search already tried and undecided: the requests race for the queue alone,
    # not for the account's one solver search at a time (games.reads.solver_work).
    for game in games:
        cache.set(analysis_writes._undecided_key(uuid.UUID(game)), True)
    barrier = threading.Barrier(len(games))
    codes: list[int] = []

    def ask(game: str) -> None:
        try:
            barrier.wait()
            codes.append(as_alice.get(f"/api/v1/games/{game}/analysis").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(game,)) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [202, 202, 429, 429, 429, 429]
    assert len(jobs()) == 2


@pytest.mark.django_db(transaction=True)
def test_anonymous_callers_are_capped_by_address(tiny_inline, settings, as_alice, api) -> None:
    settings.SOLVER_MAX_IN_FLIGHT = 1
    games = [resigned(as_alice, seed) for seed in UNDECIDED[:2]]

    assert api.get(f"/api/v1/games/{games[0]}/analysis").status_code == 202
    refused = api.get(f"/api/v1/games/{games[1]}/analysis")

    assert refused.status_code == 429 and refused.json()["code"] == "solver_busy"
    assert jobs()[0]["args"]["requester"] == "address:127.0.0.1"
    assert as_alice.get(f"/api/v1/games/{games[1]}/analysis").status_code == 202


@pytest.mark.django_db
def test_a_game_in_play_queues_nothing(tiny_inline, as_alice, api) -> None:
    game = as_alice.post("/api/v1/games", {"seed": 0}).json()["id"]
    for client in (as_alice, api):
        assert client.get(f"/api/v1/games/{game}/analysis").status_code == 409
    assert jobs() == []


def hold_the_solver(caller: str, seconds: float) -> threading.Thread:
    """A search of ``seconds`` for ``caller`` in the solver pool, on a thread of its own,
    returned once it holds its place and the caller's turn."""
    import time

    from django.core.cache import cache

    from games.reads import solver_work

    thread = threading.Thread(
        target=solver_work.run, args=(time.sleep, seconds), kwargs={"caller": caller}
    )
    thread.start()
    deadline = time.monotonic() + 10
    while cache.get(f"solver-turn:{caller}") is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return thread


@pytest.mark.django_db
def test_past_the_process_bound_hints_and_analyses_answer_503_at_once(settings, as_alice) -> None:
    settings.SOLVER_PROCESSES, settings.SOLVER_QUEUE, settings.SOLVER_WAIT_MS = 1, 0, 20_000
    game = resigned(as_alice, 1)
    playing = as_alice.post("/api/v1/games", {"seed": 2}).json()["id"]
    finished = resigned(as_alice, 2)

    thread = hold_the_solver("account:somebody-else", 2.0)
    try:
        analysis = as_alice.get(f"/api/v1/games/{game}/analysis")
        hint = as_alice.get(f"/api/v1/games/{playing}/hint")
        finished_hint = as_alice.get(f"/api/v1/games/{finished}/hint")
    finally:
        thread.join()
    for refused in (analysis, hint):
        assert refused.status_code == 503 and refused.json()["code"] == "solver_overloaded"
        assert refused["Retry-After"] == "1"
    assert finished_hint.status_code == 200  # a finished game's hint searches nothing
    assert as_alice.get(f"/api/v1/games/{game}/analysis").status_code == 200
    assert as_alice.get(f"/api/v1/games/{playing}/hint").status_code == 200


@pytest.mark.django_db
def test_one_solver_request_at_a_time_per_account(settings, alice, as_alice, as_bob) -> None:
    settings.SOLVER_WAIT_MS = 20_000
    mine = as_alice.post("/api/v1/games", {"seed": 3}).json()["id"]
    public = as_bob.post("/api/v1/games", {"seed": 4}).json()["id"]

    thread = hold_the_solver(f"account:{alice[0].pk}", 2.0)
    try:
        busy = as_alice.get(f"/api/v1/games/{mine}/hint")
        other = as_bob.get(f"/api/v1/games/{public}/hint")
    finally:
        thread.join()
    assert busy.status_code == 429 and busy.json()["code"] == "solver_busy"
    assert busy["Retry-After"] == "1"
    assert other.status_code == 200
    assert as_alice.get(f"/api/v1/games/{mine}/hint").status_code == 200


@pytest.mark.django_db
def test_past_the_accounts_rate_429_and_when_to_come_back(settings, as_alice) -> None:
    settings.SOLVER_RATE = "2/minute"
    games = [as_alice.post("/api/v1/games", {"seed": seed}).json()["id"] for seed in (5, 6, 7)]
    for game in games[:2]:
        assert as_alice.get(f"/api/v1/games/{game}/hint").status_code == 200
    refused = as_alice.get(f"/api/v1/games/{games[2]}/hint")
    assert refused.status_code == 429 and refused.json()["code"] == "solver_throttled"
    assert 55 <= int(refused["Retry-After"]) <= 60
    assert (
        as_alice.in_language("it").get(f"/api/v1/games/{games[2]}/hint").json()["detail"]
        != (refused.json()["detail"])
    )
    # A hint already computed costs no search: it is answered past the rate.
    assert as_alice.get(f"/api/v1/games/{games[0]}/hint").status_code == 200
