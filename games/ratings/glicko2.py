"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system"), in plain floating point.

:func:`rate` is the whole rating period of the paper (any number of games), written step by
step in the paper's own order and names. The server updates after every single game, as
lichess does for its puzzles (:func:`rate_one`), and does it inside PostgreSQL under the
rating rows' locks: the SQL function ``scorpion_glicko2`` (migration
``0015_ratings``) is this same arithmetic, operation by operation, and
``tests/games/test_glicko2.py`` checks that both give the same bits. What the server
changed of lichess's parameters, and why, is in docs/ratings.md.

Pure: the standard library only, no clock, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The paper's scale between the Glicko scale and Glicko-2's (step 2).
SCALE = 173.7178
#: The centre of the scale.
CENTRE = 1500.0
#: The convergence tolerance of the volatility's iteration (step 5).
EPSILON = 0.000001


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating on the Glicko scale: ``rating``, its deviation ``rd`` and ``volatility``."""

    rating: float
    rd: float
    volatility: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def rate(player: Rating, games: Sequence[tuple[Rating, float]], *, tau: float) -> Rating:
    """``player`` after one rating period of ``games`` (each the opponent's rating before
    the period and the player's score: 1 a win, 0 a loss). No games: only the deviation
    grows (step 6)."""
    mu = (player.rating - CENTRE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    # Step 3: the estimated variance v; step 4: the improvement delta.
    inverse_v = 0.0
    improvement = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - CENTRE) / SCALE
        g_j = _g(opponent.rd / SCALE)
        expected = _e(mu, mu_j, g_j)
        inverse_v = inverse_v + g_j * g_j * expected * (1.0 - expected)
        improvement = improvement + g_j * (score - expected)
    v = 1.0 / inverse_v
    delta = v * improvement
    # Step 5: the new volatility, by the Illinois algorithm.
    sigma_new = _volatility(phi, sigma, v, delta, tau)
    # Steps 6 and 7: the new deviation and rating.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8: back to the Glicko scale.
    return Rating(SCALE * mu_new + CENTRE, SCALE * phi_new, sigma_new)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1.0
        while f(a - k * tau) < 0.0:
            k = k + 1.0
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a = big_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = big_c
        f_b = f_c
    return math.exp(big_a / 2.0)


def rate_one(player: Rating, opponent: Rating, score: float, *, tau: float) -> Rating:
    """``player`` after one game against ``opponent`` (both as they were before it): a
    rating period of one game, as lichess rates a puzzle attempt."""
    return rate(player, ((opponent, score),), tau=tau)
