"""``manage.py fill_pools``: certify winnable deals into the pools now, rather than wait for
the job (``games.jobs.fill_pools``), e.g. before opening a new deployment."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games import engine, pools
from games.ratings import predict


class Command(BaseCommand):
    help = (
        "Fill the winnable pools: certify deals of each ruleset's secret sequence until it "
        "holds --target fresh deals (dealt to nobody yet)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--rules", default="", help="comma-separated rulesets (default POOL_RULES)"
        )
        parser.add_argument("--target", type=int, help="fresh deals (default POOL_TARGET)")
        parser.add_argument(
            "--max-candidates", type=int, default=100_000, help="candidates tried at most"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        names = [name for name in options["rules"].split(",") if name] or settings.POOL_RULES
        for name in names:
            if name not in engine.RULESETS:
                raise CommandError(f"{name!r} is not a ruleset")
        target = settings.POOL_TARGET if options["target"] is None else options["target"]
        if target < 0 or options["max_candidates"] < 1:
            raise CommandError("--target must be at least 0 and --max-candidates at least 1")
        for name in names:
            made = pools.fill(name, target, max_candidates=options["max_candidates"])
            predict.refresh(name)
            self.stdout.write(
                f"{name}: {len(made)} deals certified, {pools.fresh_count(name)} fresh"
            )
