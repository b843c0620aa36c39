"""Glicko-2 as Glickman's paper works it: the worked example, to the paper's digits."""

import pytest

from games.ratings.glicko2 import Rating, rate, rate_one


def test_glickmans_worked_example() -> None:
    player = Rating(1500.0, 200.0, 0.06)
    games = [
        (Rating(1400.0, 30.0, 0.06), 1.0),
        (Rating(1550.0, 100.0, 0.06), 0.0),
        (Rating(1700.0, 300.0, 0.06), 0.0),
    ]
    after = rate(player, games, tau=0.5)
    # The paper's step 7 and 8, on the Glicko-2 scale: mu' = -0.2069, phi' = 0.8722.
    assert round((after.rating - 1500) / 173.7178, 4) == -0.2069
    assert round(after.rd / 173.7178, 4) == 0.8722
    # Back on the Glicko scale the paper multiplies its rounded mu' (-0.2069): 1464.06; the
    # unrounded mu' gives 1464.0507, within a hundredth of it.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.rd, 2) == 151.52
    # The paper's 0.05999 is 0.059996 cut to five places.
    assert 0.05999 <= after.volatility < 0.06000
    assert round(after.volatility, 6) == 0.059996


def test_no_game_only_widens_the_deviation() -> None:
    after = rate(Rating(1500.0, 200.0, 0.06), [], tau=0.5)
    assert after.rating == 1500.0
    assert after.rd == pytest.approx(200.2714, abs=1e-4)


def test_one_game_moves_winner_up_and_loser_down_by_the_deviations() -> None:
    sure = Rating(1500.0, 50.0, 0.06)
    new = Rating(1500.0, 350.0, 0.06)
    won = rate_one(new, sure, 1.0, tau=0.75)
    lost = rate_one(sure, new, 0.0, tau=0.75)
    assert won.rating > 1500.0 > lost.rating
    # The unsure rating moves much more than the sure one; a game against an unsure
    # opponent teaches the sure player almost nothing (the period's volatility outweighs it).
    assert won.rating - 1500.0 > 10 * (1500.0 - lost.rating)
    assert won.rd < 350.0
    assert lost.rd == pytest.approx(50.0, abs=1.0)


def test_the_large_improvement_branch_of_the_volatility() -> None:
    """A surprise larger than the variance takes the paper's first bracket (B = ln(...))."""
    after = rate_one(Rating(1000.0, 40.0, 0.06), Rating(2500.0, 40.0, 0.06), 1.0, tau=0.75)
    assert after.volatility > 0.06
    assert after.rating > 1000.0
