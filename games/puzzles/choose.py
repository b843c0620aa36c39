"""Which puzzle a player gets (docs/puzzles.md#modes): never one they have seen (an
attempt of theirs exists: the database's ``puzzle_seen_once`` is the last guard), and
never a day's puzzle outside its day, so that the puzzle of the day is new to everyone.

- a rated puzzle: the one whose rating (its first one until someone played it rated) is
  nearest the player's, as lichess picks puzzles;
- Streak: the lowest rated, then each time the nearest above the last one, so that they
  rise;
- the puzzle of a day: one nobody has seen yet, the fewest plays first, of a middling
  rating (nearest :data:`DAY_RATING`), a real player's mistake first.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

#: The puzzle of the day is chosen nearest this rating.
DAY_RATING = 1500.0

_RATING = "COALESCE(r.rating, p.first_rating)"
_UNSEEN = """NOT EXISTS (SELECT 1 FROM games_puzzle_attempt a
                 WHERE a.puzzle_id = p.id AND a.player_id = %(player)s)
    AND NOT EXISTS (SELECT 1 FROM games_puzzle_day d WHERE d.puzzle_id = p.id)"""


def _one(sql: str, params: dict[str, Any]) -> tuple[str, float] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else (str(row[0]), float(row[1]))


def nearest(player: int, rating: float) -> str | None:
    """The unseen puzzle whose rating is nearest ``rating``."""
    found = _one(
        f"""SELECT p.id, {_RATING} FROM games_puzzle p
        LEFT JOIN games_puzzle_rating r ON r.puzzle_id = p.id
        WHERE {_UNSEEN}
        ORDER BY abs({_RATING} - %(rating)s), p.id LIMIT 1""",
        {"player": player, "rating": rating},
    )
    return None if found is None else found[0]


def rising(player: int, above: float | None) -> tuple[str, float] | None:
    """Streak's next puzzle: the lowest rated unseen one at or above ``above`` (any, for
    ``None``), and its rating."""
    return _one(
        f"""SELECT p.id, {_RATING} FROM games_puzzle p
        LEFT JOIN games_puzzle_rating r ON r.puzzle_id = p.id
        WHERE {_UNSEEN} AND (%(above)s::float8 IS NULL OR {_RATING} >= %(above)s::float8)
        ORDER BY {_RATING}, p.id LIMIT 1""",
        {"player": player, "above": above},
    )


def rating_of(puzzle: str) -> float:
    """A puzzle's rating now (its first one until it was played rated)."""
    found = _one(
        f"""SELECT p.id, {_RATING} FROM games_puzzle p
        LEFT JOIN games_puzzle_rating r ON r.puzzle_id = p.id WHERE p.id = %(id)s""",
        {"id": puzzle},
    )
    assert found is not None, "the puzzle exists"
    return found[1]


def for_day() -> str | None:
    """A puzzle for a new day: never a day's before, the fewest attempts first (none, if
    any is left), then a real player's mistake, then the rating nearest
    :data:`DAY_RATING`."""
    found = _one(
        f"""SELECT p.id, {_RATING} FROM games_puzzle p
        LEFT JOIN games_puzzle_rating r ON r.puzzle_id = p.id
        WHERE NOT EXISTS (SELECT 1 FROM games_puzzle_day d WHERE d.puzzle_id = p.id)
        ORDER BY (SELECT count(*) FROM games_puzzle_attempt a WHERE a.puzzle_id = p.id),
                 NOT p.mistake, abs({_RATING} - %(rating)s), p.id
        LIMIT 1""",
        {"rating": DAY_RATING},
    )
    return None if found is None else found[0]
