"""``manage.py solvability --rules R --deals N``: how many seeded deals can be won, with
every card known, by the solver (games.engine.solver), on every core."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

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

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["rules"]
        deals: int = options["deals"]
        budget: int = options["budget"]
        start: int = options["start"]
        if deals < 1 or budget < 1 or start < 0:
            raise CommandError("--deals and --budget must be positive, --start not negative")
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

        counts, outcomes = survey(
            name, range(start, start + deals), budget, options["jobs"], progress
        )
        sys.stderr.write("\n")
        seconds = sorted(o.seconds for o in outcomes)
        nodes = sum(o.nodes for o in outcomes)
        for line in report(name, counts, budget):
            self.stdout.write(line)
        self.stdout.write(
            f"  seeds {start}..{start + deals - 1}, {time.monotonic() - started:.0f} s wall, "
            f"median {seconds[len(seconds) // 2]:.3f} s, "
            f"p95 {seconds[int(len(seconds) * 0.95) - 1 if len(seconds) > 1 else 0]:.3f} s, "
            f"{nodes / max(sum(seconds), 1e-9):,.0f} nodes/s per process"
        )
