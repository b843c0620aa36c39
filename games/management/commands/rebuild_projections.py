"""``manage.py rebuild_projections``: recompute every read model from events alone."""

from django.core.management.base import BaseCommand

from games.projections import rebuild_games


class Command(BaseCommand):
    help = "Rebuild the read models (game summaries) from the event store."

    def handle(self, *args: object, **options: object) -> None:
        games = rebuild_games()
        self.stdout.write(self.style.SUCCESS(f"Rebuilt {games} game(s) from events."))
