"""The ``arena_points`` leaderboards: a view over the arenas' results, not a table.

``games_arena_points`` has the columns every board's relation has (``scope``, ``period``,
``player_id``, the value ``points`` and the moment ``points_at``) and sums
``games_contest_result.points`` (each arena game's points, projected with each of its
events and rebuilt by ``rebuild_projections``) per player, ruleset and period. A view can
never drift from the results, and needs no projection of its own to keep or rebuild.

- only games of arenas count (``games_contest.kind = 'arena'``), in the arena's ruleset
  (the scope), never in ``daily``; voided results do not count (banned players are left
  out by the ranking, as on every board);
- a game counts in the periods of the moment of its points: its finish (``finished_at``),
  or, for a game still playing, its last event (``joined_at + elapsed_ms``, to the
  millisecond); ``all``, the UTC month ``YYYY-MM`` and the UTC ISO week ``IYYY-"W"IW``,
  the keys ``games.boards.metrics`` makes;
- ``points_at``, which orders equal totals, is the latest such moment among the games
  that scored (null when the total is 0, which is off the board).

A later migration that changes the type of one of these columns of
``games_contest_result`` or ``games_contest`` must drop and recreate the view around it.
"""

from django.db import migrations

CREATE = """
CREATE VIEW games_arena_points AS
WITH earned AS (
    SELECT c.rules AS scope, r.player_id, r.points,
           COALESCE(r.finished_at, r.joined_at + r.elapsed_ms * INTERVAL '1 millisecond')
               AS at
    FROM games_contest_result r
    JOIN games_contest c ON c.id = r.contest_id
    WHERE c.kind = 'arena' AND NOT r.voided
)
SELECT e.scope,
       p.period,
       e.player_id,
       SUM(e.points)::bigint AS points,
       MAX(e.at) FILTER (WHERE e.points > 0) AS points_at
FROM earned e
CROSS JOIN LATERAL (VALUES
    ('all'),
    (to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM')),
    (to_char(e.at AT TIME ZONE 'UTC', 'IYYY-"W"IW'))
) AS p(period)
GROUP BY e.scope, p.period, e.player_id
"""

DROP = "DROP VIEW IF EXISTS games_arena_points"


class Migration(migrations.Migration):
    dependencies = [("games", "0011_rebuild_projections")]

    operations = [migrations.RunSQL(CREATE, DROP)]
