"""The rating system's parameters and the few rules around Glicko-2 (docs/ratings.md).

Pure: the standard library only. The SQL that updates ratings under their rows' locks
(``games.projections.ratings``) takes these figures as parameters, so this module is their
one definition.
"""

from __future__ import annotations

import math

#: The system constant: how much the volatility may change (lichess's puzzles: 0.75).
TAU = 0.75
#: A player's first rating, deviation and volatility (lichess's puzzles).
START_RATING = 1500.0
START_RD = 500.0
START_VOLATILITY = 0.09
#: The deviation never goes below this (lichess: 45), nor above the first one.
RD_MIN = 45.0
RD_MAX = START_RD
#: A rating is provisional while its deviation is at least this (lichess: 110).
PROVISIONAL_RD = 110.0

#: A deal's first rating spans this range over its difficulty 0 (easiest) to 1 (hardest).
DEAL_LOW = 1000.0
DEAL_HIGH = 2200.0
#: A deal's first deviation: the solver's difficulty says something, not everything.
DEAL_RD = 350.0
DEAL_VOLATILITY = START_VOLATILITY

#: The nodes at which a daily deal's difficulty (from the search that certified it) is 1:
#: ``log10(nodes) / log10(DAILY_NODES_HARDEST)``, clamped to [0, 1].
DAILY_NODES_HARDEST = 1_000_000


def provisional(rd: float) -> bool:
    """Whether a rating of deviation ``rd`` is provisional."""
    return rd >= PROVISIONAL_RD


def deal_rating(difficulty: float) -> float:
    """A deal's first rating from its difficulty in [0, 1] (clamped)."""
    weight = min(1.0, max(0.0, difficulty))
    return DEAL_LOW + (DEAL_HIGH - DEAL_LOW) * weight


def daily_difficulty(nodes: int | None) -> float:
    """A daily deal's difficulty in [0, 1] from the nodes its certifying search took (a day
    made before deals were certified, ``None``: the middle)."""
    if nodes is None:
        return 0.5
    return min(1.0, max(0.0, math.log10(max(1, nodes)) / math.log10(DAILY_NODES_HARDEST)))


def clamp_rd(rd: float) -> float:
    """``rd`` kept within [:data:`RD_MIN`, :data:`RD_MAX`]."""
    return min(RD_MAX, max(RD_MIN, rd))
