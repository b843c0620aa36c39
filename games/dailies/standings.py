"""Daily challenge standings, ranked by PostgreSQL: the rows are a projection of each
game's events (``games.projections.standings``), written in the statement of each append.

Ranking (docs/api.md#standings): won games first, those won without a hint before those
won with hints, each by least ``elapsed_ms`` then fewest moves; then the rest by most
sequences, most revealed cards, highest score; ties by who joined first.
Voided results and banned players are left out. The whole ranked list is built as JSON by
one query, with a ``revision`` (the sum of every entry's game version) so that a watcher
never swaps newer standings for older ones. After each change, each server process reads the
standings once for all its watchers (``games.live``).
"""

from __future__ import annotations

import datetime as dt

from games import routing

_RANKED = """
SELECT COALESCE(SUM(s.version), 0) AS revision,
       COALESCE(json_agg(json_build_object(
           'rank', r.rank, 'player', r.player, 'status', r.status, 'moves', r.moves,
           'score', r.score, 'sequences', r.sequences, 'revealed', r.revealed,
           'elapsed_ms', r.elapsed_ms, 'hints', r.hints,
           'game', CASE WHEN %(games)s THEN r.game_id END,
           'started_at', to_char(r.joined_at AT TIME ZONE 'UTC',
                                 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY r.rank)
         FILTER (WHERE r.rank IS NOT NULL), '[]'::json)::text AS results
FROM games_standing s
LEFT JOIN (
    SELECT s.game_id, u.username AS player, s.status, s.moves, s.score, s.sequences,
           s.revealed, s.elapsed_ms, s.hints, s.joined_at,
           row_number() OVER (ORDER BY
               (s.status = 'won') DESC,
               (s.status = 'won' AND s.hints = 0) DESC,
               CASE WHEN s.status = 'won' THEN s.elapsed_ms END ASC,
               CASE WHEN s.status = 'won' THEN s.moves END ASC,
               s.sequences DESC, s.revealed DESC, s.score DESC,
               s.joined_at ASC, s.game_id ASC) AS rank
    FROM games_standing s
    JOIN auth_user u ON u.id = s.player_id
    LEFT JOIN games_player p ON p.user_id = s.player_id
    WHERE s.challenge_id = %(day)s AND NOT s.voided AND NOT COALESCE(p.banned, FALSE)
) r ON r.game_id = s.game_id
WHERE s.challenge_id = %(day)s
"""


def ranked(date: dt.date | str, *, games: bool = True) -> tuple[int, str]:
    """``(revision, JSON text of the ranked results)`` of a challenge, in one query; each
    entry's ``game`` is its game's id, or null without ``games`` (who may see which is
    ``games.reads.visibility.standing_games_shown``)."""
    with routing.read_connection().cursor() as cursor:
        cursor.execute(_RANKED, {"day": str(date), "games": games})
        revision, results = cursor.fetchone()
    return int(revision), results
