"""The Glicko-2 update that serves ratings runs in PostgreSQL (``scorpion_glicko2``); it is
``games.ratings.glicko2.rate_one`` operation by operation, to the bit."""

import random
import struct

import pytest
from django.db import connection

from games.ratings.glicko2 import Rating, rate_one

pytestmark = pytest.mark.django_db


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def test_the_sql_update_equals_the_python_one_bit_for_bit() -> None:
    rng = random.Random(20261203)
    cases = [
        (1500.0, 500.0, 0.09, 1500.0, 350.0, 1.0, 0.75),
        (1500.0, 200.0, 0.06, 1400.0, 30.0, 1.0, 0.5),
        (1000.0, 40.0, 0.06, 2500.0, 40.0, 1.0, 0.75),  # the large-improvement bracket
    ]
    for _ in range(400):
        cases.append(
            (
                rng.uniform(600.0, 2600.0),
                rng.uniform(45.0, 500.0),
                rng.uniform(0.03, 0.12),
                rng.uniform(600.0, 2600.0),
                rng.uniform(45.0, 500.0),
                rng.choice((0.0, 1.0)),
                0.75,
            )
        )
    with connection.cursor() as cursor:
        for r, rd, sigma, r_j, rd_j, score, tau in cases:
            cursor.execute(
                "SELECT * FROM scorpion_glicko2(%s, %s, %s, %s, %s, %s, %s)",
                (r, rd, sigma, r_j, rd_j, score, tau),
            )
            row = cursor.fetchone()
            expected = rate_one(Rating(r, rd, sigma), Rating(r_j, rd_j, 0.06), score, tau=tau)
            got = tuple(map(bits, row))
            want = tuple(map(bits, (expected.rating, expected.rd, expected.volatility)))
            assert got == want, (r, rd, sigma, r_j, rd_j, score, tau, row, expected)


def test_glickmans_example_through_the_sql_function_one_game_at_a_time() -> None:
    """The SQL function is a one-game period: the first game of the paper's example."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM scorpion_glicko2(1500, 200, 0.06, 1400, 30, 1, 0.5)")
        row = cursor.fetchone()
    expected = rate_one(Rating(1500.0, 200.0, 0.06), Rating(1400.0, 30.0, 0.06), 1.0, tau=0.5)
    assert row == (expected.rating, expected.rd, expected.volatility)
