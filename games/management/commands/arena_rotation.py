"""``manage.py arena_rotation``: make this period's and the next period's arenas of
``ARENA_ROTATION`` now (the scheduled job makes them every minute anyway)."""

from django.core.management.base import BaseCommand

from games.writes.contests import rotation_arenas


class Command(BaseCommand):
    help = (
        "Make the arenas of the configured rotation (ARENA_ROTATION) for the current period "
        "and the next."
    )

    def handle(self, *args: object, **options: object) -> None:
        arenas = rotation_arenas()
        for arena in arenas:
            self.stdout.write(f"{arena.title}: {arena.starts_at} to {arena.ends_at} ({arena.id})")
        self.stdout.write(self.style.SUCCESS(f"{len(arenas)} arena(s) in the rotation."))
