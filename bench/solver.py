"""Solver speed per ruleset: nodes per second, median and p95 time per deal, and the share
of deals decided (won or lost) within the node budget.

    .venv/bin/python bench/solver.py [--deals N] [--budget B] [--start S] [--rules R ...]

Deals are the seeded deals S..S+N-1 of each ruleset, solved one after another in this
process (no pool), so the times are per deal on one core. The default is a quick run.

Where a card has several places to go (easy, double) the solver shares its budget with
probes (games.engine.solver): a second table solves the same deals in the same run with the
systematic search alone, as the solver did before, and prints the ratio of deals decided.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine.deals import seeded_deal  # noqa: E402
from games.engine.rules import RULESETS  # noqa: E402
from games.engine.solver import systematic  # noqa: E402
from games.engine.solver.survey import Outcome, outcomes  # noqa: E402
from games.engine.state import new_game  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=8, help="deals per ruleset (8)")
    parser.add_argument("--budget", type=int, default=20_000, help="nodes per deal (20,000)")
    parser.add_argument("--start", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--rules", nargs="*", default=list(RULESETS), choices=list(RULESETS))
    args = parser.parse_args()

    print(f"Solver benchmark: {args.deals} deals per ruleset, budget {args.budget:,} nodes\n")
    print(
        f"{'ruleset':<18}{'nodes/s':>10}{'median ms':>11}{'p95 ms':>10}"
        f"{'decided':>9}{'won':>6}{'lost':>6}{'unknown':>9}"
    )
    seeds = range(args.start, args.start + args.deals)
    decided: dict[str, int] = {}
    for name in args.rules:
        done: list[Outcome] = list(outcomes(name, seeds, args.budget, jobs=1))
        decided[name] = sum(o.verdict != "unknown" for o in done)
        seconds = [o.seconds for o in done]
        nodes = sum(o.nodes for o in done)
        won = sum(o.verdict == "won" for o in done)
        lost = sum(o.verdict == "lost" for o in done)
        unknown = len(done) - won - lost
        print(
            f"{name:<18}{nodes / max(sum(seconds), 1e-9):>10,.0f}"
            f"{statistics.median(seconds) * 1e3:>11.1f}{percentile(seconds, 0.95) * 1e3:>10.1f}"
            f"{(won + lost) / len(done):>9.0%}{won:>6}{lost:>6}{unknown:>9}"
        )
    several = [
        name for name in args.rules if RULESETS[name].decks > 1 or not RULESETS[name].same_suit
    ]
    if several:
        print("\nThe systematic search alone (no probes), same deals and budget:\n")
        print(f"{'ruleset':<18}{'decided':>9}{'won':>6}{'lost':>6}{'probes / alone':>16}")
    for name in several:
        rules = RULESETS[name]
        verdicts = [
            systematic(rules, new_game(rules, seeded_deal(rules, seed)), args.budget).verdict
            for seed in seeds
        ]
        alone = sum(v != "unknown" for v in verdicts)
        ratio = f"{decided[name] / alone:.2f}" if alone else "-"
        print(
            f"{name:<18}{alone / len(verdicts):>9.0%}{verdicts.count('won'):>6}"
            f"{verdicts.count('lost'):>6}{ratio:>16}"
        )


if __name__ == "__main__":
    main()
