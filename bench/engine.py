"""Engine speed: replay throughput, legal-action generation, and a 1,000-action replay
against database round trips measured in the same run.

    .venv/bin/python bench/engine.py [--quick]

The machine is shared and noisy, so every figure is the median of several rounds and
the headline numbers are ratios against baselines taken in the same run:

* one ``SELECT 1`` round trip on the project's database (``DATABASE_URL``, else the
  embedded PostgreSQL), the cheapest thing a request can ask the database;
* fetching 1,000 event-sized rows in one query, the round trip that hands a replay its
  events.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import (  # noqa: E402
    RULESETS,
    Action,
    Restart,
    Undo,
    apply,
    legal_actions,
    new_game,
    replay,
    seeded_deal,
)
from games.engine.state import State  # noqa: E402


def random_game(rules_name: str, length: int, seed: int) -> tuple[tuple[int, ...], list[Action]]:
    """One long random game: legal moves and deals, some undos, and a restart whenever an
    action would end the game (so that a game of any length exists in every ruleset)."""
    rules = RULESETS[rules_name]
    rng = random.Random(seed)
    deal = seeded_deal(rules, seed)
    state = new_game(rules, deal)
    actions: list[Action] = []
    while len(actions) < length:
        legal = legal_actions(state)
        action: Action = Restart()
        if legal and rng.random() > 0.06:
            action = rng.choice(legal)
        elif state.previous and state.undo_budget:
            action = Undo()
        after = apply(state, action)[0]
        if after.status != "playing":
            action = Restart()
            after = apply(state, action)[0]
        state = after
        actions.append(action)
    return deal, actions


def median_seconds(run: Callable[[], object], rounds: int, repeat: int) -> float:
    """Median over ``rounds`` of the mean time of ``repeat`` calls."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        samples.append((time.perf_counter() - start) / repeat)
    return statistics.median(samples)


def positions_of(rules_name: str, deal: tuple[int, ...], actions: list[Action]) -> list[State]:
    rules = RULESETS[rules_name]
    state = new_game(rules, deal)
    states = [state]
    for action in actions:
        state = apply(state, action)[0]
        states.append(state)
    return states


def database_baselines(rounds: int) -> tuple[float, float, str]:
    """(``SELECT 1`` round trip, fetching 1,000 event rows) in seconds, and the database."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
    os.environ.setdefault("DEBUG", "1")
    import django
    from django.db import connection

    django.setup()
    with connection.cursor() as cursor:

        def select_one() -> None:
            cursor.execute("SELECT 1")
            cursor.fetchone()

        def fetch_events() -> None:
            cursor.execute(
                "SELECT g, %s::uuid, 'moved', jsonb_build_object('from', g %% 7 + 1, "
                "'index', g %% 5, 'to', (g + 3) %% 7 + 1), now() "
                "FROM generate_series(1, 1000) AS g",
                ["6f1c0c3e-0000-4000-8000-000000000000"],
            )
            assert len(cursor.fetchall()) == 1000

        select_one()
        round_trip = median_seconds(select_one, rounds, 200)
        fetch = median_seconds(fetch_events, rounds, 10)
    settings = connection.settings_dict
    where = f"{settings['NAME']} on {settings['HOST'] or 'local socket'}"
    return round_trip, fetch, where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke run)")
    parser.add_argument("--no-db", action="store_true", help="skip the database baselines")
    args = parser.parse_args()
    rounds = 3 if args.quick else 7
    length = 2000 if args.quick else 10000

    print(f"Scorpion engine benchmark (median of {rounds} rounds)\n")
    print(f"{'ruleset':<18}{'replay actions/s':>18}{'legal_actions calls/s':>24}")
    for name in ("classic", "cards4", "traditional", "wasp", "three_blind_mice", "double"):
        rules = RULESETS[name]
        deal, actions = random_game(name, length, seed=7)
        per_replay = median_seconds(lambda: replay(rules, deal, actions), rounds, 1)  # noqa: B023
        sample = positions_of(name, deal, actions)[:: max(1, length // 500)]
        per_legal = median_seconds(
            lambda: [legal_actions(s) for s in sample],  # noqa: B023
            rounds,
            1,
        ) / len(sample)
        print(f"{name:<18}{len(actions) / per_replay:>18,.0f}{1 / per_legal:>24,.0f}")

    rules = RULESETS["classic"]
    deal, actions = random_game("classic", 1000, seed=11)
    thousand = median_seconds(lambda: replay(rules, deal, actions), rounds, 5)
    print(f"\nreplay of one 1,000-action classic game: {thousand * 1e3:.3f} ms")
    if args.no_db:
        return
    round_trip, fetch, where = database_baselines(rounds)
    print(f"database ({where}):")
    print(f"  SELECT 1 round trip:              {round_trip * 1e6:9.1f} us")
    print(f"  fetch 1,000 event rows:           {fetch * 1e3:9.3f} ms")
    print(f"ratio replay(1,000) / SELECT 1 round trip:   {thousand / round_trip:8.2f}")
    print(f"ratio replay(1,000) / fetch of its events:   {thousand / fetch:8.2f}")


if __name__ == "__main__":
    main()
