"""Solver work for requests (``games.reads.solver_work``): in a pool of processes of its own,
at a lower priority, one search at a time per caller within a rate, and a bounded number
per process; past any bound a refusal at once, never a queue that grows."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from games.errors import SolverBusy, SolverOverloaded, SolverThrottled
from games.reads import solver_work


@pytest.fixture(autouse=True)
def _small_pool(settings) -> Iterator[None]:
    settings.SOLVER_PROCESSES = 1
    settings.SOLVER_QUEUE = 1
    settings.SOLVER_WAIT_MS = 5_000
    settings.SOLVER_RATE = None
    cache.clear()
    yield
    cache.clear()


def in_background(task: Any, *args: Any, caller: str) -> tuple[threading.Thread, list[Any]]:
    """``solver_work.run(task, *args)`` on a thread of its own; its result or error."""
    got: list[Any] = []

    def work() -> None:
        try:
            got.append(solver_work.run(task, *args, caller=caller))
        except Exception as error:
            got.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    return thread, got


def until_running(caller: str) -> None:
    """Wait until ``caller``'s turn is taken (their search is in the pool)."""
    deadline = time.monotonic() + 10
    while cache.get(f"solver-turn:{caller}") is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_the_search_runs_in_a_process_of_its_own_at_a_lower_priority(settings) -> None:
    settings.SOLVER_NICE = 7
    assert solver_work.run(os.getpid, caller="account:1") != os.getpid()
    assert solver_work.run(os.nice, 0, caller="account:1") == os.nice(0) + 7


def test_what_the_task_raises_is_raised_and_ends_the_turn() -> None:
    with pytest.raises(ValueError):
        solver_work.run(int, "not a number", caller="account:1")
    assert solver_work.run(int, "12", caller="account:1") == 12


def test_one_search_at_a_time_per_caller_others_go_on() -> None:
    thread, got = in_background(time.sleep, 1.0, caller="account:1")
    until_running("account:1")
    with pytest.raises(SolverBusy) as busy:
        solver_work.run(os.getpid, caller="account:1")
    assert busy.value.status == 429 and busy.value.retry_after == 1
    assert solver_work.run(abs, -3, caller="account:2") == 3  # the queue's place
    thread.join()
    assert got == [None]
    assert solver_work.run(abs, -4, caller="account:1") == 4


def test_past_the_rate_a_429_says_when_the_next_may_pass(settings) -> None:
    settings.SOLVER_RATE = "2/minute"
    for _ in range(2):
        solver_work.run(abs, 1, caller="account:1")
    with pytest.raises(SolverThrottled) as throttled:
        solver_work.run(abs, 1, caller="account:1")
    assert throttled.value.status == 429 and 55 <= throttled.value.retry_after <= 60
    assert solver_work.run(abs, 1, caller="account:2") == 1


def test_past_the_pool_and_its_queue_a_503_at_once(settings) -> None:
    settings.SOLVER_QUEUE = 0
    thread, got = in_background(time.sleep, 1.0, caller="account:1")
    until_running("account:1")
    started = time.monotonic()
    with pytest.raises(SolverOverloaded) as overloaded:
        solver_work.run(abs, 1, caller="account:2")
    assert time.monotonic() - started < 0.5  # refused, not queued
    assert overloaded.value.status == 503 and overloaded.value.retry_after == 1
    thread.join()
    assert got == [None] and solver_work.run(abs, 1, caller="account:2") == 1


def test_a_late_answer_is_a_503_and_the_caller_waits_for_the_search_to_end(settings) -> None:
    settings.SOLVER_WAIT_MS = 200
    started = time.monotonic()
    with pytest.raises(SolverOverloaded):
        solver_work.run(time.sleep, 1.0, caller="account:1")
    assert time.monotonic() - started < 0.9
    with pytest.raises(SolverBusy):  # the search still runs: still their turn
        solver_work.run(abs, 1, caller="account:1")
    deadline = time.monotonic() + 10
    while cache.get("solver-turn:account:1") is not None:  # until the search ends
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert solver_work.run(abs, 1, caller="account:1") == 1


def test_a_process_that_dies_costs_its_search_not_the_pool() -> None:
    with pytest.raises(SolverOverloaded):
        solver_work.run(os._exit, 1, caller="account:1")
    assert solver_work.run(abs, -5, caller="account:1") == 5


def test_a_solver_process_imports_nothing_of_the_server() -> None:
    from games import engine
    from games.engine import hint

    rules = engine.RULESETS["classic"]
    view = engine.player_view(engine.new_game(rules, engine.seeded_deal(rules, 3)))
    found = solver_work.run(hint.hint, rules, view, caller="account:1", samples=8)
    assert found.samples == 8
    loaded = "sorted(m for m in __import__('sys').modules if m.split('.')[0] in %r)"
    servers = ("django", "rest_framework", "channels", "psycopg", "api", "scorpion_server")
    assert solver_work.run(eval, loaded % (servers,), caller="account:1") == []
