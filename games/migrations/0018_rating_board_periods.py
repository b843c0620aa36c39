"""The ``rating`` board in every period, not only all time.

A week's or a month's rating board lists the players who had a rating change in it (a
rated game, or a moderator's void or restore of one), each with their rating as their last
change of that period left it, if it was no longer provisional then (RD below 110): who
was playing rated games that week, and how strong they were at its end. All time stays
the ratings as they are now (``0015_ratings``). The rows come from the players' history
(``games_rating_change``), so the view never drifts from the ratings and the rebuild
needs nothing more; ties go to who reached the rating first, as on every board.
"""

from django.db import migrations

VIEW = """
CREATE OR REPLACE VIEW games_rating_board AS
SELECT r.rules AS scope, 'all'::text AS period, r.player_id,
       round(r.rating)::integer AS rating, r.updated_at AS rated_at
FROM games_rating_player r
WHERE r.rd < 110 AND r.games > 0
UNION ALL
SELECT last.rules, last.period, last.player_id, round(last.rating)::integer, last.at
FROM (
    SELECT DISTINCT ON (c.rules, k.period, c.player_id)
           c.rules, k.period, c.player_id, c.rating, c.rd, c.at
    FROM games_rating_change c
    CROSS JOIN LATERAL (VALUES
        (to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM')),
        (to_char(c.at AT TIME ZONE 'UTC', 'IYYY-"W"IW'))
    ) AS k(period)
    ORDER BY c.rules, k.period, c.player_id, c.n DESC
) AS last
WHERE last.rd < 110"""

ALL_TIME = """
CREATE OR REPLACE VIEW games_rating_board AS
SELECT r.rules AS scope, 'all'::text AS period, r.player_id,
       round(r.rating)::integer AS rating, r.updated_at AS rated_at
FROM games_rating_player r
WHERE r.rd < 110 AND r.games > 0"""


class Migration(migrations.Migration):
    dependencies = [("games", "0017_rating_score_function")]

    operations = [migrations.RunSQL(VIEW, ALL_TIME)]
