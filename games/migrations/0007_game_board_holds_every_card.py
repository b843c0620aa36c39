"""``Game.board`` holds every card now (``games.store.summary.Board``), and visibility masks
them when a game is shown. The rows of existing games are recomputed from their events by
``0011_rebuild_projections``, once every table the projections write exists: this step ran
that rebuild itself before the leaderboards and contests added tables to it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0006_event_schema_version")]

    operations: list[migrations.operations.base.Operation] = []
