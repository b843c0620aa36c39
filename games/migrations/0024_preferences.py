"""An account's preferences for the client (card size, theme, sound, animations,
auto-finish): a JSON object on its ``games_account`` row, empty until first stored."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0023_rating_fit_evidence")]

    operations = [
        migrations.AddField(
            model_name="account",
            name="preferences",
            field=models.JSONField(blank=True, db_default={}, default=dict),
        ),
    ]
