"""``manage.py prepare_challenges --days N``: make the daily challenges of today and the
next days ahead of time, so that no request waits on the solver's search."""

from __future__ import annotations

import datetime as dt
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.dailies import challenges
from games.errors import ChallengeNotReady


class Command(BaseCommand):
    help = (
        "Prepare the daily challenges of the coming days: for each, the first deal of its "
        "secret sequence that the solver proves winnable, with its checked solution."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--days", type=int, default=7, help="days from today (default 7)")
        parser.add_argument(
            "--from", dest="start", type=dt.date.fromisoformat, help="first day (default today)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days < 1:
            raise CommandError("--days must be at least 1")
        start = options["start"] or challenges.today()
        for offset in range(days):
            day = start + dt.timedelta(days=offset)
            try:
                challenge, made = challenges.prepare(day)
            except ChallengeNotReady:
                raise CommandError(f"{day}: no candidate deal was proved winnable") from None
            what = "prepared" if made else "already prepared"
            self.stdout.write(
                f"{day} {challenge.rules}: {what}"
                + (f", {challenge.difficulty} ({challenge.nodes} nodes)" if made else "")
            )
