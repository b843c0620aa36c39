"""Puzzle ratings: Glicko-2 for players and puzzles, a fold of the results log
(docs/ratings.md#puzzles).

An attempt's end appends its result with one call of ``scorpion_puzzle_result``
(migration ``0019_puzzles``): for a rated attempt it locks the player's and the puzzle's
ratings before the result's position is drawn, then updates both from their values under
the lock. :func:`rebuild` folds every rated result again in position order through the
same function, ``scorpion_puzzle_rate``, so it gives back the same bits.

The parameters are lichess's for puzzles (``games.ratings.parameters``): a player starts at
1500, RD 500, volatility 0.09; a puzzle at its :func:`first_rating`, RD 350, as a deal does.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from django.db import connection, transaction

from games.ratings import parameters

#: The rating functions' parameters after the result's own, in their order.
_PARAMETERS = (
    parameters.TAU,
    parameters.RD_MIN,
    parameters.RD_MAX,
    parameters.START_RATING,
    parameters.START_RD,
    parameters.START_VOLATILITY,
    parameters.DEAL_RD,
    parameters.DEAL_VOLATILITY,
)


def first_rating(difficulty: float) -> float:
    """A puzzle's first rating from its difficulty in [0, 1], as a deal's is."""
    return parameters.deal_rating(difficulty)


@dataclass(frozen=True, slots=True)
class Change:
    """What a rated result did: the player's rating before and after (and RD after), the
    puzzle's likewise."""

    player_before: float
    player_after: float
    player_rd: float
    puzzle_before: float
    puzzle_after: float
    puzzle_rd: float

    @property
    def provisional(self) -> bool:
        return parameters.provisional(self.player_rd)


def record(
    *,
    attempt: uuid.UUID,
    puzzle: str,
    player: int,
    rated: bool,
    solved: bool,
    at: dt.datetime,
) -> Change | None:
    """Append an attempt's result, in the caller's transaction, and rate it when
    ``rated``: the change it made (``None`` for an unrated one)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT scorpion_puzzle_result(%s, %s, %s, %s, %s, %s, "
            "%s::float8, %s::float8, %s::float8, %s::float8, %s::float8, %s::float8, "
            "%s::float8, %s::float8)",
            [attempt, puzzle, player, rated, solved, at, *_PARAMETERS],
        )
        (values,) = cursor.fetchone()
    return None if values is None else Change(*values)


def rebuild() -> int:
    """Fold every rated result again, in position order, into fresh ratings (the same
    function as :func:`record`'s, so the same bits); how many. Blocks new results while
    it runs."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "LOCK TABLE games_puzzle_result, games_puzzle_player, games_puzzle_rating,"
            " games_puzzle_rating_change IN EXCLUSIVE MODE"
        )
        cursor.execute(
            "SELECT scorpion_puzzle_rebuild(%s::float8, %s::float8, %s::float8, %s::float8,"
            " %s::float8, %s::float8, %s::float8, %s::float8)",
            list(_PARAMETERS),
        )
        (done,) = cursor.fetchone()
    return int(done)
