"""Races and arenas count hints: ``games_contest_result.hints``, backfilled from the events.

A game's ``hints`` is the number of its ``hinted`` events (what the projection's fold
counts, ``games.store.streams``). Deployments that applied ``0011_rebuild_projections``
before this column existed get it here, filled in SQL from the stored events, with the
arena points of the games it changes: since this migration a won deal with hints scores
80 (``games.dailies.arenas.AIDED_WIN``) instead of 100 plus a speed bonus, a figure
frozen here as the table stood when this was written. The view ``games_arena_points``
(0012) sums ``points``, so the ``arena_points`` boards follow without a change of theirs.

An upgrade from before 0011 has the column already: 0011 adds it (``ADD_COLUMN``, the same
statement) before it rebuilds every projection with the current code, which writes it. Here
the statement then changes nothing, and the backfill writes the figures the rebuild wrote.

Reversed, the aided wins get their old points back, then the column goes.
"""

from django.db import migrations, models

#: Django's own DDL for the field (``sqlmigrate``), made idempotent; 0011 runs it too. The
#: default stays in the database (``db_default``), so a server that does not write the
#: column yet can still insert results during a rolling upgrade.
ADD_COLUMN = """
ALTER TABLE games_contest_result
    ADD COLUMN IF NOT EXISTS hints integer DEFAULT 0 NOT NULL CHECK (hints >= 0)"""

DROP_COLUMN = "ALTER TABLE games_contest_result DROP COLUMN IF EXISTS hints"

BACKFILL = """
UPDATE games_contest_result AS r
SET hints = h.hints,
    points = CASE WHEN r.status = 'won' AND NOT r.voided THEN 80 ELSE r.points END
FROM (SELECT game_id, COUNT(*) AS hints FROM games_event WHERE type = 'hinted' GROUP BY game_id)
    AS h
WHERE h.game_id = r.game_id"""

#: The points of an aided win before this migration: 100, plus 50 less one every 15 s.
UNFILL = """
UPDATE games_contest_result
SET points = 100 + GREATEST(0, 50 - elapsed_ms / 15000)
WHERE status = 'won' AND NOT voided AND hints > 0"""


class Migration(migrations.Migration):
    dependencies = [("games", "0012_arena_points_board")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(ADD_COLUMN, DROP_COLUMN)],
            state_operations=[
                migrations.AddField(
                    model_name="contestresult",
                    name="hints",
                    field=models.PositiveIntegerField(db_default=0, default=0),
                )
            ],
        ),
        migrations.RunSQL(BACKFILL, UNFILL),
    ]
