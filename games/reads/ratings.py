"""Reading ratings (docs/api.md#ratings): a player's rating in each ruleset, one ruleset's
rating with a page of its history, and a scored rated game's change.

A history page is keyed by the rows' ``n`` (1, 2, 3… per player and ruleset), newest
first. Its cursor is signed by the server (``django.core.signing``), so a cursor the
server did not make is refused (:class:`ValueError`) rather than read.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from django.contrib.auth import get_user_model
from django.core import signing

from games import engine
from games.dailies import challenges
from games.dailies.models import DailyChallenge
from games.errors import PlayerNotFound
from games.ratings import glicko2, parameters
from games.ratings.models import DealRating, PlayerRating, RatedGame, RatingChange
from games.reads.presenters import timestamp
from games.reads.shapes import (
    RatingBody,
    RatingHistoryBody,
    RatingPointBody,
    RatingsBody,
    StakesBody,
)
from games.store.summary import GameSummary, RatedResult

_SALT = "games.reads.ratings.history"


def rated_result(game_id: uuid.UUID) -> RatedResult | None:
    """What a scored rated game did to the ratings (``None``: not scored yet)."""
    row = RatedGame.objects.filter(game_id=game_id).first()
    if row is None:
        return None
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


def with_rating(game: GameSummary) -> GameSummary:
    """``game`` with its change of rating, for a rated game that was scored (one primary-key
    read, for rated games only)."""
    if not game.rated or game.rating is not None:
        return game
    result = rated_result(game.id)
    return game if result is None else replace(game, rating=result)


def _player(username: str) -> Any:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PlayerNotFound()
    return user


def _rating(rules: str, row: PlayerRating | None) -> RatingBody:
    if row is None:
        rating, rd, volatility, games = (
            parameters.START_RATING,
            parameters.START_RD,
            parameters.START_VOLATILITY,
            0,
        )
    else:
        rating, rd, volatility, games = row.rating, row.rd, row.volatility, row.games
    return {
        "rules": rules,
        "rating": rating,
        "rd": rd,
        "volatility": volatility,
        "provisional": parameters.provisional(rd),
        "games": games,
    }


def player_ratings(*, username: str) -> RatingsBody:
    """A player's rating in each ruleset they were dealt a rated game of (:class:`PlayerNotFound`
    for an unknown name), in the order of ``/rules``."""
    user = _player(username)
    rows = {row.rules: row for row in PlayerRating.objects.filter(player=user)}
    return {
        "player": user.get_username(),
        "ratings": [_rating(rules, rows[rules]) for rules in engine.RULESETS if rules in rows],
    }


def cursor_of(n: int) -> str:
    """The cursor of the history page that follows the row numbered ``n``."""
    return signing.dumps(n, salt=_SALT, compress=False)


def history_after(cursor: str) -> int:
    """The ``n`` a history cursor follows: :class:`ValueError` for one the server did not
    make."""
    try:
        n = signing.loads(cursor, salt=_SALT)
    except signing.BadSignature as error:
        raise ValueError("bad cursor") from error
    if type(n) is not int or n < 1:
        raise ValueError("bad cursor")
    return n


def player_rating(
    *, username: str, rules: str, before: int | None, limit: int
) -> tuple[RatingHistoryBody, str | None]:
    """A player's rating in ``rules`` (the first one, with no history, until they are dealt
    a rated game) and a page of its history, newest first, before row ``before``; and the
    cursor of the next page, if there is one."""
    user = _player(username)
    row = PlayerRating.objects.filter(player=user, rules=rules).first()
    history = RatingChange.objects.filter(player=user, rules=rules)
    if before is not None:
        history = history.filter(n__lt=before)
    rows = list(history.order_by("-n")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    points: list[RatingPointBody] = [
        {
            "n": point.n,
            "kind": point.kind,
            "game": str(point.game_id),
            "at": timestamp(point.at) or "",
            "rating": point.rating,
            "rd": point.rd,
        }
        for point in rows
    ]
    rating = _rating(rules, row)
    body: RatingHistoryBody = {
        "player": user.get_username(),
        "rules": rules,
        "rating": rating["rating"],
        "rd": rating["rd"],
        "volatility": rating["volatility"],
        "provisional": rating["provisional"],
        "games": rating["games"],
        "history": points,
        "next": None,
    }
    return body, cursor_of(rows[-1].n) if more and rows else None


def daily_stakes(*, player: Any, challenge: DailyChallenge) -> StakesBody:
    """What the day's rated game would change of ``player``'s rating, before they play it:
    their rating now and its change on a win and on a loss, by the same one-game Glicko-2
    update the scoring applies, against the deal's rating now (its first rating, from the
    day's difficulty, when nobody has played it yet). Like lichess's preview before a rated
    game, it says how hard the deal is rated, never a card. A closed day is not rated (its
    deal is played again unranked): ``rated`` false, no changes."""
    row = PlayerRating.objects.filter(player=player, rules=challenge.rules).first()
    mine = (
        glicko2.Rating(row.rating, row.rd, row.volatility)
        if row is not None
        else glicko2.Rating(
            parameters.START_RATING, parameters.START_RD, parameters.START_VOLATILITY
        )
    )
    body: StakesBody = {
        "rules": challenge.rules,
        "rated": challenges.is_open(challenge.date),
        "rating": round(mine.rating, 2),
        "provisional": parameters.provisional(mine.rd),
        "win": None,
        "loss": None,
    }
    if not body["rated"]:
        return body
    deal_row = DealRating.objects.filter(rules=challenge.rules, seed=challenge.seed).first()
    deal = (
        glicko2.Rating(deal_row.rating, deal_row.rd, deal_row.volatility)
        if deal_row is not None
        else glicko2.Rating(
            parameters.deal_rating(parameters.daily_difficulty(challenge.nodes)),
            parameters.DEAL_RD,
            parameters.DEAL_VOLATILITY,
        )
    )
    for key, score in (("win", 1.0), ("loss", 0.0)):
        after = glicko2.rate_one(mine, deal, score, tau=parameters.TAU)
        body[key] = round(after.rating - mine.rating, 2)  # type: ignore[literal-required]
    return body
