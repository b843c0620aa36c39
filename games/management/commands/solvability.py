"""``manage.py solvability --rules R --deals N``: how many seeded deals can be won, with
every card known, by the solver (games.engine.solver), on every CPU core, in the solver core
that runs by default (SOLVER_CORE picks it).

The search only stops early at the budget (it is deterministic, and its turns do not depend
on the budget), so a deal decided within a budget gets the same verdict under any larger
one. A survey at a large budget can therefore be made in two passes: every deal at a first
budget, then only the seeds it printed as unknown (``--seeds``) at the larger one.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import solver
from games.engine.rules import RULESETS
from games.engine.solver import DEFAULT_BUDGET
from games.engine.solver.survey import report, survey


class Command(BaseCommand):
    help = (
        "Solve seeded deals S..S+N-1 with full information and print won/lost/unknown "
        "with 95% Wilson intervals."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rules", default="classic", choices=sorted(RULESETS))
        parser.add_argument("--deals", type=int, default=100)
        parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
        parser.add_argument("--start", type=int, default=0, help="the first seed")
        parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
        parser.add_argument(
            "--seeds",
            type=parse_seeds,
            help="the seeds to solve instead of --start/--deals, as 12,40-45 (ranges inclusive)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["rules"]
        budget: int = options["budget"]
        start: int = options["start"]
        if options["deals"] < 1 or budget < 1 or start < 0:
            raise CommandError("--deals and --budget must be positive, --start not negative")
        seeds: Sequence[int] = options["seeds"] or range(start, start + options["deals"])
        deals = len(seeds)
        started = time.monotonic()

        def progress(done: int, counts: Counter[str]) -> None:
            if done % 10 and done != deals:
                return
            width = 30
            filled = width * done // deals
            elapsed = time.monotonic() - started
            left = elapsed / done * (deals - done)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{deals} "
                f"won {counts['won']} lost {counts['lost']} unknown {counts['unknown']} "
                f"{elapsed:.0f}s, ~{left:.0f}s left "
            )
            sys.stderr.flush()

        counts, outcomes = survey(name, seeds, budget, options["jobs"], progress)
        sys.stderr.write("\n")
        seconds = sorted(o.seconds for o in outcomes)
        nodes = sum(o.nodes for o in outcomes)
        for line in report(name, counts, budget):
            self.stdout.write(line)
        self.stdout.write(
            f"  seeds {describe(seeds)}, {time.monotonic() - started:.0f} s wall, "
            f"median {seconds[len(seconds) // 2]:.3f} s, "
            f"p95 {seconds[int(len(seconds) * 0.95) - 1 if len(seconds) > 1 else 0]:.3f} s, "
            f"{nodes / max(sum(seconds), 1e-9):,.0f} nodes/s per process, {solver.CORE} core"
        )
        unknown = [o.seed for o in outcomes if o.verdict == "unknown"]
        if unknown:
            self.stdout.write(f"  unknown seeds: {','.join(map(str, unknown))}")


def parse_seeds(text: str) -> list[int]:
    """``"12,40-45"`` as ``[12, 40, 41, 42, 43, 44, 45]``: sorted, each seed once."""
    seeds: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        first, dash, last = part.partition("-")
        try:
            low, high = int(first), int(last) if dash else int(first)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a seed or a range of seeds: {part!r}") from None
        if low < 0 or high < low:
            raise argparse.ArgumentTypeError(f"not a range of seeds from 0 up: {part!r}")
        seeds.update(range(low, high + 1))
    if not seeds:
        raise argparse.ArgumentTypeError("no seed given")
    return sorted(seeds)


def describe(seeds: Sequence[int]) -> str:
    """``"0..999"`` for a run of consecutive seeds, else how many and the first and last."""
    if len(seeds) == seeds[-1] - seeds[0] + 1:
        return f"{seeds[0]}..{seeds[-1]}"
    return f"{len(seeds)} from {seeds[0]} to {seeds[-1]}"
