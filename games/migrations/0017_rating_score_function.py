"""A rated game's scoring in one function call: ``scorpion_rating_score``.

The scoring's part of the append statement was six common table expressions (lock both
ratings, compute both updates, write the player's, the deal's, the game's row and the
history row): PostgreSQL parsed and planned them again for every finishing command, which
cost a rated finish about 40% more than an unrated one. Here they are one PL/pgSQL
function, whose statements PostgreSQL prepares once per connection; the statement calls it
``FROM head`` and the event's insert waits for it, so the rows are still locked before
the event's position is drawn (docs/ratings.md). The arithmetic is unchanged:
``scorpion_glicko2`` (``0015_ratings``).

``0011_rebuild_projections`` runs :data:`DDL` too: the projection code it runs calls this.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION scorpion_rating_score(
    game uuid, player integer, rules text, seed bigint, score float8, tau float8,
    counted boolean, at timestamptz, seq integer, rd_min float8, rd_max float8
) RETURNS float8[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    p games_rating_player%ROWTYPE;
    d games_rating_deal%ROWTYPE;
    np record;
    nd record;
    p_rd2 float8;
    d_rd2 float8;
    n integer;
BEGIN
    SELECT * INTO p FROM games_rating_player r
    WHERE r.player_id = player AND r.rules = scorpion_rating_score.rules FOR UPDATE;
    SELECT * INTO d FROM games_rating_deal r
    WHERE r.rules = scorpion_rating_score.rules AND r.seed = scorpion_rating_score.seed
    FOR UPDATE;
    IF p.id IS NULL OR d.id IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT * INTO np FROM scorpion_glicko2(p.rating, p.rd, p.volatility, d.rating, d.rd,
                                           score, tau);
    SELECT * INTO nd FROM scorpion_glicko2(d.rating, d.rd, d.volatility, p.rating, p.rd,
                                           1.0::float8 - score, tau);
    p_rd2 := LEAST(rd_max, GREATEST(rd_min, np.deviation));
    d_rd2 := LEAST(rd_max, GREATEST(rd_min, nd.deviation));
    INSERT INTO games_rated_game
        (game_id, player_id, rules, seed, score, at,
         player_before, player_rd_before, player_volatility_before,
         player_after, player_rd_after, player_volatility_after,
         deal_before, deal_rd_before, deal_volatility_before,
         deal_after, deal_rd_after, deal_volatility_after, counted, deal_counted)
    VALUES (game, player, rules, seed, score, at,
            p.rating, p.rd, p.volatility, np.rating, p_rd2, np.volatility,
            d.rating, d.rd, d.volatility, nd.rating, d_rd2, nd.volatility, counted, counted);
    IF counted THEN
        UPDATE games_rating_player SET rating = np.rating, rd = p_rd2,
            volatility = np.volatility, games = games + 1, changes = changes + 1,
            updated_at = at
        WHERE id = p.id RETURNING changes INTO n;
        UPDATE games_rating_deal SET rating = nd.rating, rd = d_rd2,
            volatility = nd.volatility, games = games + 1
        WHERE id = d.id;
        INSERT INTO games_rating_change
            (player_id, rules, n, kind, game_id, seq, at, rating, rd, volatility)
        VALUES (player, rules, n, 'game', game, seq, at, np.rating, p_rd2, np.volatility);
    END IF;
    RETURN ARRAY[p.rating, np.rating, p_rd2, d.rating, nd.rating, d_rd2];
END $$"""

#: What this migration makes, idempotent: ``0011_rebuild_projections`` runs it too.
DDL = [FUNCTION]

UNDO = [
    "DROP FUNCTION IF EXISTS scorpion_rating_score(uuid, integer, text, bigint, float8,"
    " float8, boolean, timestamptz, integer, float8, float8)"
]


class Migration(migrations.Migration):
    dependencies = [("games", "0016_merge")]

    operations = [migrations.RunSQL(DDL, UNDO)]
