"""A deal's rating before anyone plays it, from what the solver learned while certifying it.

Each pool deal is dealt to one rated game only (docs/ratings.md#one-rated-game-a-deal), so a
deal can no longer learn its rating from many players: its first rating must already be
right. It is predicted from the certification's features (:func:`features`): the
certified difficulty, the solver's effort (its nodes on a log scale), the length of the
winning line it found, and how late in that line the reserve is dealt.

The model is the rating system's own: a player rated ``P`` wins a deal rated ``D`` with
probability ``1 / (1 + 10 ** ((D - P) / 400))``, and ``D = weights · features``. The weights
are fitted by maximum likelihood on the rated history (each rated pool game's player rating
before it, its score, and its deal's features), by Newton's method, with a ridge penalty
that pulls them towards :data:`PRIOR`, the mapping from difficulty used before any history
(``1000 + 1200 × difficulty``): with few games the fit stays near it, with many the games
decide. Plain floats in a fixed order, so a fit of the same games gives the same bits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The names of :func:`features`' values, in order (the first is the constant term).
NAMES = ("constant", "difficulty", "effort", "line_length", "reserve_late")
#: The weights before any game: exactly the rating from difficulty used before the fit.
PRIOR = (1000.0, 1200.0, 0.0, 0.0, 0.0)
#: How strongly the weights are pulled towards :data:`PRIOR`: the penalty is
#: ``STRENGTH × Σ ((w − prior) / 400)²``, worth about this many games' evidence per weight.
STRENGTH = 8.0
#: The solver's effort is counted on a log scale up to this many nodes (as the difficulty's).
EFFORT_NODES = 1_000_000
#: Newton's method stops after this many steps, or when no weight moves by this much.
STEPS = 25
TOLERANCE = 1e-6
_K = math.log(10) / 400


def features(
    *, difficulty: float, nodes: int, solution: Sequence[Mapping[str, Any]]
) -> tuple[float, ...]:
    """What the certification of a deal says of it, as the model's inputs (:data:`NAMES`):
    1, its difficulty (0 to 1), the solver's effort (0 to 1, log of its nodes), its winning
    line's length (in hundreds of commands) and where in that line the reserve is dealt
    (0 at the start, 1 at its end or never)."""
    effort = min(1.0, math.log1p(max(0, nodes)) / math.log1p(EFFORT_NODES))
    length = len(solution)
    first_deal = next(
        (at for at, command in enumerate(solution) if command.get("type") == "deal"), length
    )
    return (1.0, float(difficulty), effort, length / 100, first_deal / max(1, length))


@dataclass(frozen=True, slots=True)
class Fit:
    """Fitted weights, the games they were fitted on, and their mean log-likelihood."""

    weights: tuple[float, ...]
    games: int
    log_likelihood: float

    def rating(self, values: Sequence[float]) -> float:
        """The predicted rating of a deal of these :func:`features`."""
        return sum(w * x for w, x in zip(self.weights, values, strict=True))


#: The fit of no game: :data:`PRIOR` itself.
UNFITTED = Fit(weights=PRIOR, games=0, log_likelihood=0.0)


def win_chance(player: float, deal: float) -> float:
    """The chance that a player rated ``player`` wins a deal rated ``deal``."""
    return 1.0 / (1.0 + math.exp(-_K * (player - deal)))


def fit(games: Iterable[tuple[float, float, Sequence[float]]]) -> Fit:
    """The weights that best explain ``games``: each the player's rating before it, its
    score (1 won, 0 not) and its deal's :func:`features`. No game: :data:`UNFITTED`."""
    rows = [(float(player), float(score), tuple(values)) for player, score, values in games]
    if not rows:
        return UNFITTED
    size = len(PRIOR)
    weights = list(PRIOR)
    ridge = 2 * STRENGTH / 400**2
    for _ in range(STEPS):
        gradient = [ridge * (weights[j] - PRIOR[j]) for j in range(size)]
        hessian = [[ridge if i == j else 0.0 for j in range(size)] for i in range(size)]
        for player, score, values in rows:
            chance = win_chance(player, sum(w * x for w, x in zip(weights, values, strict=True)))
            # The negative log-likelihood's slope in the deal's rating is k (score - chance).
            slope = _K * (score - chance)
            curve = _K * _K * chance * (1 - chance)
            for i in range(size):
                gradient[i] += slope * values[i]
                for j in range(size):
                    hessian[i][j] += curve * values[i] * values[j]
        step = _solve(hessian, gradient)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < TOLERANCE:
            break
    likelihood = 0.0
    for player, score, values in rows:
        chance = win_chance(player, sum(w * x for w, x in zip(weights, values, strict=True)))
        chance = min(max(chance, 1e-12), 1 - 1e-12)
        likelihood += math.log(chance) if score >= 0.5 else math.log(1 - chance)
    return Fit(weights=tuple(weights), games=len(rows), log_likelihood=likelihood / len(rows))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix⁻¹ · vector`` by Gaussian elimination with partial pivoting (the matrix is
    symmetric positive definite: the ridge keeps it so)."""
    size = len(vector)
    rows = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, size + 1):
                rows[r][c] -= factor * rows[col][c]
    found = [0.0] * size
    for r in range(size - 1, -1, -1):
        total = rows[r][size] - sum(rows[r][c] * found[c] for c in range(r + 1, size))
        found[r] = total / rows[r][r]
    return found


def deciles(predicted: Sequence[float], actual: Sequence[float]) -> list[tuple[float, float, int]]:
    """Calibration: the games sorted by predicted chance and cut in ten equal groups, each
    as (mean predicted chance, actual win rate, games)."""
    pairs = sorted(zip(predicted, actual, strict=True))
    groups = []
    for tenth in range(10):
        part = pairs[len(pairs) * tenth // 10 : len(pairs) * (tenth + 1) // 10]
        if part:
            groups.append(
                (
                    sum(p for p, _ in part) / len(part),
                    sum(a for _, a in part) / len(part),
                    len(part),
                )
            )
    return groups
