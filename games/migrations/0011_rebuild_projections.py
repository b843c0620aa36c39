"""Recompute every projection of existing games from their events: the ``Game`` rows (whose
``board`` holds every card since 0007), daily standings, contest results and the
leaderboards (0008, 0009, 0010).

The projections are computed by the current projection code, so this step must stay the
last migration that the tables it writes depend on: a later migration that changes a
projected table moves it after itself (``tests/games/test_boards_migration.py`` upgrades a
database from 0006 and fails otherwise)."""

from django.db import migrations


def rebuild(apps, schema_editor):
    if not apps.get_model("games", "Game").objects.exists():
        return
    from games.writes.projections import rebuild_games

    rebuild_games()


class Migration(migrations.Migration):
    dependencies = [("games", "0010_solver_integration")]

    operations = [migrations.RunPython(rebuild, migrations.RunPython.noop)]
