"""API keys of their own (several per account, with a sliding expiry) and WebSocket tickets.

The keys that REST framework's token table held keep working: each is copied here as its
SHA-256, last used now (so its lifetime starts at the upgrade). That table, if the database
has one, is left as it was; the server no longer reads it.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

COPY_TOKENS = """
DO $$
BEGIN
    IF to_regclass('authtoken_token') IS NOT NULL THEN
        INSERT INTO games_api_key (user_id, digest, prefix, created_at, last_used_at,
                                   last_user_agent)
        SELECT user_id, encode(sha256(convert_to(key, 'UTF8')), 'hex'), left(key, 8), created,
               now(), ''
        FROM authtoken_token
        ON CONFLICT (digest) DO NOTHING;
    END IF;
END $$"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_contest_result_hints"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiKey",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("prefix", models.CharField(max_length=8)),
                ("created_at", models.DateTimeField()),
                ("last_used_at", models.DateTimeField()),
                ("last_address", models.GenericIPAddressField(blank=True, null=True)),
                ("last_user_agent", models.CharField(blank=True, default="", max_length=200)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_keys",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "games_api_key",
            },
        ),
        migrations.CreateModel(
            name="WsTicket",
            fields=[
                ("digest", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("expires_at", models.DateTimeField(db_index=True)),
                (
                    "key",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.apikey",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "games_ws_ticket",
            },
        ),
        migrations.AddIndex(
            model_name="apikey",
            index=models.Index(fields=["user", "-last_used_at"], name="api_key_user_used"),
        ),
        migrations.RunSQL(COPY_TOKENS, migrations.RunSQL.noop),
    ]
