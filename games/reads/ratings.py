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
from games.errors import PlayerNotFound
from games.ratings import parameters
from games.ratings.models import PlayerRating, RatedGame, RatingChange
from games.reads.presenters import timestamp
from games.reads.shapes import RatingBody, RatingHistoryBody, RatingPointBody, RatingsBody
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
