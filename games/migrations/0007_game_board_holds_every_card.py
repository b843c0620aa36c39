"""``Game.board`` holds every card now (``games.store.summary.Board``), and visibility masks
them when a game is shown: recompute the rows of existing games from their events."""

from django.db import migrations


def rebuild_game_rows(apps, schema_editor):
    if not apps.get_model("games", "Game").objects.exists():
        return
    # Game rows are projections: the current projection code recomputes them from events.
    from games.writes.projections import rebuild_games

    # The leaderboards' tables come with 0008_leaderboards, which fills them.
    rebuild_games(boards=False)


class Migration(migrations.Migration):
    dependencies = [("games", "0006_event_schema_version")]

    operations = [migrations.RunPython(rebuild_game_rows, migrations.RunPython.noop)]
