"""Joins two lines of migrations made side by side: the API keys and tickets, and the
winnable pools with the ratings. Neither touches the other's tables."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_api_keys"),
        ("games", "0015_ratings"),
    ]

    operations: list[migrations.operations.base.Operation] = []
