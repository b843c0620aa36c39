"""Puzzles (docs/puzzles.md): the tables, the results log kept append-only by PostgreSQL,
and the two functions that fold results into ratings.

``scorpion_puzzle_rate(result, …)`` is one rated result's update of the player's and the
puzzle's ratings: it makes either row if it does not exist yet (the player's from the
start values, the puzzle's from its first rating), locks both (the player's first, always,
so that two writers never wait on each other in a circle), computes both one-game updates
by ``scorpion_glicko2`` (``0015_ratings``) from their values under the lock, writes them
and the result's change, and returns ``[player before, after, RD after, puzzle before,
after, RD after]``. ``scorpion_puzzle_result(…)`` appends an attempt's result: for a rated
one it makes and locks both rows *before* the result's position is drawn, then rates it.
So the order of positions is the order each rating was updated in, and the rebuild
(``games.puzzles.ratings.rebuild``) runs ``scorpion_puzzle_rate`` over the rated results in
position order to the same bits (docs/ratings.md#puzzles).
"""

import django.contrib.postgres.fields
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

APPEND_ONLY = """
CREATE FUNCTION games_puzzle_result_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'games_puzzle_result is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'A result is a fact; the ratings are folded from it.';
END;
$$;

CREATE TRIGGER games_puzzle_result_no_update_delete
    BEFORE UPDATE OR DELETE ON games_puzzle_result
    FOR EACH ROW EXECUTE FUNCTION games_puzzle_result_refuse_change();

CREATE TRIGGER games_puzzle_result_no_truncate
    BEFORE TRUNCATE ON games_puzzle_result
    FOR EACH STATEMENT EXECUTE FUNCTION games_puzzle_result_refuse_change();
"""

APPEND_ONLY_UNDO = """
DROP TRIGGER IF EXISTS games_puzzle_result_no_truncate ON games_puzzle_result;
DROP TRIGGER IF EXISTS games_puzzle_result_no_update_delete ON games_puzzle_result;
DROP FUNCTION IF EXISTS games_puzzle_result_refuse_change();
"""

RATE = """
CREATE OR REPLACE FUNCTION scorpion_puzzle_rate(
    result bigint, tau float8, rd_min float8, rd_max float8, start_rating float8,
    start_rd float8, start_volatility float8, puzzle_rd float8, puzzle_volatility float8
) RETURNS float8[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    r games_puzzle_result%ROWTYPE;
    p games_puzzle_player%ROWTYPE;
    z games_puzzle_rating%ROWTYPE;
    np record;
    nz record;
    p_rd2 float8;
    z_rd2 float8;
    score float8;
BEGIN
    SELECT * INTO r FROM games_puzzle_result WHERE position = result;
    INSERT INTO games_puzzle_player (player_id, rating, rd, volatility, rated)
    VALUES (r.player_id, start_rating, start_rd, start_volatility, 0)
    ON CONFLICT (player_id) DO NOTHING;
    INSERT INTO games_puzzle_rating (puzzle_id, rating, rd, volatility, rated)
    SELECT q.id, q.first_rating, puzzle_rd, puzzle_volatility, 0
    FROM games_puzzle q WHERE q.id = r.puzzle_id
    ON CONFLICT (puzzle_id) DO NOTHING;
    SELECT * INTO p FROM games_puzzle_player WHERE player_id = r.player_id FOR UPDATE;
    SELECT * INTO z FROM games_puzzle_rating WHERE puzzle_id = r.puzzle_id FOR UPDATE;
    score := CASE WHEN r.solved THEN 1.0::float8 ELSE 0.0::float8 END;
    SELECT * INTO np FROM scorpion_glicko2(p.rating, p.rd, p.volatility, z.rating, z.rd,
                                           score, tau);
    SELECT * INTO nz FROM scorpion_glicko2(z.rating, z.rd, z.volatility, p.rating, p.rd,
                                           1.0::float8 - score, tau);
    p_rd2 := LEAST(rd_max, GREATEST(rd_min, np.deviation));
    z_rd2 := LEAST(rd_max, GREATEST(rd_min, nz.deviation));
    UPDATE games_puzzle_player SET rating = np.rating, rd = p_rd2, volatility = np.volatility,
        rated = rated + 1, updated_at = r.at
    WHERE player_id = r.player_id;
    UPDATE games_puzzle_rating SET rating = nz.rating, rd = z_rd2, volatility = nz.volatility,
        rated = rated + 1
    WHERE puzzle_id = r.puzzle_id;
    INSERT INTO games_puzzle_rating_change
        (result_id, player_before, player_rd_before, player_after, player_rd_after,
         player_volatility_after, puzzle_before, puzzle_rd_before, puzzle_after,
         puzzle_rd_after, puzzle_volatility_after)
    VALUES (result, p.rating, p.rd, np.rating, p_rd2, np.volatility, z.rating, z.rd,
            nz.rating, z_rd2, nz.volatility);
    RETURN ARRAY[p.rating, np.rating, p_rd2, z.rating, nz.rating, z_rd2];
END $$;

CREATE OR REPLACE FUNCTION scorpion_puzzle_result(
    attempt uuid, puzzle varchar, player integer, rated boolean, solved boolean,
    at timestamptz, tau float8, rd_min float8, rd_max float8, start_rating float8,
    start_rd float8, start_volatility float8, puzzle_rd float8, puzzle_volatility float8
) RETURNS float8[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    drawn bigint;
BEGIN
    IF rated THEN
        INSERT INTO games_puzzle_player (player_id, rating, rd, volatility, rated)
        VALUES (player, start_rating, start_rd, start_volatility, 0)
        ON CONFLICT (player_id) DO NOTHING;
        INSERT INTO games_puzzle_rating (puzzle_id, rating, rd, volatility, rated)
        SELECT q.id, q.first_rating, puzzle_rd, puzzle_volatility, 0
        FROM games_puzzle q WHERE q.id = puzzle
        ON CONFLICT (puzzle_id) DO NOTHING;
        PERFORM 1 FROM games_puzzle_player WHERE player_id = player FOR UPDATE;
        PERFORM 1 FROM games_puzzle_rating WHERE puzzle_id = puzzle FOR UPDATE;
    END IF;
    INSERT INTO games_puzzle_result (attempt_id, puzzle_id, player_id, rated, solved, at)
    VALUES (attempt, puzzle, player, rated, solved, at)
    RETURNING position INTO drawn;
    IF NOT rated THEN
        RETURN NULL;
    END IF;
    RETURN scorpion_puzzle_rate(drawn, tau, rd_min, rd_max, start_rating, start_rd,
                                start_volatility, puzzle_rd, puzzle_volatility);
END $$;

CREATE OR REPLACE FUNCTION scorpion_puzzle_rebuild(
    tau float8, rd_min float8, rd_max float8, start_rating float8, start_rd float8,
    start_volatility float8, puzzle_rd float8, puzzle_volatility float8
) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    result bigint;
    done integer := 0;
BEGIN
    DELETE FROM games_puzzle_rating_change;
    DELETE FROM games_puzzle_rating;
    DELETE FROM games_puzzle_player;
    FOR result IN SELECT position FROM games_puzzle_result WHERE rated ORDER BY position LOOP
        PERFORM scorpion_puzzle_rate(result, tau, rd_min, rd_max, start_rating, start_rd,
                                     start_volatility, puzzle_rd, puzzle_volatility);
        done := done + 1;
    END LOOP;
    RETURN done;
END $$;
"""

RATE_UNDO = """
DROP FUNCTION IF EXISTS scorpion_puzzle_rebuild(float8, float8, float8, float8, float8, float8,
    float8, float8);
DROP FUNCTION IF EXISTS scorpion_puzzle_result(uuid, varchar, integer, boolean, boolean,
    timestamptz, float8, float8, float8, float8, float8, float8, float8, float8);
DROP FUNCTION IF EXISTS scorpion_puzzle_rate(bigint, float8, float8, float8, float8, float8,
    float8, float8, float8);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("games", "0018_rating_board_periods"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Puzzle",
            fields=[
                ("id", models.CharField(max_length=12, primary_key=True, serialize=False)),
                ("rules", models.CharField(max_length=32)),
                ("key", models.CharField(max_length=24)),
                ("position", models.JSONField()),
                ("line", models.JSONField()),
                ("length", models.PositiveSmallIntegerField()),
                ("tree", models.JSONField()),
                (
                    "themes",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.CharField(max_length=24), size=None
                    ),
                ),
                ("win_in", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("winning", models.PositiveSmallIntegerField()),
                ("choices", models.PositiveSmallIntegerField()),
                ("unseen", models.PositiveSmallIntegerField()),
                ("searched", models.BigIntegerField()),
                ("difficulty", models.FloatField()),
                ("first_rating", models.FloatField()),
                ("source_game", models.UUIDField(blank=True, null=True)),
                ("source_version", models.PositiveIntegerField(blank=True, null=True)),
                ("source_challenge", models.DateField(blank=True, null=True)),
                ("source_step", models.PositiveIntegerField(blank=True, null=True)),
                ("played", models.CharField(blank=True, max_length=16, null=True)),
                ("mistake", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField()),
            ],
            options={
                "db_table": "games_puzzle",
            },
        ),
        migrations.CreateModel(
            name="PuzzleAttempt",
            fields=[
                ("id", models.UUIDField(primary_key=True, serialize=False)),
                (
                    "mode",
                    models.CharField(
                        choices=[("rated", "Rated"), ("daily", "Daily"), ("streak", "Streak")],
                        max_length=8,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("playing", "Playing"),
                            ("solved", "Solved"),
                            ("failed", "Failed"),
                        ],
                        max_length=8,
                    ),
                ),
                ("moves", models.JSONField(default=list)),
                ("wrong", models.CharField(blank=True, max_length=16, null=True)),
                ("reason", models.JSONField(blank=True, null=True)),
                ("started_at", models.DateTimeField()),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "db_table": "games_puzzle_attempt",
            },
        ),
        migrations.CreateModel(
            name="PuzzleDay",
            fields=[
                ("date", models.DateField(primary_key=True, serialize=False)),
                ("created_at", models.DateTimeField()),
            ],
            options={
                "db_table": "games_puzzle_day",
                "ordering": ["-date"],
            },
        ),
        migrations.CreateModel(
            name="PuzzleMiner",
            fields=[
                ("source", models.CharField(max_length=16, primary_key=True, serialize=False)),
                ("cursor", models.CharField(blank=True, default="", max_length=64)),
                ("looked", models.BigIntegerField(default=0)),
                ("found", models.BigIntegerField(default=0)),
            ],
            options={
                "db_table": "games_puzzle_miner",
            },
        ),
        migrations.CreateModel(
            name="PuzzlePlayer",
            fields=[
                (
                    "player",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("rating", models.FloatField()),
                ("rd", models.FloatField()),
                ("volatility", models.FloatField()),
                ("rated", models.IntegerField(default=0)),
                ("updated_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "db_table": "games_puzzle_player",
            },
        ),
        migrations.CreateModel(
            name="PuzzleResult",
            fields=[
                ("position", models.BigAutoField(primary_key=True, serialize=False)),
                ("rated", models.BooleanField()),
                ("solved", models.BooleanField()),
                ("at", models.DateTimeField()),
            ],
            options={
                "db_table": "games_puzzle_result",
            },
        ),
        migrations.CreateModel(
            name="PuzzleStreak",
            fields=[
                ("id", models.UUIDField(primary_key=True, serialize=False)),
                (
                    "status",
                    models.CharField(
                        choices=[("running", "Running"), ("ended", "Ended")], max_length=8
                    ),
                ),
                ("solved", models.PositiveIntegerField(default=0)),
                ("started_at", models.DateTimeField()),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "db_table": "games_puzzle_streak",
            },
        ),
        migrations.CreateModel(
            name="PuzzleRating",
            fields=[
                (
                    "puzzle",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="games.puzzle",
                    ),
                ),
                ("rating", models.FloatField()),
                ("rd", models.FloatField()),
                ("volatility", models.FloatField()),
                ("rated", models.IntegerField(default=0)),
            ],
            options={
                "db_table": "games_puzzle_rating",
            },
        ),
        migrations.AddIndex(
            model_name="puzzle",
            index=models.Index(fields=["created_at", "id"], name="puzzle_month"),
        ),
        migrations.AddConstraint(
            model_name="puzzle",
            constraint=models.UniqueConstraint(fields=("rules", "key"), name="puzzle_position"),
        ),
        migrations.AddField(
            model_name="puzzleattempt",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="puzzleattempt",
            name="puzzle",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="games.puzzle"
            ),
        ),
        migrations.AddField(
            model_name="puzzleday",
            name="puzzle",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="games.puzzle"
            ),
        ),
        migrations.CreateModel(
            name="PuzzleRatingChange",
            fields=[
                (
                    "result",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="games.puzzleresult",
                    ),
                ),
                ("player_before", models.FloatField()),
                ("player_rd_before", models.FloatField()),
                ("player_after", models.FloatField()),
                ("player_rd_after", models.FloatField()),
                ("player_volatility_after", models.FloatField()),
                ("puzzle_before", models.FloatField()),
                ("puzzle_rd_before", models.FloatField()),
                ("puzzle_after", models.FloatField()),
                ("puzzle_rd_after", models.FloatField()),
                ("puzzle_volatility_after", models.FloatField()),
            ],
            options={
                "db_table": "games_puzzle_rating_change",
            },
        ),
        migrations.AddField(
            model_name="puzzleresult",
            name="attempt",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="games.puzzleattempt",
            ),
        ),
        migrations.AddField(
            model_name="puzzleresult",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="puzzleresult",
            name="puzzle",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="results",
                to="games.puzzle",
            ),
        ),
        migrations.AddField(
            model_name="puzzlestreak",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="puzzleattempt",
            name="streak",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="attempts",
                to="games.puzzlestreak",
            ),
        ),
        migrations.AddIndex(
            model_name="puzzleresult",
            index=models.Index(fields=["player", "position"], name="puzzle_result_player"),
        ),
        migrations.AddIndex(
            model_name="puzzlestreak",
            index=models.Index(fields=["player", "solved"], name="puzzle_streak_best"),
        ),
        migrations.AddConstraint(
            model_name="puzzlestreak",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "running")),
                fields=("player",),
                name="puzzle_one_streak",
            ),
        ),
        migrations.AddConstraint(
            model_name="puzzleattempt",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    ("status", "playing"), models.Q(("mode", "daily"), _negated=True)
                ),
                fields=("player", "mode"),
                name="puzzle_playing",
            ),
        ),
        migrations.AddIndex(
            model_name="puzzleattempt",
            index=models.Index(fields=["streak", "started_at"], name="puzzle_streak_attempts"),
        ),
        migrations.AddConstraint(
            model_name="puzzleattempt",
            constraint=models.UniqueConstraint(
                fields=("player", "puzzle"), name="puzzle_seen_once"
            ),
        ),
        migrations.RunSQL(APPEND_ONLY, APPEND_ONLY_UNDO),
        migrations.RunSQL(RATE, RATE_UNDO),
    ]
