"""How well a deal's rating predicted from its certification (games.ratings.fit) foretells
the games: predicted and actual win rates by decile, on deals the fit never saw.

    .venv/bin/python bench/rating_calibration.py [--rules R] [--seeds N] [--budget B]

The bench certifies the seeded deals 0..N-1 of the ruleset as the pools do (the solver wins
each within B nodes; its line gives the features), and deals each winnable one to one
simulated player, as rated play deals each deal once. The players follow the one-move
heuristic from their own view (games.engine.heuristic), each with its own share of random
moves (none to a third), so they differ in strength; a player gives up when stuck, on
meeting a position a third time, or after 400 actions. Half the deals (even seeds) are the
rated history: the fit learns the deals' weights from them and the players' ratings with
them (a few rounds of each, the players' mean held at 1500, as the live ratings would have
them). The other half are the test: each game's predicted chance of a win, from the
player's rating and the deal's predicted rating, sorted into ten groups of equal size, each
printed with its actual win rate. The prior (1000 + 1200 x difficulty, the rating before
any history) is scored on the same test games beside it, with the Brier score of each.
Deterministic: the same arguments print the same table.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import (  # noqa: E402
    action_to_command,
    heuristic,  # noqa: E402
    new_game,
)
from games.engine.deals import seeded_deal  # noqa: E402
from games.engine.game import apply, legal_actions  # noqa: E402
from games.engine.rules import RULESETS, Ruleset  # noqa: E402
from games.engine.solver import solve  # noqa: E402
from games.engine.state import PLAYING, WON  # noqa: E402
from games.engine.view import player_view  # noqa: E402
from games.ratings import fit  # noqa: E402

#: Each simulated player's share of random moves: the strongest plays none.
PLAYERS = (0.0, 0.05, 0.1, 0.2, 0.33)
MAX_ACTIONS = 400


def plays_to_a_win(rules: Ruleset, seed: int, noise: float, draw: random.Random) -> bool:
    """Whether a player who follows the heuristic from their own view, with ``noise`` of
    random moves, wins deal ``seed``."""
    state = new_game(rules, seeded_deal(rules, seed))
    seen: Counter[object] = Counter()
    for _ in range(MAX_ACTIONS):
        if state.status != PLAYING:
            return state.status == WON
        key = (state.columns, state.down, state.reserve, state.cells)
        seen[key] += 1
        if seen[key] >= 3:
            return False
        ranked = heuristic.ranked(rules, player_view(state))
        if not ranked:
            return False
        action = ranked[0]
        if noise and draw.random() < noise:
            action = draw.choice(legal_actions(state) or ranked)
        state, _ = apply(state, action)
    return False


def player_ratings(
    games: list[tuple[int, float, tuple[float, ...]]], weights: fit.Fit, count: int
) -> list[float]:
    """Each player's rating by maximum likelihood against the deals' predicted ratings (a
    few Newton steps), then shifted so that their mean is 1500."""
    ratings = [1500.0] * count
    k = math.log(10) / 400
    for player in range(count):
        mine = [(score, weights.rating(values)) for who, score, values in games if who == player]
        for _ in range(20):
            slope = curve = 0.0
            for score, deal in mine:
                chance = fit.win_chance(ratings[player], deal)
                slope += k * (score - chance)
                curve += k * k * chance * (1 - chance)
            slope -= (ratings[player] - 1500) / 350**2  # a weak prior keeps it finite
            curve += 1 / 350**2
            ratings[player] += slope / curve
    shift = 1500 - sum(ratings) / count
    return [rating + shift for rating in ratings]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="scorpion2")
    parser.add_argument("--seeds", type=int, default=2000)
    parser.add_argument("--budget", type=int, default=20_000)
    args = parser.parse_args()
    rules = RULESETS[args.rules]
    draw, assign = random.Random(2026), random.Random(7)
    train: list[tuple[int, float, tuple[float, ...]]] = []
    test: list[tuple[int, float, tuple[float, ...]]] = []
    for seed in range(args.seeds):
        solution = solve(rules, new_game(rules, seeded_deal(rules, seed)), args.budget)
        if solution.verdict != "won":
            continue
        effort = min(1.0, math.log1p(solution.nodes) / math.log1p(fit.EFFORT_NODES))
        values = fit.features(
            difficulty=round(effort, 4),
            nodes=solution.nodes,
            solution=[action_to_command(action) for action in solution.line],
        )
        player = assign.randrange(len(PLAYERS))
        won = plays_to_a_win(rules, seed, PLAYERS[player], draw)
        (test if seed % 2 else train).append((player, 1.0 if won else 0.0, values))

    learnt = fit.UNFITTED
    ratings = [1500.0] * len(PLAYERS)
    for _ in range(4):  # the players' ratings and the deals' weights, each from the other
        learnt = fit.fit((ratings[who], score, values) for who, score, values in train)
        ratings = player_ratings(train, learnt, len(PLAYERS))

    def chances(model: fit.Fit) -> list[float]:
        return [fit.win_chance(ratings[who], model.rating(values)) for who, _, values in test]

    actual = [score for _, score, _ in test]
    print(f"{rules.name}: seeds 0-{args.seeds - 1}, budget {args.budget:,} nodes")
    print(f"deals certified: {len(train) + len(test)} ({len(train)} history, {len(test)} test)")
    print(f"history won: {sum(s for _, s, _ in train):.0f}; test won: {sum(actual):.0f}")
    rated = zip(PLAYERS, ratings, strict=True)
    print("players (random moves: rating):", ", ".join(f"{n:g}: {r:.0f}" for n, r in rated))
    weights = zip(fit.NAMES, learnt.weights, strict=True)
    print("weights:", ", ".join(f"{name} {weight:.1f}" for name, weight in weights))
    print()
    print("| decile | games | predicted win rate | actual win rate | prior's predicted |")
    print("|---|---|---|---|---|")
    fitted, prior = chances(learnt), chances(fit.UNFITTED)
    by_fit = fit.deciles(fitted, actual)
    order = sorted(range(len(test)), key=lambda i: (fitted[i], actual[i]))
    start = 0
    for number, (predicted, rate, games) in enumerate(by_fit, 1):
        part = order[start : start + games]
        start += games
        before = sum(prior[i] for i in part) / games
        print(f"| {number} | {games} | {predicted:.3f} | {rate:.3f} | {before:.3f} |")

    def brier(found: list[float]) -> float:
        return sum((c - a) ** 2 for c, a in zip(found, actual, strict=True)) / len(actual)

    base = sum(actual) / len(actual)
    print()
    print(f"Brier score: fit {brier(fitted):.4f}, prior {brier(prior):.4f}, "
          f"constant {base:.3f}: {brier([base] * len(actual)):.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
