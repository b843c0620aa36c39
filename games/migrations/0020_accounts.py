"""Accounts beyond Django's user row: a pseudonym for the public record, guests, closure;
and a name for each API key.

Every user gets a row of ``games_account`` with a random pseudonym (``p-`` and 16 hex
digits): the existing users here, and every user made later by a trigger on ``auth_user``,
whatever makes it (the API, ``createsuperuser``, SQL), so that no code path can leave a
player without one. The public log's stored notation named players by username; it is
emptied here, and the scheduled job writes each entry again under the pseudonyms (readers
write the ones it has not reached). Monthly exports already written are files, left as
they are.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FORWARD = """
CREATE FUNCTION games_new_pseudonym() RETURNS text
LANGUAGE sql VOLATILE AS $$
    SELECT 'p-' || left(md5(gen_random_uuid()::text), 16)
$$;

CREATE FUNCTION games_account_for_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO games_account (user_id, pseudonym, guest)
    VALUES (NEW.id, games_new_pseudonym(), FALSE)
    ON CONFLICT (user_id) DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER games_account_for_user
    AFTER INSERT ON auth_user
    FOR EACH ROW EXECUTE FUNCTION games_account_for_user();

INSERT INTO games_account (user_id, pseudonym, guest)
SELECT id, games_new_pseudonym(), FALSE FROM auth_user
ON CONFLICT (user_id) DO NOTHING;

UPDATE games_public_log SET notation = NULL, version = NULL WHERE notation IS NOT NULL;
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_account_for_user ON auth_user;
DROP FUNCTION IF EXISTS games_account_for_user();
DROP FUNCTION IF EXISTS games_new_pseudonym();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0019_puzzles"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Account",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="account",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("pseudonym", models.CharField(max_length=24, unique=True)),
                ("guest", models.BooleanField(default=False)),
                ("closed_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={"db_table": "games_account"},
        ),
        migrations.AddIndex(
            model_name="account",
            index=models.Index(
                condition=models.Q(("closed_at__isnull", False), ("guest", False)),
                fields=["user"],
                name="account_closed",
            ),
        ),
        migrations.AddField(
            model_name="apikey",
            name="name",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
