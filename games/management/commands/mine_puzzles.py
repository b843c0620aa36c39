"""``manage.py mine_puzzles``: look for puzzles now, as the job does every minute
(docs/puzzles.md#mining)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.writes import puzzles


class Command(BaseCommand):
    help = (
        "Look for puzzles in the finished public games and the daily challenges' lines not "
        "looked at yet (the mining job's work, without waiting for it)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--seconds", type=float, default=60.0, help="stop after this long (default 60)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        done = puzzles.puzzles_mine(seconds=options["seconds"])
        self.stdout.write(
            self.style.SUCCESS(
                f"{done.puzzles} puzzle(s) found in {done.games} game(s) and {done.days} day(s)"
            )
        )
