"""Upgrading a database that already holds games from 0006: ``0011_rebuild_projections``
fills the boards (0008) and every other projection, once all their tables exist."""

import json
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.boards.models import BoardEntry, BoardResult
from games.writes import services

WIN = json.loads((Path(__file__).parent / "golden" / "classic_seed0_win.json").read_text())


def migrate(target: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


@pytest.mark.django_db(transaction=True)
def test_migrating_from_0006_fills_the_boards(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice", password="pw-alice-123")
    game = services.game_create(owner=alice, rules="classic", seed=WIN["seed"]).game_id
    for command in WIN["actions"]:
        services.game_command(game_id=game, actor=alice, command=command)
    entries = list(BoardEntry.objects.order_by("period").values_list("period", "wins"))
    assert len(entries) == 3 and BoardResult.objects.count() == 1
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("games")
    try:
        migrate([("games", "0006_event_schema_version")])
        assert "games_board_entry" not in connection.introspection.table_names()
    finally:
        migrate(latest)
    assert list(BoardEntry.objects.order_by("period").values_list("period", "wins")) == entries
    assert BoardResult.objects.get().game_id == game
