"""``manage.py rebuild_projections``: recompute every read model from events, the
moderation log and the puzzle results alone."""

from django.core.management.base import BaseCommand

from games import projections
from games.projections import bans
from games.puzzles import ratings as puzzle_ratings


class Command(BaseCommand):
    help = (
        "Rebuild the read models: every projection of the event log (games.projections."
        "PROJECTIONS) from the event store, players' bans from the moderation log, puzzle "
        "ratings from the puzzle results."
    )

    def handle(self, *args: object, **options: object) -> None:
        games = projections.rebuild()
        banned = bans.rebuild()
        rated = puzzle_ratings.rebuild()
        self.stdout.write(
            self.style.SUCCESS(
                f"Rebuilt {games} game(s) from events; {banned} player(s) banned per the "
                f"moderation log; {rated} rated puzzle result(s) folded again."
            )
        )
