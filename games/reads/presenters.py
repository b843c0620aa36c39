"""The public JSON bodies (``games.reads.shapes``), rendered from summaries and events.

Every function that can show hidden information takes the :class:`~games.reads.visibility.Sight`
that ``visibility.sight`` decided for the viewer, and shows exactly what it allows: hidden
cards, the reserve's cards, the seed and the deal only with ``sight.reveal``. Nothing here
decides who may see what.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from games import clock
from games.boards.ranking import Row
from games.dailies import arenas, challenges, contests
from games.dailies.models import Contest, DailyChallenge, Standing
from games.engine.hint import Hint
from games.pools.models import CertifiedDeal
from games.ratings import parameters
from games.reads import visibility
from games.reads.shapes import (
    ActionBody,
    AnalysisBody,
    ArenaBody,
    BoardRowBody,
    CertifiedBody,
    ChallengeBody,
    EffectsBody,
    EventBody,
    GameBody,
    GameRatingBody,
    HintBody,
    RaceBody,
)
from games.reads.visibility import Sight
from games.store import events, streams
from games.store.models import Event, GameAnalysis
from games.store.summary import GameSummary, RatedResult


def timestamp(value: dt.datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds and a ``Z``."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def game_body(game: GameSummary, sight: Sight) -> GameBody:
    """The Game of docs/api.md#game-object, as ``sight`` allows."""
    board = game.board
    if sight.reveal:
        columns: list[list[str | None]] = [list(cards) for cards in board.columns]
    else:
        columns = [
            [None] * down + list(cards[down:])
            for cards, down in zip(board.columns, board.down, strict=True)
        ]
    body: GameBody = {
        "id": str(game.id),
        "rules": game.rules,
        "seed": game.seed if sight.reveal else None,
        "owner": game.owner,
        "public": game.public,
        "version": game.version,
        "status": game.status,
        "blocked": game.blocked,
        "score": game.score,
        "moves": game.moves,
        "undos": game.undos,
        "reserve": game.reserve,
        "removed": list(game.removed),
        "columns": columns,
        "challenge": None if game.challenge is None else game.challenge.isoformat(),
        "created_at": timestamp(game.created_at) or "",
        "finished_at": timestamp(game.finished_at),
        "rated": game.rated,
    }
    if game.contest is not None and game.round is not None:
        body["contest"] = str(game.contest)
        body["round"] = game.round
    if board.cells is not None:
        body["cells"] = list(board.cells)
    if sight.reveal:
        body["reserve_cards"] = list(board.reserve)
    if game.rating is not None:
        body["rating"] = rating_body(game.rating, deal_shown=sight.reveal and game.finished)
    return body


def rating_body(result: RatedResult, *, deal_shown: bool) -> GameRatingBody:
    """What a scored rated game did to the ratings (docs/api.md#ratings); the deal's
    rating only once the game is over and its hidden information may be shown."""
    return {
        "score": result.score,
        "before": result.player_before,
        "after": result.player_after,
        "change": result.player_after - result.player_before,
        "rd": result.player_rd,
        "provisional": parameters.provisional(result.player_rd),
        "counted": result.counted,
        "deal": (
            {"before": result.deal_before, "after": result.deal_after, "rd": result.deal_rd}
            if deal_shown
            else None
        ),
    }


def certified_body(deal: CertifiedDeal) -> CertifiedBody:
    """What a game of a winnable pool's deal shows of it: its difficulty, no card."""
    return {"difficulty": deal.difficulty, "label": deal.difficulty_label}


def owner_view(game: GameSummary) -> dict[str, Any]:
    """What the owner of a game in play sees of it, as the engine's views are shaped: what
    hints are computed from, whoever asks, so that no hidden card can sway them."""
    body = game_body(game, visibility.MASKED)
    view: dict[str, Any] = {
        "status": body["status"],
        "columns": body["columns"],
        "reserve": body["reserve"],
        "removed": body["removed"],
    }
    if "cells" in body:
        view["cells"] = body["cells"]
    return view


def event_body(
    event: Event, effects: dict[str, Any], sight: Sight, *, card: str | None = None
) -> EventBody:
    """The Event of docs/api.md#event-object (``event`` read with its actor), with the ``effects``
    its replay derived and, for a move, the face-up ``card`` it took when the caller knows it;
    a ``created`` event shows its seed and deal (and a rated deal's difficulty) only with
    ``sight.reveal``."""
    body: EventBody = {
        "seq": event.seq,
        "type": event.type,
        "data": event_data(event, sight),
        "by": event.actor.get_username() if event.actor is not None else None,
        "at": timestamp(event.at) or "",
        "effects": cast(EffectsBody, effects),
    }
    if card is not None:
        body["card"] = card
    return body


def event_data(event: Event, sight: Sight) -> dict[str, Any]:
    """The ``data`` of a stored event as ``sight`` allows: a ``created`` event's seed and
    deal only with ``sight.reveal``."""
    fact = streams.decoded(event)
    data = fact.to_json()
    if isinstance(fact, events.Created) and not sight.reveal:
        data["seed"] = None
        data["deal"] = None
        if "difficulty" in data:  # a rated deal's difficulty is as secret as the deal
            data["difficulty"] = None
        if "deal_rating" in data:  # and so is its rating
            data["deal_rating"] = None
    return data


def challenge_body(challenge: DailyChallenge) -> ChallengeBody:
    """A day's race: its seed, solution and difficulty only once the day is over."""
    solution, difficulty = visibility.challenge_solution(challenge)
    return {
        "date": challenge.date.isoformat(),
        "rules": challenge.rules,
        "starts_at": timestamp(challenges.starts_at(challenge.date)) or "",
        "ends_at": timestamp(challenges.starts_at(challenge.date + dt.timedelta(days=1))) or "",
        "participants": Standing.objects.filter(challenge=challenge).count(),
        "status": "open" if challenges.is_open(challenge.date) else "closed",
        "seed": visibility.challenge_seed(challenge),
        "solution": solution,
        "difficulty": difficulty,
    }


def hint_body(hint: Hint, move: ActionBody | None, *, version: int, recorded: bool) -> HintBody:
    """The hint of docs/api.md#hint: computed from the player's view, so public."""
    return {
        "move": move,
        "wins": hint.wins,
        "samples": hint.samples,
        "source": hint.source,
        "version": version,
        "recorded": recorded,
    }


def analysis_body(analysis: GameAnalysis) -> AnalysisBody:
    """A stored post-game analysis (shown only where ``visibility.analysis_shown``)."""
    return {
        "game": str(analysis.game_id),
        "version": analysis.version,
        "winnable": analysis.winnable,
        "lost_at": analysis.lost_at,
        "last_winnable": analysis.last_winnable,
        "line": analysis.line,
        "decided": analysis.decided,
        "nodes": analysis.nodes,
        "computed_at": timestamp(analysis.computed_at) or "",
    }


def board_row_body(row: Row, *, game_shown: bool) -> BoardRowBody:
    """A leaderboard row; its game only when the caller may read it (``game_shown``, as
    ``visibility.sight`` decided)."""
    return {
        "rank": row.rank,
        "player": row.player,
        "value": row.value,
        "reached_at": timestamp(row.reached) or "",
        "game": str(row.game) if game_shown and row.game is not None else None,
    }


def race_body(race: Contest, racers: int) -> RaceBody:
    """A race: its seeds only once it is finished."""
    assert race.code is not None and race.deals is not None
    return {
        "id": str(race.id),
        "code": race.code,
        "title": race.title,
        "rules": race.rules,
        "deals": race.deals,
        "public": race.public,
        "creator": race.creator.get_username() if race.creator is not None else None,
        "starts_at": timestamp(race.starts_at) or "",
        "ends_at": timestamp(race.ends_at) or "",
        "time_limit": int((race.ends_at - race.starts_at).total_seconds()),
        "status": contests.phase(race),
        "finished_at": (
            timestamp(contests.ended_at(race))
            if contests.phase(race) == contests.FINISHED
            else None
        ),
        "racers": racers,
        "seeds": visibility.contest_seeds(race),
        "server_time": timestamp(clock.now()) or "",
    }


def arena_body(arena: Contest, players: int) -> ArenaBody:
    """An arena: the seeds of the deals played only once it is finished."""
    return {
        "id": str(arena.id),
        "code": arena.code,
        "title": arena.title,
        "rules": arena.rules,
        "public": arena.public,
        "creator": arena.creator.get_username() if arena.creator is not None else None,
        "starts_at": timestamp(arena.starts_at) or "",
        "ends_at": timestamp(arena.ends_at) or "",
        "status": contests.phase(arena),
        "players": players,
        "seeds": visibility.contest_seeds(arena),
        "points": dict(arenas.POINTS_TABLE),
        "server_time": timestamp(clock.now()) or "",
    }
