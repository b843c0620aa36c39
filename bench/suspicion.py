"""The suspicion flags calibrated on players we can run: how often the bundled hint bot's
rated wins are flagged (the target: at least 90%), and how often a simulated honest
player's rated games are (at most 2%).

    .venv/bin/python bench/suspicion.py [--games N] [--rules R]

In a fresh database the bench certifies a pool of deals, then plays N rated games for each
player through the services (games.writes.services), as the API would, each on a deal of
its own:

- **the hint bot** (clients/python/examples/hint_bot.py) plays the hint at every position:
  the server's hint from its own view (games.engine.hint, the server's samples and budget
  and line), without recording it, as a player running the solver on what they see would;
  one action every 0.4 to 0.9 s, a machine's pace through the network;
- **the honest player** follows the one-move heuristic from its own view
  (games.engine.heuristic), with 2 to 10 s of thought before each action; it gives up when
  stuck or on meeting a position a third time.

The time between actions is simulated in the events' timestamps (the clock is set for each
command), not slept. After each game the background job's work runs on it
(games.writes.evidence.evidence_record), and the bench prints each player's games, wins,
flagged games and the reasons, with the spread of the solver match and of the time a move.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import drop_database, fresh_database  # noqa: E402

MAX_ACTIONS = 400


def setup(database: str) -> None:
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
    os.environ.setdefault("SECRET_KEY", "bench-secret-key-not-for-production-0123456789abcdef")
    os.environ.setdefault("DAILY_SECRET", "bench-daily-secret-0123456789abcdef")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("POOL_FOLLOW_HINTS", "false")
    os.environ.setdefault("POOL_SOLVER_BUDGET", "20000")
    import django

    django.setup()


def play(
    player: Any, rules_name: str, *, bot: bool, draw: random.Random, start: dt.datetime
) -> Any:
    """One rated game of ``player`` to its end; the finished game's id."""
    from django.conf import settings

    from games import clock, engine
    from games.engine import heuristic
    from games.engine import hint as hints
    from games.store import streams
    from games.writes import services

    rules = engine.RULESETS[rules_name]
    at = start
    with clock.frozen(at):
        game_id = services.game_create(owner=player, rules=rules_name, rated=True).game_id
    seen: Counter[object] = Counter()
    for _ in range(MAX_ACTIONS):
        state = streams.load(game_id).state
        if state.status != engine.PLAYING:
            return game_id
        view = engine.player_view(state)
        if bot:
            action = hints.hint(
                rules,
                view,
                samples=settings.HINT_SAMPLES,
                budget=settings.HINT_SAMPLE_BUDGET,
                been=hints.line_boards(state),
            ).action
            at += dt.timedelta(seconds=draw.uniform(0.4, 0.9))
        else:
            key = (state.columns, state.down, state.reserve, state.cells)
            seen[key] += 1
            action = None if seen[key] >= 3 else heuristic.best(rules, view)
            at += dt.timedelta(seconds=draw.uniform(2.0, 10.0))
        command = {"type": "resign"} if action is None else engine.action_to_command(action)
        with clock.frozen(at):
            services.game_command(game_id=game_id, actor=player, command=command)
        if action is None:
            return game_id
    with clock.frozen(at + dt.timedelta(seconds=1)):
        services.game_command(game_id=game_id, actor=player, command={"type": "resign"})
    return game_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--keep", action="store_true", help="keep the bench's database")
    args = parser.parse_args()
    database = fresh_database("bench_suspicion")
    try:
        setup(database)
        from django.contrib.auth import get_user_model

        from games import pools
        from games.ratings import evidence
        from games.writes.evidence import evidence_record

        made = pools.fill(args.rules, 2 * args.games, max_candidates=40 * args.games)
        print(f"{args.rules}: {len(made)} deals certified for {2 * args.games} rated games")
        users = get_user_model().objects
        players = {
            "hint bot": users.create_user("hintbot", password="!"),
            "honest player": users.create_user("honest", password="!"),
        }
        draw = random.Random(2026)
        start = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
        results: dict[str, list[Any]] = {name: [] for name in players}
        for number in range(args.games):
            for name, player in players.items():
                when = start + dt.timedelta(hours=number)
                game_id = play(player, args.rules, bot=name == "hint bot", draw=draw, start=when)
                results[name].append(evidence_record(game_id))
        print(
            f"thresholds: match >= {evidence.MATCH_FLAG} over >= {evidence.MIN_POSITIONS} "
            f"non-obvious positions; pace: median < {evidence.FAST_SECONDS} s and variation < "
            f"{evidence.STEADY_CV} over >= {evidence.MIN_INTERVALS} intervals; hard win: "
            f"difficulty >= {evidence.HARD_DIFFICULTY} and match >= {evidence.HARD_MATCH}"
        )
        for name, rows in results.items():
            won = [row for row in rows if row.won]
            flagged = [row for row in rows if row.flagged]
            reasons = Counter(reason for row in flagged for reason in row.reasons)
            matches = sorted(row.match for row in rows if row.match is not None)
            paces = sorted(row.median_seconds for row in rows if row.median_seconds is not None)
            counted = sorted(row.positions for row in rows)
            print(f"\n{name}: {len(rows)} games, {len(won)} won")
            print(
                f"  flagged: {len(flagged)} of {len(rows)} games ({len(flagged) / len(rows):.0%})"
            )
            flagged_wins = sum(1 for row in won if row.flagged)
            if won:
                print(
                    f"  flagged wins: {flagged_wins} of {len(won)} ({flagged_wins / len(won):.0%})"
                )
                unpaced = sum(1 for row in won if set(row.reasons) - {"pace"})
                print(f"  flagged wins without the pace flag: {unpaced} of {len(won)}")
            print(f"  reasons: {dict(reasons)}")
            if matches:
                print(
                    f"  solver match: min {matches[0]:.2f}, median "
                    f"{statistics.median(matches):.2f}, max {matches[-1]:.2f}"
                )
            print(
                f"  positions where the solver's choice was not the obvious move: min "
                f"{counted[0]}, median {statistics.median(counted):g}, max {counted[-1]}"
            )
            if paces:
                print(
                    f"  median time a move: min {paces[0]:.2f} s, median "
                    f"{statistics.median(paces):.2f} s, max {paces[-1]:.2f} s"
                )
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            drop_database(database)


if __name__ == "__main__":
    main()
