import json
from pathlib import Path

import pytest

from games.store import streams

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(autouse=True)
def _cold_stream_cache():
    """Each test starts without cached streams (the database is rolled back between tests)."""
    streams.cache.clear()
    yield
    streams.cache.clear()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture(scope="session")
def sample_deal() -> list[str]:
    """The sample deal printed in the rules."""
    return list(json.loads((FIXTURES / "seed_deal.json").read_text())["deal"])
