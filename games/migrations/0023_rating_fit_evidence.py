"""A deal's rating predicted from its certification, and the evidence of how a rated or
contest game was played.

``games_rating_fit`` holds each ruleset's weights (``games.ratings.fit``) and
``games_certified_deal.rating`` each pool deal's predicted rating: a deal dealt to one rated
game cannot learn its rating from its players (docs/ratings.md#a-deals-rating-before-play).
``games_game_evidence`` holds what the background job measured of each finished rated or
contest game, and why it is flagged for moderators (docs/ratings.md#suspicion-flags).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0022_rated_deals"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RatingFit",
            fields=[
                ("rules", models.CharField(max_length=32, primary_key=True, serialize=False)),
                ("weights", models.JSONField()),
                ("games", models.IntegerField()),
                ("log_likelihood", models.FloatField()),
                ("fitted_at", models.DateTimeField()),
            ],
            options={
                "db_table": "games_rating_fit",
            },
        ),
        migrations.AddField(
            model_name="certifieddeal",
            name="rating",
            field=models.FloatField(null=True),
        ),
        migrations.CreateModel(
            name="GameEvidence",
            fields=[
                ("game_id", models.UUIDField(primary_key=True, serialize=False)),
                ("rules", models.CharField(max_length=32)),
                ("kind", models.CharField(max_length=8)),
                ("won", models.BooleanField()),
                ("positions", models.IntegerField()),
                ("matched", models.IntegerField()),
                ("match", models.FloatField(null=True)),
                ("intervals", models.IntegerField()),
                ("median_seconds", models.FloatField(null=True)),
                ("mean_seconds", models.FloatField(null=True)),
                ("variation", models.FloatField(null=True)),
                ("difficulty", models.FloatField(null=True)),
                ("hints", models.IntegerField()),
                ("reasons", models.JSONField(default=list)),
                ("flagged", models.BooleanField()),
                ("assessed_at", models.DateTimeField()),
                (
                    "player",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "games_game_evidence",
                "indexes": [
                    models.Index(fields=["flagged", "-assessed_at"], name="evidence_flagged")
                ],
            },
        ),
    ]
