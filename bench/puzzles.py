"""Puzzles: how many the miner finds in games like players' and what that costs, and what
judging a move costs with the tree against deciding it on the request, in one run.

    .venv/bin/python bench/puzzles.py [--games N] [--rules R] [--seed S]

The games: the first N deals of the ruleset that the solver wins, each played by the hint
follower (the server's hint from the player's view, 32 samples of 400 nodes, no time
limit) with one move in ten chosen at random (a player's slip), up to 200 actions; the
random stream is seeded with S, so the run is the same on every machine. Every position of
every game is examined as the miner does (``games.engine.puzzles.examine``).

Then, for every position of every puzzle's tree and every legal move there, three ways to
judge the move: with the tree, as the server does (``judge``: a lookup and the move
applied); deciding the position on the request instead (``classify``: the solver on every
move in every arrangement of the unseen cards); and, for scale, the hint the same position
would get (``games.engine.hint.hint`` with the server's settings, no time limit). It prints
the medians and p95s, and the ratios of the medians.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import engine  # noqa: E402
from games.engine import hint, puzzles  # noqa: E402
from games.engine.solver import solve  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def games(rules: engine.Ruleset, count: int, seed: int) -> list[list[engine.State]]:
    """The positions of ``count`` games, each as the follower with slips played it."""
    rng = random.Random(seed)
    played: list[list[engine.State]] = []
    deal = -1
    while len(played) < count:
        deal += 1
        state = engine.new_game(rules, engine.seeded_deal(rules, deal))
        if solve(rules, state, 100_000).verdict != "won":
            continue
        states = [state]
        for _ in range(200):
            if state.status != engine.PLAYING:
                break
            if rng.random() < 0.1:
                actions = engine.legal_actions(state)
                if not actions:
                    break
                action: engine.Action | None = rng.choice(actions)
            else:
                action = hint.hint(rules, engine.player_view(state), samples=32, budget=400).action
            if action is None:
                break
            state = engine.apply(state, action)[0]
            states.append(state)
        played.append(states)
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rules = engine.RULESETS[args.rules]
    started = time.perf_counter()
    played = games(rules, args.games, args.seed)
    print(f"{len(played)} {rules.name} games played in {time.perf_counter() - started:.1f} s")

    examined = 0
    per_position: list[float] = []
    per_game: list[float] = []
    found: list[tuple[engine.State, puzzles.Found]] = []
    with_puzzles = 0
    for states in played:
        game_started = time.perf_counter()
        seen: set[str] = set()
        mine = 0
        for state in states:
            if state.status != engine.PLAYING or puzzles.unseen(state) > puzzles.MAX_UNSEEN:
                continue
            key = puzzles.key(state)
            if key in seen:
                continue
            seen.add(key)
            examined += 1
            t = time.perf_counter()
            puzzle = puzzles.examine(rules, state)
            per_position.append(time.perf_counter() - t)
            if puzzle is not None:
                found.append((state, puzzle))
                mine += 1
        with_puzzles += mine > 0
        per_game.append(time.perf_counter() - game_started)
    print(
        f"mining: {examined} positions examined, {len(found)} puzzles in {with_puzzles} of "
        f"{len(played)} games; per position median {1000 * statistics.median(per_position):.1f} "
        f"ms, p95 {1000 * percentile(per_position, 0.95):.1f} ms; per game median "
        f"{statistics.median(per_game):.2f} s, p95 {percentile(per_game, 0.95):.2f} s"
    )
    lengths = [puzzle.length for _, puzzle in found]
    trees = [len(puzzle.nodes) for _, puzzle in found]
    if not found:
        return
    print(
        f"puzzles: length median {statistics.median(lengths)}, max {max(lengths)}; tree "
        f"positions median {statistics.median(trees)}, max {max(trees)}; with cards unseen "
        f"{sum(1 for _, p in found if p.unseen)}"
    )

    judged: list[float] = []
    decided: list[float] = []
    hinted: list[float] = []
    for root, puzzle in found:
        tree = {key: node.to_json() for key, node in puzzle.nodes.items()}
        frontier = [(root, 0)]
        visited: set[str] = set()
        while frontier:
            state, played_moves = frontier.pop()
            key = puzzles.key(state)
            if key in visited or key not in tree:
                continue
            visited.add(key)
            t = time.perf_counter()
            puzzles.classify(rules, state)
            decided.append(time.perf_counter() - t)
            t = time.perf_counter()
            hint.hint(rules, engine.player_view(state))
            hinted.append(time.perf_counter() - t)
            for action in engine.legal_actions(state):
                t = time.perf_counter()
                verdict = puzzles.judge(
                    state, action, tree=tree, length=puzzle.length, played=played_moves
                )
                judged.append(time.perf_counter() - t)
                if verdict.verdict == "right" and not verdict.end:
                    frontier.append((verdict.state, played_moves + 1))
    judge_ms = 1000 * statistics.median(judged)
    decide_ms = 1000 * statistics.median(decided)
    hint_ms = 1000 * statistics.median(hinted)
    print(
        f"judging a move: with the tree median {judge_ms:.3f} ms, p95 "
        f"{1000 * percentile(judged, 0.95):.3f} ms ({len(judged)} moves); deciding the "
        f"position on the request median {decide_ms:.2f} ms, p95 "
        f"{1000 * percentile(decided, 0.95):.2f} ms ({len(decided)} positions); a hint of "
        f"the same positions median {hint_ms:.2f} ms, p95 {1000 * percentile(hinted, 0.95):.2f} ms"
    )
    print(
        f"ratios of the medians: deciding / the tree {decide_ms / judge_ms:.0f}, "
        f"a hint / the tree {hint_ms / judge_ms:.0f}"
    )


if __name__ == "__main__":
    main()
