"""The native solver core against the Python one on many deals: the full differential.

    .venv/bin/python bench/solver_differential.py [--deals N] [--start S] [--budget B]
                                                  [--rules R ...]

For each ruleset, the seeded deals S..S+N-1 (2,000 from 0 unless told) are solved by both
cores with a budget of B nodes (3,000: past the probes' 1,000, so that easy's and double's
probes run too). Every answer must be the same in both, verdict, line and node count
(``Solution`` equality), and every won line must replay to a won state through ``apply``;
then every tenth deal is played at random for up to 48 moves and the position every six
moves is solved by both cores again (1,500 nodes), with the same checks. The table gives
each core's time on the same deals in this one process, and their ratio: the Python core
is the baseline, measured in the same run.

The test suite compares the cores on a sample of these (tests/engine/test_solver_native.py,
a few deals a ruleset, each kind of search): this is the same comparison on thousands of
deals, minutes a ruleset (double's 2,000 deals take some 18 minutes of the Python core).
It stops at the first disagreement, naming the ruleset and the seed, with exit status 1.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import (  # noqa: E402
    RULESETS,
    Ruleset,
    State,
    apply,
    legal_actions,
    new_game,
    seeded_deal,
)
from games.engine.solver import Core, Solution, native, solve  # noqa: E402
from games.engine.state import PLAYING, WON  # noqa: E402

CORES: tuple[Core, Core] = ("python", "native")


def replays_to_a_win(state: State, solution: Solution) -> bool:
    for action in solution.line:
        state = apply(state, action)[0]
    return state.status == WON


def both(rules: Ruleset, state: State, budget: int, seconds: dict[str, float]) -> Solution:
    """The one answer both cores give ``state``, each timed into ``seconds``; exits if they
    differ or if a won line does not win."""
    answers = {}
    for core in CORES:
        started = time.perf_counter()
        answers[core] = solve(rules, state, budget, core=core)
        seconds[core] += time.perf_counter() - started
    if answers["native"] != answers["python"]:
        raise Disagreement(f"the cores disagree: {answers['python']} != {answers['native']}")
    if answers["native"].verdict == "won" and not replays_to_a_win(state, answers["native"]):
        raise Disagreement("a won line does not replay to a won state")
    return answers["native"]


class Disagreement(Exception):
    pass


def random_play(rules: Ruleset, seed: int, budget: int, seconds: dict[str, float]) -> int:
    """Positions in the middle of a game of deal ``seed``, reached by random legal play,
    solved by both cores: how many."""
    rng = random.Random(f"{rules.name}:{seed}")
    state = new_game(rules, seeded_deal(rules, seed))
    compared = 0
    for ply in range(48):
        actions = legal_actions(state)
        if state.status != PLAYING or not actions:
            break
        state = apply(state, rng.choice(actions))[0]
        if ply % 6 == 5:
            both(rules, state, budget, seconds)
            compared += 1
    return compared


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per ruleset (2,000)")
    parser.add_argument("--start", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--budget", type=int, default=3000, help="nodes per deal (3,000)")
    parser.add_argument("--rules", nargs="*", default=list(RULESETS), choices=list(RULESETS))
    args = parser.parse_args()
    if not native.AVAILABLE:
        sys.exit("the native solver core is not built: nothing to compare the Python core with")

    print(
        f"Both solver cores on seeds {args.start}-{args.start + args.deals - 1} of each "
        f"ruleset, {args.budget:,} nodes a deal; positions of random play on every tenth "
        "deal, 1,500 nodes each\n"
    )
    print(
        f"{'ruleset':<18}{'deals':>7}{'won':>6}{'lost':>6}{'unknown':>9}{'positions':>11}"
        f"{'Python s':>10}{'native s':>10}{'Python/native':>15}"
    )
    for name in args.rules:
        rules = RULESETS[name]
        verdicts: Counter[str] = Counter()
        seconds = {"python": 0.0, "native": 0.0}
        positions = 0
        seed = args.start
        try:
            for seed in range(args.start, args.start + args.deals):
                state = new_game(rules, seeded_deal(rules, seed))
                verdicts[both(rules, state, args.budget, seconds).verdict] += 1
                if seed % 10 == 0:
                    positions += random_play(rules, seed, 1500, seconds)
        except Disagreement as disagreement:
            sys.exit(f"{name}, seed {seed}: {disagreement}")
        ratio = seconds["python"] / max(seconds["native"], 1e-9)
        print(
            f"{name:<18}{args.deals:>7,}{verdicts['won']:>6,}{verdicts['lost']:>6,}"
            f"{verdicts['unknown']:>9,}{positions:>11,}{seconds['python']:>10.2f}"
            f"{seconds['native']:>10.3f}{ratio:>15.0f}",
            flush=True,
        )
    print("\nEvery answer alike in both cores, and every won line a win.")


if __name__ == "__main__":
    main()
