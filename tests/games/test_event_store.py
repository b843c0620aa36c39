"""The events table is append-only in PostgreSQL itself, and its constraints hold."""

import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.utils import DatabaseError

from games.store.models import Event
from games.writes import services


@pytest.fixture
def game(django_user_model):
    owner = django_user_model.objects.create_user("alice", password="pw-alice-123")
    return services.game_create(owner=owner, seed=42)


def raw(sql: str, params: list[object] | None = None) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        # Check the test's own pending foreign keys now: PostgreSQL refuses TRUNCATE while
        # deferred constraint triggers are pending, which would hide what we test.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(sql, params or [])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE games_event SET type = 'moved' WHERE game_id = %s",
        "UPDATE games_event SET data = '{}'::jsonb",
        "DELETE FROM games_event WHERE game_id = %s",
        "DELETE FROM games_event",
        "TRUNCATE games_event",
        "TRUNCATE games_event CASCADE",
    ],
)
def test_database_refuses_to_change_or_remove_events(game, statement: str) -> None:
    params = [game.game_id] if "%s" in statement else []
    with pytest.raises(DatabaseError, match="append-only"):
        raw(statement, params)
    assert Event.objects.filter(game_id=game.game_id).count() == 1


@pytest.mark.django_db
def test_orm_cannot_change_or_delete_an_event_either(game) -> None:
    event = Event.objects.get(game_id=game.game_id)
    event.type = "moved"
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        event.save()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        Event.objects.filter(game_id=game.game_id).delete()


@pytest.mark.django_db
def test_seq_is_unique_per_game(game) -> None:
    first = Event.objects.get(game_id=game.game_id)
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(
            game_id=game.game_id,
            seq=1,
            type="resigned",
            data={},
            actor_id=first.actor_id,
            at=first.at,
        )
    # Another game may use the same seq.
    Event.objects.create(
        game_id=uuid.uuid4(),
        seq=1,
        type="resigned",
        data={},
        actor_id=first.actor_id,
        at=first.at,
    )


@pytest.mark.django_db
def test_idempotency_key_is_unique_per_game_and_seq_positive(game) -> None:
    first = Event.objects.get(game_id=game.game_id)
    common = {"game_id": game.game_id, "type": "dealt", "data": {}, "actor_id": first.actor_id}
    Event.objects.create(seq=2, idempotency_key="k1", at=first.at, **common)
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(seq=3, idempotency_key="k1", at=first.at, **common)
    Event.objects.create(seq=3, idempotency_key=None, at=first.at, **common)
    Event.objects.create(seq=4, idempotency_key=None, at=first.at, **common)
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(seq=0, at=first.at, **common)
