"""Certified deals per core-minute for each ruleset: the pool-fill job as it was (each
candidate's proof and, with ``POOL_FOLLOW_HINTS``, the hint follower's game, one after the
other) against the job as it is (the proof alone; the follower runs later in a job of its
own, ``games.pools.follow_up``), on the same candidates in the same run.

    .venv/bin/python bench/pools.py [--seconds S] [--before-seconds B] [--rules R ...]

For each ruleset the candidates of its secret pool sequence (``games.pools.certify``, from
candidate 0) are certified in this process, one after another, for at least S seconds of
process time without the follower (3), then for at least B seconds with it (20; a single
``double`` deal's follower takes up to a minute and more, so ``before`` may certify none
within B: it then prints ``<`` the bound). Printed per ruleset: the candidates tried and
the share the solver rejected (lost or undecided within ``POOL_SOLVER_BUDGET``), the
seconds of solver per candidate, certified deals per core-minute before and after and
their ratio, and the follower's seconds per deal (what the follow-up job spends later).
The last column, rated games an hour a worker core sustains, counts a deal's proof and its
follower's game both (a rated game deals a fresh deal): the ceiling docs/operations.md
quotes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("DATABASE_URL", "postgresql://bench@127.0.0.1/unused")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")

import django  # noqa: E402

django.setup()

from games import engine  # noqa: E402
from games.pools import certify  # noqa: E402


@dataclass
class Run:
    tried: int = 0
    deals: int = 0
    seconds: float = 0.0

    @property
    def per_minute(self) -> float:
        return 60 * self.deals / self.seconds if self.seconds else 0.0


def certify_for(rules: engine.Ruleset, seconds: float, *, follow: bool) -> Run:
    """Certify candidates 0, 1, ... until ``seconds`` of process time have passed."""
    run = Run()
    started = time.process_time()
    while run.seconds < seconds:
        found, _ = certify.certify(rules, run.tried, follow=follow)
        run.tried += 1
        run.deals += found is not None
        run.seconds = time.process_time() - started
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--before-seconds", type=float, default=20.0)
    parser.add_argument("--rules", nargs="*", default=list(engine.RULESETS))
    options = parser.parse_args()
    print(
        f"{'rules':<17} {'tried':>6} {'rejected':>8} {'s/cand':>8} {'before/min':>10}"
        f" {'after/min':>10} {'ratio':>7} {'follow s':>9} {'rated/h':>8}"
    )
    for name in options.rules:
        rules = engine.RULESETS[name]
        after = certify_for(rules, options.seconds, follow=False)
        before = certify_for(rules, options.before_seconds, follow=True)
        rejected = 1 - after.deals / after.tried
        per_candidate = after.seconds / after.tried
        if before.deals:
            shown_before = f"{before.per_minute:10.1f}"
            ratio = f"{after.per_minute / before.per_minute:7.0f}"
            # Before's time per deal, less the proofs' share of it, is the follower's.
            follow = (before.seconds - per_candidate * before.tried) / before.deals
        else:
            shown_before = f"<{60 / before.seconds:9.1f}"
            ratio = f">{after.per_minute * before.seconds / 60:6.0f}"
            follow = before.seconds
        proof = after.seconds / max(1, after.deals)
        rated = 3600 / (proof + max(0.0, follow))
        print(
            f"{name:<17} {after.tried:>6} {rejected:>8.0%} {per_candidate:>8.4f} {shown_before}"
            f" {after.per_minute:>10.0f} {ratio} {follow:>9.2f} {rated:>8.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
