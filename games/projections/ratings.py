"""Ratings as a projection of the events: Glicko-2 for players and deals (docs/ratings.md).

A rated game is a match between its player and its deal, in its ruleset's pool. Four events
of a rated game touch the ratings, each in its own append statement:

- ``created``: the player's rating (1500, 500, 0.09) and the deal's (the rating its event
  gives, predicted from its certification, else from its difficulty) are made if they do
  not exist yet;
- the event that **scores** it (the first that finishes or restarts it,
  ``Stream.scored``): one call of the SQL function ``scorpion_rating_score`` locks both
  rows, computes both one-game updates by ``scorpion_glicko2`` (``games.ratings.glicko2``'s
  twin) from the values under the lock, and writes them with the game's
  :class:`~games.ratings.models.RatedGame` and the player's history row. A game voided
  before it was scored keeps its computed change without applying it;
- a **void** takes the game's change off both ratings (rating and deviation; the
  volatility stays); a **restore** puts it back, the deal's only when the player is not
  banned (``ResultRestored.owner_banned``).

**Order.** Those statements lock the player's and the deal's rows *before* the event's
position is drawn (their fragment is a gate, ``games.store.append.Fragment``), and hold the
locks until they commit. So of two writers of one rating, the one that updated it first
has the smaller position, and ``rebuild_projections`` replays every rating event in
position order, through the same SQL, to the same bits. Writers of different ratings
commute.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from django.db import connection

from games.projections.base import Change, Projection
from games.ratings import parameters, predict
from games.ratings.models import DealRating, PlayerRating, RatedGame, RatingChange
from games.store import append as store
from games.store import events, streams
from games.store.append import Fragment
from games.store.models import Event
from games.store.summary import GameSummary, RatedResult

_CLAMP = f"LEAST({parameters.RD_MAX}::float8, GREATEST({parameters.RD_MIN}::float8, {{}}))"

#: A rated game's start: its player's and its deal's ratings, when they do not exist yet.
_START_PLAYER = """INSERT INTO games_rating_player
    (player_id, rules, rating, rd, volatility, games, changes)
SELECT %(rt_player)s, %(rt_rules)s, %(rt_start_rating)s, %(rt_start_rd)s,
       %(rt_start_volatility)s, 0, 0
FROM head
ON CONFLICT (player_id, rules) DO NOTHING"""
_START_DEAL = """INSERT INTO games_rating_deal (rules, seed, rating, rd, volatility, games)
SELECT %(rt_rules)s, %(rt_seed)s, %(rt_deal_rating)s, %(rt_deal_rd)s, %(rt_deal_volatility)s, 0
FROM head
ON CONFLICT (rules, seed) DO NOTHING"""

#: The scoring event: one call of ``scorpion_rating_score`` (migration
#: ``0017_rating_score_function``), which locks both rows, computes both updates from their
#: values under the lock (``scorpion_glicko2``) and writes them with the game's row and the
#: history row; the event's insert waits for it (the gate). It returns both ratings before
#: and after: ``[player, player after, player RD after, deal, deal after, deal RD after]``.
_SCORE = """SELECT scorpion_rating_score(
    head.id, %(rt_player)s, %(rt_rules)s, %(rt_seed)s, %(rt_score)s::float8,
    %(rt_tau)s::float8, %(rt_counted)s, %(rt_at)s, %(rt_seq)s, %(rt_rd_min)s::float8,
    %(rt_rd_max)s::float8) AS change
FROM head"""
_SCORE_RETURNS = "SELECT change FROM rating_score"

#: A void or a restore: the game's change off both ratings, or back on.
_MODERATE_LOCK = """SELECT g.*, p.id AS p_id, d.id AS d_id
FROM head
JOIN games_rated_game g ON g.game_id = head.id
JOIN games_rating_player p ON p.player_id = g.player_id AND p.rules = g.rules
JOIN games_rating_deal d ON d.rules = g.rules AND d.seed = g.seed
WHERE g.counted = %(rt_voiding)s
FOR UPDATE OF p, d, g"""
_MODERATE_PLAYER = f"""UPDATE games_rating_player AS p
SET rating = p.rating + %(rt_sign)s::float8 * (o.player_after - o.player_before),
    rd = {_CLAMP.format("p.rd + %(rt_sign)s::float8 * (o.player_rd_after - o.player_rd_before)")},
    games = p.games + %(rt_sign)s::integer, changes = p.changes + 1, updated_at = %(rt_at)s
FROM rating_lock o
WHERE p.id = o.p_id
RETURNING p.changes, p.rating, p.rd, p.volatility"""
_MODERATE_DEAL = f"""UPDATE games_rating_deal AS d
SET rating = d.rating + %(rt_sign)s::float8 * (o.deal_after - o.deal_before),
    rd = {_CLAMP.format("d.rd + %(rt_sign)s::float8 * (o.deal_rd_after - o.deal_rd_before)")},
    games = d.games + %(rt_sign)s::integer
FROM rating_lock o
WHERE d.id = o.d_id AND (CASE WHEN %(rt_voiding)s THEN o.deal_counted ELSE %(rt_deal)s END)"""
_MODERATE_GAME = """UPDATE games_rated_game AS g
SET counted = NOT %(rt_voiding)s,
    deal_counted = CASE WHEN %(rt_voiding)s THEN FALSE ELSE %(rt_deal)s END
FROM rating_lock o
WHERE g.game_id = o.game_id"""

#: The player's history row after a change (``rating_player`` returns their new rating).
_HISTORY = """INSERT INTO games_rating_change
    (player_id, rules, n, kind, game_id, seq, at, rating, rd, volatility)
SELECT %(rt_player)s, %(rt_rules)s, c.changes, %(rt_kind)s, head.id, %(rt_seq)s, %(rt_at)s,
       c.rating, c.rd, c.volatility
FROM head, rating_player c"""


def _identity(stream: streams.Stream, event: Event) -> dict[str, Any]:
    return {
        "rt_player": stream.owner_id,
        "rt_rules": stream.rules.name,
        "rt_seed": stream.seed,
        "rt_at": event.at,
        "rt_seq": event.seq,
    }


def fragments_of(
    before: streams.Stream | None, after: streams.Stream, event: Event
) -> tuple[Fragment, ...]:
    """The ratings' part of the statement that appends ``event`` (``before`` is the stream
    before it, ``None`` for ``created``; ``after`` the stream after it): the same for the
    command path and for the rebuild."""
    if not after.rated or after.seed is None:
        return ()
    params = _identity(after, event)
    if before is None:
        assert after.difficulty is not None, "a rated game's created event has its difficulty"
        params.update(
            rt_start_rating=parameters.START_RATING,
            rt_start_rd=parameters.START_RD,
            rt_start_volatility=parameters.START_VOLATILITY,
            rt_deal_rating=(
                parameters.deal_rating(after.difficulty)
                if after.deal_rating is None
                else after.deal_rating
            ),
            rt_deal_rd=parameters.DEAL_RD,
            rt_deal_volatility=parameters.DEAL_VOLATILITY,
        )
        return (
            Fragment("rating_start", _START_PLAYER, params),
            Fragment("rating_deal_start", _START_DEAL, params),
        )
    if not before.scored and after.scored:
        assert after.score is not None
        params.update(
            rt_score=after.score,
            rt_tau=parameters.TAU,
            rt_counted=not after.voided,
            rt_rd_min=parameters.RD_MIN,
            rt_rd_max=parameters.RD_MAX,
        )
        return (Fragment("rating_score", _SCORE, params, returns=_SCORE_RETURNS, gate=True),)
    if before.scored and before.voided != after.voided:
        fact = streams.decoded(event)
        voiding = after.voided
        params.update(
            rt_voiding=voiding,
            rt_sign=-1 if voiding else 1,
            rt_deal=not (isinstance(fact, events.ResultRestored) and fact.owner_banned),
            rt_kind=RatingChange.Kind.VOID if voiding else RatingChange.Kind.RESTORE,
        )
        return (
            Fragment("rating_lock", _MODERATE_LOCK, params, gate=True),
            Fragment("rating_player", _MODERATE_PLAYER, params),
            Fragment("rating_deal", _MODERATE_DEAL, params),
            Fragment("rating_game", _MODERATE_GAME, params),
            Fragment("rating_history", _HISTORY, params),
        )
    return ()


def result_of(values: Sequence[float], *, score: float, counted: bool) -> RatedResult:
    """The :class:`RatedResult` of the scoring statement's returned values."""
    p_r, p_r2, p_rd2, d_r, d_r2, d_rd2 = values
    return RatedResult(
        score=score,
        player_before=p_r,
        player_after=p_r2,
        player_rd=p_rd2,
        deal_before=d_r,
        deal_after=d_r2,
        deal_rd=d_rd2,
        counted=counted,
        deal_counted=counted,
    )


def rated_result(row: RatedGame) -> RatedResult:
    """The :class:`RatedResult` a stored rated game holds."""
    return RatedResult(
        score=row.score,
        player_before=row.player_before,
        player_after=row.player_after,
        player_rd=row.player_rd_after,
        deal_before=row.deal_before,
        deal_after=row.deal_after,
        deal_rd=row.deal_rd_after,
        counted=row.counted,
        deal_counted=row.deal_counted,
    )


class Ratings(Projection):
    name = "rating"

    def __init__(self) -> None:
        self._rated: list[uuid.UUID] = []

    def fragments(self, change: Change) -> Sequence[Fragment]:
        return fragments_of(change.before, change.after, change.event)

    def amend(self, change: Change, returned: dict[str, Any]) -> Change:
        values = returned.get("rating_score")
        if values is None or change.after.score is None:
            return change
        result = result_of(values, score=change.after.score, counted=not change.after.voided)
        return replace(change, summary=replace(change.summary, rating=result))

    def clear(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "LOCK TABLE games_rating_player, games_rating_deal, games_rated_game,"
                " games_rating_change IN ACCESS EXCLUSIVE MODE"
            )
        RatingChange.objects.all().delete()
        RatedGame.objects.all().delete()
        PlayerRating.objects.all().delete()
        DealRating.objects.all().delete()
        self._rated = []

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        if stream.rated:
            self._rated.append(stream.game_id)

    def replayed(self) -> None:
        """Every rated game's rating events, folded again from their events, run through
        the append's own SQL in the order of their positions."""
        work: list[tuple[int, uuid.UUID, tuple[Fragment, ...]]] = []
        rated, self._rated = self._rated, []
        for start in range(0, len(rated), 500):
            rows = Event.objects.filter(game_id__in=rated[start : start + 500]).order_by(
                "game_id", "seq"
            )
            stream: streams.Stream | None = None
            for event in rows.iterator(chunk_size=2000):
                if event.seq == 1:
                    before, stream = None, streams.start(event)
                else:
                    assert stream is not None and stream.game_id == event.game_id
                    before, stream = stream, streams.advance(stream, event)
                written = fragments_of(before, stream, event)
                if written:
                    work.append((event.position, event.game_id, written))
        work.sort(key=lambda item: item[0])
        for _, game_id, written in work:
            store.replayed(game_id, written)
        # The deals still to deal, rated by a fit of the history just replayed.
        for rules in RatedGame.objects.values_list("rules", flat=True).distinct().order_by():
            predict.refit(rules)
