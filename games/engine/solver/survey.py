"""Solvability over seeded deals: the counts, their 95% Wilson intervals, in parallel.

Used by ``manage.py solvability`` and ``bench/solver.py``; pure like the rest of the
engine (the standard library's ``multiprocessing`` only).
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..deals import seeded_deal
from ..rules import RULESETS
from ..state import new_game
from . import Core, solve

#: z for a two-sided 95% interval.
Z95 = 1.959964


@dataclass(frozen=True)
class Outcome:
    """One deal's answer: its seed, verdict, nodes searched and seconds spent."""

    seed: int
    verdict: str
    nodes: int
    seconds: float


def solve_seed(task: tuple[str, int, int, Core | None]) -> Outcome:
    """Solve the seeded deal ``seed`` of ruleset ``name`` within ``budget`` nodes, in
    ``core`` (None: the default one)."""
    name, seed, budget, core = task
    rules = RULESETS[name]
    state = new_game(rules, seeded_deal(rules, seed))
    started = time.perf_counter()
    solution = solve(rules, state, budget, core=core)
    return Outcome(seed, solution.verdict, solution.nodes, time.perf_counter() - started)


def outcomes(
    name: str, seeds: Iterable[int], budget: int, jobs: int, core: Core | None = None
) -> Iterator[Outcome]:
    """Every seed's outcome, in seed order, over ``jobs`` processes (1: this process)."""
    tasks = [(name, seed, budget, core) for seed in seeds]
    if jobs <= 1:
        yield from map(solve_seed, tasks)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(solve_seed, tasks, chunksize=4)


def wilson(successes: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, as fractions."""
    if total == 0:
        return 0.0, 1.0
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def survey(
    name: str,
    seeds: Iterable[int],
    budget: int,
    jobs: int,
    progress: Callable[[int, Counter[str]], None] | None = None,
    core: Core | None = None,
) -> tuple[Counter[str], list[Outcome]]:
    """The verdict counts over ``seeds``, and every outcome."""
    counts: Counter[str] = Counter()
    done: list[Outcome] = []
    for outcome in outcomes(name, seeds, budget, jobs, core):
        counts[outcome.verdict] += 1
        done.append(outcome)
        if progress is not None:
            progress(len(done), counts)
    return counts, done


def report(name: str, counts: Counter[str], budget: int) -> list[str]:
    """The lines that state the counts with their 95% intervals."""
    total = sum(counts.values())
    lines = [f"{name}: {total} deals, budget {budget:,} nodes"]
    for verdict in ("won", "lost", "unknown"):
        n = counts[verdict]
        low, high = wilson(n, total)
        share = n / total if total else 0.0
        lines.append(f"  {verdict:<8}{n:>7}  {share:7.2%}  95% CI [{low:.2%}, {high:.2%}]")
    return lines
