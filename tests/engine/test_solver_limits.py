"""A search ends by its deadline, in either core, and is cut at once when the process
stops (``games.engine.solver.limits``)."""

from __future__ import annotations

import time

import pytest

from games import engine
from games.engine.solver import limits, native, solve

DOUBLE = engine.RULESETS["double"]
CORES = ["python", *(["native"] if native.AVAILABLE else [])]


@pytest.mark.parametrize("core", CORES)
def test_a_search_ends_by_its_deadline_and_without_one_by_its_budget(core) -> None:
    states = [engine.new_game(DOUBLE, engine.seeded_deal(DOUBLE, seed)) for seed in range(200)]
    began, spent = time.monotonic(), time.thread_time()
    with pytest.raises(limits.Interrupted), limits.deadline(began + 0.2):
        for state in states:  # far more than 0.2 s of search
            solve(DOUBLE, state, 10**9, core=core)
    # Its own time within a second of the deadline; the clock's, with a loaded machine's
    # other work, within a few.
    assert time.thread_time() - spent < 1.2
    assert time.monotonic() - began < 5
    assert limits.current() == 0  # the block's deadline ends with it

    with limits.deadline(time.monotonic() + 60):  # far: the same answer as without one
        assert solve(DOUBLE, states[0], 2_000, core=core) == solve(
            DOUBLE, states[0], 2_000, core=core
        )
