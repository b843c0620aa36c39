"""Recompute every projection of existing games from their events: the ``Game`` rows (whose
``board`` holds every card since 0007), daily standings, contest results and the
leaderboards (0008, 0009, 0010).

The projections are computed by the current projection code, so the tables it writes must
have, when this step runs, every column that code writes. Deployments applied this step
long ago, so it cannot move after later changes of those tables; instead a later migration
that adds a column to a projected table adds it here first, with the same idempotent
statement, and fills it itself in SQL for the deployments that ran this step before
(``0013_contest_result_hints``: ``games_contest_result.hints``; ``0015_ratings``: the
ratings' tables and ``games_game.rated``; ``0014_public_log``: the events' ``xid``, the
contests' and days' ``published_at`` and the public log's table).
``tests/games/test_boards_migration.py`` upgrades databases with games from 0006, 0010 and
0012, and fails otherwise."""

import importlib

from django.db import migrations

#: The columns the projection code writes that later migrations add (ADD … IF NOT EXISTS).
LATER = importlib.import_module("games.migrations.0013_contest_result_hints")
#: The ratings' tables, column, function and view (0014), which the projection code writes.
RATINGS = importlib.import_module("games.migrations.0015_ratings")
#: The rated game's scoring function (0017), which the projection code calls.
SCORING = importlib.import_module("games.migrations.0017_rating_score_function")
#: The public log's table and the columns it reads (0014_public_log).
PUBLIC_LOG = importlib.import_module("games.migrations.0014_public_log")


def rebuild(apps, schema_editor):
    if not apps.get_model("games", "Game").objects.exists():
        return
    from games import projections

    projections.rebuild()


class Migration(migrations.Migration):
    dependencies = [("games", "0010_solver_integration")]

    operations = [
        migrations.RunSQL(LATER.ADD_COLUMN, LATER.DROP_COLUMN),
        migrations.RunSQL(RATINGS.DDL, RATINGS.UNDO),
        migrations.RunSQL(SCORING.DDL, SCORING.UNDO),
        migrations.RunSQL(PUBLIC_LOG.ADD, PUBLIC_LOG.DROP),
        migrations.RunPython(rebuild, migrations.RunPython.noop),
    ]
