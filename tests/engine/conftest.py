import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def sample(sample_fixture: dict) -> dict:
    return sample_fixture


@pytest.fixture(scope="session")
def sample_fixture() -> dict:
    """The sample deal printed in the rules (shared/fixtures/seed_deal.json)."""
    return json.loads((FIXTURES / "seed_deal.json").read_text())


@pytest.fixture
def sample_deal(sample_fixture: dict) -> list[str]:
    return list(sample_fixture["deal"])
