"""``manage.py rebuild_projections``: recompute every read model from events and the
moderation log alone."""

from django.core.management.base import BaseCommand

from games.writes.projections import rebuild_games, rebuild_players


class Command(BaseCommand):
    help = (
        "Rebuild the read models: game summaries, standings and leaderboards from the "
        "event store, "
        "players' bans from the moderation log."
    )

    def handle(self, *args: object, **options: object) -> None:
        games = rebuild_games()
        banned = rebuild_players()
        self.stdout.write(
            self.style.SUCCESS(
                f"Rebuilt {games} game(s) from events; {banned} player(s) banned per the "
                "moderation log."
            )
        )
