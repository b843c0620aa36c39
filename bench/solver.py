"""Solver speed per ruleset, both cores on the same deals in one run: nodes per second of
the Python core and of the native one, their ratio, median and p95 time per deal, and the
share of deals decided (won or lost) within the node budget.

    .venv/bin/python bench/solver.py [--deals N] [--budget B] [--start S] [--rounds R]
                                     [--least SECONDS] [--rules R ...]

Deals are the seeded deals S..S+N-1 of each ruleset, solved one after another in this
process (no pool), so the times are per deal on one core. The cores take turns, R rounds
each: in a round a core solves every deal once, again and again until it has spent at
least --least seconds of process time (0.05), so that the native core's round of a few
deals lost as dealt (a few microseconds each) is not lost in the clock's noise; both cores
count the same deals, each as often as its own round needs. A round's speed is its nodes
over its process time (this machine is shared: the wall clock also counts the time other
work held the core). Each core's nodes per second is the median of its rounds, and the
ratio native/Python the median of the rounds' ratios, each native round against the
Python round next to it: a burst of other work slows one pair, not the figure. Median and
p95 are wall times per deal over all rounds. Each core solves every deal once untimed
first, so that neither pays for loading its code. Both cores must give the same answers
(the bench stops if they do not: tests/engine/test_solver_native.py is where that is
tested). Without the native core built, only the Python core's figures are printed.

Where a card has several places to go (easy, double) the solver shares its budget with
probes (games.engine.solver): a second table solves the same deals in the same run with the
systematic search alone, as the solver did before, and prints the ratio of deals decided.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine.deals import seeded_deal  # noqa: E402
from games.engine.rules import RULESETS, Ruleset  # noqa: E402
from games.engine.solver import Core, Solution, native, solve, systematic  # noqa: E402
from games.engine.state import State, new_game  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def one_round(rules: Ruleset, states: list[State], budget: int, core: Core, least: float) -> Round:
    """Every deal solved in ``core``, the whole list again until ``least`` seconds of
    process time have gone: the answers of the first pass, each solve's wall time, the
    nodes of all passes and their process time."""
    answers: list[Solution] = []
    walls: list[float] = []
    nodes = 0
    cpu = time.process_time()
    spent = 0.0
    while not answers or spent < least:
        for state in states:
            started = time.perf_counter()
            solution = solve(rules, state, budget, core=core)
            walls.append(time.perf_counter() - started)
            nodes += solution.nodes
            if len(answers) < len(states):
                answers.append(solution)
        spent = time.process_time() - cpu
    return answers, walls, nodes / max(spent, 1e-9)


#: A round: the answers, each solve's wall time, nodes per second of process time.
Round = tuple[list[Solution], list[float], float]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=8, help="deals per ruleset (8)")
    parser.add_argument("--budget", type=int, default=20_000, help="nodes per deal (20,000)")
    parser.add_argument("--start", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every deal (5)")
    parser.add_argument(
        "--least",
        type=float,
        default=0.05,
        help="seconds of process time a round takes at least (0.05)",
    )
    parser.add_argument("--rules", nargs="*", default=list(RULESETS), choices=list(RULESETS))
    args = parser.parse_args()

    cores: list[Core] = ["python", "native"] if native.AVAILABLE else ["python"]
    print(
        f"Solver benchmark: {args.deals} deals per ruleset, budget {args.budget:,} nodes, "
        f"median of {args.rounds} rounds of at least {args.least} s; cores: {', '.join(cores)}\n"
    )
    header = f"{'ruleset':<18}{'core':<8}{'nodes/s':>12}{'median ms':>11}{'p95 ms':>10}"
    print(f"{header}{'decided':>9}{'won':>6}{'lost':>6}{'unknown':>9}{'native/python':>15}")
    seeds = range(args.start, args.start + args.deals)
    decided: dict[str, int] = {}
    for name in args.rules:
        rules = RULESETS[name]
        states = [new_game(rules, seeded_deal(rules, seed)) for seed in seeds]
        for core in cores:
            for state in states:  # untimed: load the code
                solve(rules, state, args.budget, core=core)
        rounds: dict[Core, list[Round]] = {core: [] for core in cores}
        for number in range(args.rounds):
            for core in cores if number % 2 else cores[::-1]:
                rounds[core].append(one_round(rules, states, args.budget, core, args.least))
        answers = rounds["python"][0][0]
        if len(cores) == 2 and any(done[0] != answers for done in rounds["native"]):
            sys.exit(f"{name}: the cores disagree; run tests/engine/test_solver_native.py")
        won = sum(s.verdict == "won" for s in answers)
        lost = sum(s.verdict == "lost" for s in answers)
        unknown = len(answers) - won - lost
        decided[name] = won + lost
        for core in cores:
            walls = [wall for done in rounds[core] for wall in done[1]]
            speed = statistics.median(done[2] for done in rounds[core])
            ratio = ""
            if core == "native":
                pairs = zip(rounds["native"], rounds["python"], strict=True)
                ratio = f"{statistics.median(n[2] / p[2] for n, p in pairs):.1f}x"
            print(
                f"{name:<18}{core:<8}{speed:>12,.0f}"
                f"{statistics.median(walls) * 1e3:>11.2f}{percentile(walls, 0.95) * 1e3:>10.2f}"
                f"{(won + lost) / len(answers):>9.0%}{won:>6}{lost:>6}{unknown:>9}{ratio:>15}"
            )
    several = [
        name for name in args.rules if RULESETS[name].decks > 1 or not RULESETS[name].same_suit
    ]
    if several:
        print(f"\nThe systematic search alone (no probes), same deals and budget, {cores[-1]}:\n")
        print(f"{'ruleset':<18}{'decided':>9}{'won':>6}{'lost':>6}{'probes / alone':>16}")
    for name in several:
        rules = RULESETS[name]
        verdicts = [
            systematic(
                rules, new_game(rules, seeded_deal(rules, seed)), args.budget, core=cores[-1]
            ).verdict
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
