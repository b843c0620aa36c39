"""``manage.py import_games FILE``: verify an export by replaying every game it holds
(docs/operations.md#monthly-exports)."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.writes import exports


class Command(BaseCommand):
    help = (
        "Verify an export of the public log (a .scorpion.gz file, or plain notation): its "
        "sha256 when the .sha256 file is beside it, and every game replayed through the rules. "
        "A corrupt file is refused with the line and the reason."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            games = exports.verify(path)
        except exports.Corrupt as error:
            raise CommandError(f"{path}: refused, {error}") from error
        self.stdout.write(self.style.SUCCESS(f"{path}: {games} game(s), every one replayed"))
