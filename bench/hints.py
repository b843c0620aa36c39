"""Hints from the player's view: their latency, and how often following them wins.

    .venv/bin/python bench/hints.py [--deals N] [--first SEED] [--samples K] [--budget B]
                                    [--full-budget B] [--workers W] [--rules R]

On the deals of seeds ``first .. first + N - 1`` of a ruleset (``classic`` unless
``--rules`` names another), in one run:

- **full information**: the solver with every card known (``--full-budget`` nodes a deal)
  says whether the deal can be won at all: the ceiling for any player;
- **hint follower**: a player who always plays ``GET /hint``'s move, computed as the server
  computes it (``games.engine.hint.advise`` on the player's view, K samples of
  ``--budget`` nodes each), until the game is won, no hint is left, a position comes back
  a third time (a loop), or 300 actions;
- **heuristic follower**: the same player following today's one-move heuristic
  (``games.engine.heuristic``).

Printed: each player's wins and win rate, hint wins over full-information wins (target
>= 0.5), and the hint's latency over every position the hint follower met: median, p95
(target <= 500 ms at K = 32) and max, measured in the process that computed it, in wall
clock and in that process's CPU time (what the hint costs when the machine is shared). The hint
is computed in-process: the HTTP path adds the read of the game's row and the cache.
``--workers`` plays deals in parallel processes (latency is then measured under that load).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import engine  # noqa: E402
from games.engine import heuristic  # noqa: E402
from games.engine import hint as hints  # noqa: E402
from games.engine.solver import solve  # noqa: E402

MAX_ACTIONS = 300
#: A position met this many times means the follower is going round in circles.
LOOP = 3


@dataclass
class Outcome:
    """One deal: the full-information verdict, whether each follower won, and the hint's
    latencies (seconds) along the hint follower's game."""

    seed: int
    full: str
    heuristic_won: bool
    latencies: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    solver_hints: int = 0
    hints: int = 0
    #: How the hint follower's game ended: won, none (no hint left), loop or long.
    hint_end: str = ""

    @property
    def hint_won(self) -> bool:
        return self.hint_end == "won"


def _key(state: engine.State) -> Hashable:
    return (state.columns, state.down, state.reserve, state.cells)


def follow(
    rules: engine.Ruleset, seed: int, samples: int, budget: int, *, sampled: bool
) -> tuple[str, list[float], list[float], int]:
    """Play the deal of ``seed`` following the hint; how the game ended (``won``, ``none``
    when no hint is left, ``loop`` or ``long``), the latency of each hint (wall clock, and
    CPU time of this process), and how many hints the solver (not the fallback) chose."""
    state = engine.new_game(rules, engine.seeded_deal(rules, seed))
    seen: Counter[Hashable] = Counter()
    latencies: list[float] = []
    cpu: list[float] = []
    solver_hints = 0
    end = "long"
    for _ in range(MAX_ACTIONS):
        if state.status == engine.WON:
            return "won", latencies, cpu, solver_hints
        seen[_key(state)] += 1
        if seen[_key(state)] >= LOOP:
            end = "loop"
            break
        view = engine.player_view(state)
        started = time.perf_counter()
        started_cpu = time.process_time()
        action: engine.Action | None
        if sampled:
            found = hints.hint(rules, view, samples=samples, budget=budget)
            action = found.action
            solver_hints += found.source == "solver"
        else:
            action = heuristic.best(rules, view)
        latencies.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        if action is None:
            end = "none"
            break
        state = engine.apply(state, action)[0]
    return end, latencies, cpu, solver_hints


def play_deal(job: tuple[str, int, int, int, int]) -> Outcome:
    name, seed, samples, budget, full_budget = job
    rules = engine.RULESETS[name]
    deal = engine.new_game(rules, engine.seeded_deal(rules, seed))
    full = solve(rules, deal, full_budget).verdict
    hint_end, latencies, cpu, solver_hints = follow(rules, seed, samples, budget, sampled=True)
    heuristic_won = follow(rules, seed, samples, budget, sampled=False)[0] == "won"
    return Outcome(
        seed,
        full,
        heuristic_won,
        latencies,
        cpu,
        solver_hints,
        len(latencies),
        hint_end,
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--samples", type=int, default=hints.SAMPLES)
    parser.add_argument("--budget", type=int, default=hints.SAMPLE_BUDGET)
    parser.add_argument("--full-budget", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rules", default="classic", choices=sorted(engine.RULESETS))
    args = parser.parse_args()
    jobs = [
        (args.rules, seed, args.samples, args.budget, args.full_budget)
        for seed in range(args.first, args.first + args.deals)
    ]
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            for outcome in pool.imap_unordered(play_deal, jobs):
                outcomes.append(outcome)
                print(_line(outcome), flush=True)
    else:
        for job in jobs:
            outcome = play_deal(job)
            outcomes.append(outcome)
            print(_line(outcome), flush=True)
    elapsed = time.perf_counter() - started
    deals = len(outcomes)
    full = sum(o.full == "won" for o in outcomes)
    unknown = sum(o.full == "unknown" for o in outcomes)
    hinted = sum(o.hint_won for o in outcomes)
    heuristic = sum(o.heuristic_won for o in outcomes)
    latencies = [latency for o in outcomes for latency in o.latencies]
    cpu = [latency for o in outcomes for latency in o.cpu]
    solver_share = sum(o.solver_hints for o in outcomes) / max(1, sum(o.hints for o in outcomes))
    print()
    print(
        f"{args.rules} seeds {args.first}..{args.first + deals - 1}: {deals} deals, "
        f"K = {args.samples} samples x {args.budget} nodes; {elapsed:.0f} s"
    )
    print(f"  full information : {full:3d} won ({full / deals:.1%}), {unknown} unknown")
    ends = Counter(o.hint_end for o in outcomes if o.hint_end != "won")
    print(
        f"  hint follower    : {hinted:3d} won ({hinted / deals:.1%}); the others ended "
        + ", ".join(f"{reason} {count}" for reason, count in sorted(ends.items()))
    )
    print(f"  heuristic        : {heuristic:3d} won ({heuristic / deals:.1%})")
    ratio = hinted / full if full else float("nan")
    print(f"  hints / full information: {ratio:.2f} (target >= 0.5)")
    print(
        f"  hint latency over {len(latencies)} positions: median "
        f"{statistics.median(latencies) * 1000:.0f} ms, p95 "
        f"{percentile(latencies, 0.95) * 1000:.0f} ms (target <= 500), max "
        f"{max(latencies) * 1000:.0f} ms; the solver chose {solver_share:.0%} of the hints"
    )
    print(
        f"  hint CPU time (this process only, whatever else loads the machine): median "
        f"{statistics.median(cpu) * 1000:.0f} ms, p95 {percentile(cpu, 0.95) * 1000:.0f} ms"
    )


def _line(outcome: Outcome) -> str:
    p95 = percentile(outcome.latencies, 0.95) * 1000 if outcome.latencies else 0.0
    hint = f"{outcome.hint_end:5s}"
    return (
        f"seed {outcome.seed:5d}: full {outcome.full:7s} hint {hint}"
        f"heuristic {'won' if outcome.heuristic_won else '-'}  "
        f"({outcome.hints} hints, p95 {p95:.0f} ms)"
    )


if __name__ == "__main__":
    main()
