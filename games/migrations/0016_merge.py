"""Joins three lines of migrations made side by side: the API keys and tickets, the public
log, and the winnable pools with the ratings. None touches another's tables."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_api_keys"),
        ("games", "0014_public_log"),
        ("games", "0015_ratings"),
    ]

    operations: list[migrations.operations.base.Operation] = []
