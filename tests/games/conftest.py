import json
from pathlib import Path

import pytest

from games import streams

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(autouse=True)
def _cold_stream_cache():  # type: ignore[no-untyped-def]
    """Each test starts without cached streams (the database is rolled back between tests)."""
    streams.cache.clear()
    yield
    streams.cache.clear()


@pytest.fixture
def alice(django_user_model):  # type: ignore[no-untyped-def]
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(django_user_model):  # type: ignore[no-untyped-def]
    return django_user_model.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture(scope="session")
def sample_deal() -> list[str]:
    """The sample deal printed in the rules."""
    return list(json.loads((FIXTURES / "seed_deal.json").read_text())["deal"])


@pytest.fixture(autouse=True, scope="session")
def _flush_past_append_only_triggers():  # type: ignore[no-untyped-def]
    """Let test teardown empty the events table between transactional tests.

    Django's flush TRUNCATEs every table, which the append-only triggers refuse (as they
    must). Test teardown runs it as the database superuser with triggers disabled for that
    one transaction (``session_replication_role = replica``); every test still runs with
    the triggers on, and test_event_store proves they refuse TRUNCATE.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):  # type: ignore[no-untyped-def]
        return original(self, ["SET LOCAL session_replication_role = replica", *sql_list])

    DatabaseOperations.execute_sql_flush = execute_sql_flush
    yield
    DatabaseOperations.execute_sql_flush = original
