"""``manage.py rebuild_projections``: recompute every read model from events and the
moderation log alone."""

from django.core.management.base import BaseCommand

from games import projections
from games.projections import bans


class Command(BaseCommand):
    help = (
        "Rebuild the read models: every projection of the event log (games.projections."
        "PROJECTIONS) from the event store, players' bans from the moderation log."
    )

    def handle(self, *args: object, **options: object) -> None:
        games = projections.rebuild()
        banned = bans.rebuild()
        self.stdout.write(
            self.style.SUCCESS(
                f"Rebuilt {games} game(s) from events; {banned} player(s) banned per the "
                "moderation log."
            )
        )
