"""Upgrading a database that already holds games: from 0006, ``0011_rebuild_projections``
fills the boards (0008) and every other projection, once all their tables exist; from 0010
it rebuilds the contest results with their ``hints``, a column 0013 adds but 0011 needs;
from 0012 (where deployments stand) 0013 fills ``hints`` and the arena points of aided wins
in SQL, from the stored ``hinted`` events."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games import clock
from games.boards.models import BoardEntry, BoardResult
from games.dailies import secrets
from games.dailies.models import ContestResult, DailyChallenge, Standing
from games.reads import selectors
from games.reads.visibility import Viewer
from games.writes import contests, services
from tests.golden import WIN

DAY = dt.date(2026, 11, 30)


def migrate(target: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes("games")


def hint(game_id, user) -> None:
    game = selectors.game_get(game_id=game_id, viewer=Viewer.of(user)).game
    assert services.game_hint(game=game, viewer=user).recorded


def play(game_id, user, commands) -> None:
    for command in commands:
        services.game_command(game_id=game_id, actor=user, command=command)


def columns(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return {c.name for c in connection.introspection.get_table_description(cursor, table)}


def arena_points() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM games_arena_points ORDER BY 1, 2, 3")
        return cursor.fetchall()


@pytest.mark.django_db(transaction=True)
def test_migrating_from_0006_fills_the_boards(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice", password="pw-alice-123")
    game = services.game_create(owner=alice, rules="classic", seed=WIN["seed"]).game_id
    play(game, alice, WIN["actions"])
    DailyChallenge.objects.create(
        date=DAY, rules="classic", seed=WIN["seed"], created_at=clock.now()
    )
    with clock.frozen(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)):
        daily, _ = services.challenge_join(date=DAY, player=alice)
        hint(daily.game_id, alice)
    entries = list(BoardEntry.objects.order_by("period").values_list("period", "wins"))
    assert len(entries) == 3 and BoardResult.objects.count() == 1
    try:
        migrate([("games", "0006_event_schema_version")])
        assert "games_board_entry" not in connection.introspection.table_names()
        assert "hints" not in columns("games_standing")
    finally:
        migrate(latest())
    assert list(BoardEntry.objects.order_by("period").values_list("period", "wins")) == entries
    assert BoardResult.objects.get().game_id == game
    assert Standing.objects.get(game_id=daily.game_id).hints == 1


@pytest.fixture
def hinted_contests(django_user_model, winning_line):
    """A race game with two hints, not won; in a wasp arena, one win with a hint and one
    without (made until the arena's deal is one the solver wins)."""
    alice = django_user_model.objects.create_user("alice", password="pw-alice-123")
    bob = django_user_model.objects.create_user("bob", password="pw-bob-123")
    race = contests.race_create(
        creator=alice,
        rules="classic",
        deals=1,
        countdown=dt.timedelta(0),
        time_limit=dt.timedelta(hours=1),
    )
    (raced,), _ = contests.race_games(race=race, player=alice)
    hint(raced.game_id, alice)
    play(raced.game_id, alice, [{"type": "deal"}])
    hint(raced.game_id, alice)
    for _attempt in range(30):
        now = clock.now()
        arena = contests.arena_schedule(
            rules="wasp", starts_at=now, ends_at=now + dt.timedelta(hours=1), title="hints"
        )
        line = winning_line("wasp", secrets.contest_seed(arena.id, 1))
        if line is not None:
            break
    assert line is not None
    aided, _ = contests.arena_play(arena=arena, player=alice)
    hint(aided.game_id, alice)
    play(aided.game_id, alice, line)
    unaided, _ = contests.arena_play(arena=arena, player=bob)
    play(unaided.game_id, bob, line)
    results = {
        row["game_id"]: row for row in ContestResult.objects.values() if row["status"] == "won"
    }
    assert results[aided.game_id]["hints"] == 1 and results[aided.game_id]["points"] == 80
    assert results[unaided.game_id]["hints"] == 0 and results[unaided.game_id]["points"] > 100
    assert ContestResult.objects.get(game_id=raced.game_id).hints == 2
    return aided.game_id


def results() -> list[dict]:
    return list(ContestResult.objects.order_by("game_id").values())


@pytest.mark.django_db(transaction=True)
def test_migrating_from_0010_rebuilds_contest_results_with_their_hints(hinted_contests) -> None:
    before, board = results(), arena_points()
    try:
        migrate([("games", "0010_solver_integration")])
        assert "hints" not in columns("games_contest_result")
        assert "games_arena_points" not in connection.introspection.table_names()
    finally:
        migrate(latest())
    assert results() == before
    assert arena_points() == board


@pytest.mark.django_db(transaction=True)
def test_migrating_from_0012_fills_hints_and_points_in_sql(hinted_contests) -> None:
    before, board = results(), arena_points()
    aided = hinted_contests
    try:
        migrate([("games", "0012_arena_points_board")])
        assert "hints" not in columns("games_contest_result")
        with connection.cursor() as cursor:  # the points of before hints counted
            cursor.execute("SELECT points FROM games_contest_result WHERE game_id = %s", [aided])
            assert cursor.fetchone()[0] > 100
    finally:
        migrate(latest())
    assert results() == before
    assert arena_points() == board
