"""A deal is dealt to one rated game, ever: ``games_rated_deal`` holds one row per deal
dealt rated, and its unique ``(rules, seed)`` is the promise (docs/ratings.md#one-rated-game-a-deal).

PostgreSQL writes the row itself, from the ``created`` event of every rated game that is
not a daily's, so a second rated game of a deal is refused whichever way its event is
written (the draw, a forged append, an operator's SQL). The rated games of before are
recorded by the first game of each deal, in position order; the games that shared a deal
before stay as they were dealt, and no event is touched.

``game_rules_seed`` lets the draw ask cheaply whether anyone was ever dealt a deal.
"""

from django.db import migrations, models

FORWARD = """
INSERT INTO games_rated_deal (rules, seed, game_id, dealt_at)
SELECT DISTINCT ON (data->>'rules', (data->>'seed')::bigint)
       data->>'rules', (data->>'seed')::bigint, game_id, at
FROM games_event
WHERE type = 'created' AND data->>'rated' = 'true' AND data->>'challenge' IS NULL
  AND data->>'seed' IS NOT NULL
ORDER BY data->>'rules', (data->>'seed')::bigint, position;

CREATE FUNCTION games_rated_deal_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO games_rated_deal (rules, seed, game_id, dealt_at)
    VALUES (NEW.data->>'rules', (NEW.data->>'seed')::bigint, NEW.game_id, NEW.at);
    RETURN NULL;
END;
$$;

CREATE TRIGGER games_rated_deal_dealt
    AFTER INSERT ON games_event
    FOR EACH ROW
    WHEN (NEW.type = 'created' AND NEW.data->>'rated' = 'true'
          AND NEW.data->>'challenge' IS NULL)
    EXECUTE FUNCTION games_rated_deal_record();
"""

BACKWARD = """
DROP TRIGGER games_rated_deal_dealt ON games_event;
DROP FUNCTION games_rated_deal_record();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_rights_notify"),
    ]

    operations = [
        migrations.CreateModel(
            name="RatedDeal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("rules", models.CharField(max_length=32)),
                ("seed", models.BigIntegerField()),
                ("game_id", models.UUIDField(unique=True)),
                ("dealt_at", models.DateTimeField()),
            ],
            options={
                "db_table": "games_rated_deal",
            },
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(fields=["rules", "seed"], name="game_rules_seed"),
        ),
        migrations.AddConstraint(
            model_name="rateddeal",
            constraint=models.UniqueConstraint(fields=("rules", "seed"), name="rated_deal_once"),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
