"""``manage.py export_puzzles --month YYYY-MM``: write a month's export of the puzzles
(docs/operations.md#monthly-exports)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.writes import puzzle_exports
from games.writes.exports import ExportRefused


class Command(BaseCommand):
    help = (
        "Write every puzzle found in a month, with its answer, themes and ratings, as CSV, "
        "gzip-compressed, with its sha256, into PUZZLE_EXPORT_DIR (the API lists and serves it)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", required=True, help="the month, YYYY-MM (UTC)")
        parser.add_argument(
            "--replace", action="store_true", help="write it again if it exists already"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            written = puzzle_exports.export_month(options["month"], replace=options["replace"])
        except (ValueError, ExportRefused) as error:
            raise CommandError(str(error)) from error
        export = written.export
        self.stdout.write(
            self.style.SUCCESS(
                f"{written.path}: {export.puzzles} puzzle(s), {export.bytes} bytes, "
                f"sha256 {export.sha256}"
            )
        )
