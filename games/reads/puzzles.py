"""Reading puzzles (docs/api.md#puzzles): an attempt as its player sees it, the puzzle of
a day, a player's streaks and their dashboard of themes.

An attempt is its player's alone: anyone else is told there is no such attempt. While it
is played its body holds the position as the player sees it (face-down cards null, the
reserve a count), the moves played and the legal moves now, and nothing of the answer:
not the line, nor the themes (they hint at it), nor where the puzzle was found (that game
shows every card). Once it ends (``visibility.puzzle_revealed``) it shows all of it.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.db.models import Max

from games import engine, routing
from games.engine import puzzles as judging
from games.errors import PlayerNotFound, PuzzleNotFound
from games.puzzles import choose, positions
from games.puzzles.models import (
    Puzzle,
    PuzzleAttempt,
    PuzzleDay,
    PuzzlePlayer,
    PuzzleRatingChange,
    PuzzleResult,
    PuzzleStreak,
)
from games.puzzles.ratings import Change
from games.ratings import parameters
from games.reads import visibility
from games.reads.presenters import timestamp
from games.reads.puzzle_shapes import (
    AttemptBody,
    PuzzleDashboardBody,
    PuzzleDayBody,
    PuzzleInfoBody,
    PuzzlePositionBody,
    PuzzleRatingBody,
    ReasonBody,
    StreakBody,
    StreakRecordBody,
    ThemeStatBody,
)
from games.reads.shapes import ActionBody

RATED_MODES = (PuzzleAttempt.Mode.RATED, PuzzleAttempt.Mode.DAILY)


def attempt_get(attempt_id: str, player_id: int) -> PuzzleAttempt:
    """The caller's attempt ``attempt_id``; :class:`PuzzleNotFound` for anyone else's, or
    an id that is not one."""
    try:
        key = uuid.UUID(attempt_id)
    except ValueError:
        raise PuzzleNotFound() from None
    attempt = (
        PuzzleAttempt.objects.select_related("puzzle", "streak")
        .filter(id=key, player_id=player_id)
        .first()
    )
    if attempt is None:
        raise PuzzleNotFound()
    return attempt


def _described(state: engine.State, move: str) -> ActionBody:
    return cast(ActionBody, engine.describe_action(state, judging.decode(move)))


def _line(rules: engine.Ruleset, data: dict[str, Any], moves: list[str]) -> list[ActionBody]:
    """``moves`` from the position ``data``, each named with the card it takes."""
    state = positions.state_of(rules, data)
    described = []
    for move in moves:
        described.append(_described(state, move))
        state = engine.apply(state, judging.decode(move))[0]
    return described


def position_body(state: engine.State, *, revealed: bool) -> PuzzlePositionBody:
    """The position as the player sees it (every card once ``revealed``)."""
    view = engine.player_view(state, reveal=revealed)
    body: PuzzlePositionBody = {
        "status": state.status,
        "blocked": view["blocked"],
        "reserve": view["reserve"],
        "removed": view["removed"],
        "columns": view["columns"],
        "down": list(state.down),
    }
    if "cells" in view:
        body["cells"] = view["cells"]
    if revealed:
        body["reserve_cards"] = view["reserve_cards"]
    return body


def plays(puzzle_id: str) -> int:
    """Attempts at the puzzle that have ended."""
    return PuzzleResult.objects.filter(puzzle_id=puzzle_id).count()


def _info(puzzle: Puzzle, *, revealed: bool) -> PuzzleInfoBody:
    rules = engine.RULESETS[puzzle.rules]
    played = None
    if revealed and puzzle.played is not None:
        played = _described(positions.state_of(rules, puzzle.position), puzzle.played)
    return {
        "id": puzzle.id,
        "rules": puzzle.rules,
        "rating": choose.rating_of(puzzle.id),
        "length": puzzle.length,
        "plays": plays(puzzle.id),
        "themes": list(puzzle.themes) if revealed else None,
        "solution": _line(rules, puzzle.position, puzzle.line) if revealed else None,
        "win_in": puzzle.win_in if revealed else None,
        "game": str(puzzle.source_game) if revealed and puzzle.source_game else None,
        "version": puzzle.source_version if revealed else None,
        "challenge": (
            puzzle.source_challenge.isoformat()
            if revealed and puzzle.source_challenge is not None
            else None
        ),
        "played": played,
        "mistake": puzzle.mistake if revealed else None,
    }


def rating_body(change: Change) -> PuzzleRatingBody:
    return {
        "before": change.player_before,
        "after": change.player_after,
        "change": change.player_after - change.player_before,
        "rd": change.player_rd,
        "provisional": change.provisional,
        "puzzle_before": change.puzzle_before,
        "puzzle_after": change.puzzle_after,
    }


def _change(attempt: PuzzleAttempt) -> Change | None:
    """What the attempt's result did to the ratings, if it was rated and has ended."""
    if attempt.status == PuzzleAttempt.Status.PLAYING or attempt.mode not in RATED_MODES:
        return None
    row = (
        PuzzleRatingChange.objects.filter(result__attempt_id=attempt.id)
        .values_list(
            "player_before",
            "player_after",
            "player_rd_after",
            "puzzle_before",
            "puzzle_after",
            "puzzle_rd_after",
        )
        .first()
    )
    return None if row is None else Change(*row)


def _at(value: dt.datetime) -> str:
    text = timestamp(value)
    assert text is not None
    return text


def streak_body(streak: PuzzleStreak) -> StreakBody:
    return {
        "id": str(streak.id),
        "status": streak.status,
        "solved": streak.solved,
        "best": best_streak(streak.player_id),
        "started_at": _at(streak.started_at),
        "ended_at": timestamp(streak.ended_at),
    }


def best_streak(player_id: int) -> int:
    """The most puzzles the player solved in one streak."""
    found = PuzzleStreak.objects.filter(player_id=player_id).aggregate(best=Max("solved"))
    return int(found["best"] or 0)


def attempt_body(attempt: PuzzleAttempt, *, change: Change | None = None) -> AttemptBody:
    """``attempt`` as its player sees it (see the module's docstring); ``change`` is the
    rating change its end just made (else it is read, for an ended rated attempt)."""
    puzzle = attempt.puzzle
    rules = engine.RULESETS[puzzle.rules]
    revealed = visibility.puzzle_revealed(attempt.status)
    state = positions.after(rules, puzzle.position, attempt.moves)
    legal: list[ActionBody] = []
    if not revealed:
        legal = [
            cast(ActionBody, engine.describe_action(state, action))
            for action in engine.legal_actions(state)
        ]
    reason: ReasonBody | None = None
    if attempt.reason is not None:
        reason = cast(ReasonBody, {**attempt.reason, "detail": ""})
    change = change or _change(attempt)
    body: AttemptBody = {
        "id": str(attempt.id),
        "mode": attempt.mode,
        "status": attempt.status,
        "rated": attempt.mode in RATED_MODES,
        "puzzle": _info(puzzle, revealed=revealed),
        "position": position_body(state, revealed=revealed),
        "moves": _line(rules, puzzle.position, attempt.moves),
        "legal": legal,
        "wrong": None if attempt.wrong is None else _described(state, attempt.wrong),
        "answers": _answers(attempt, state),
        "reason": reason,
        "rating": None if change is None else rating_body(change),
        "started_at": _at(attempt.started_at),
        "ended_at": timestamp(attempt.ended_at),
    }
    if attempt.streak is not None:
        body["streak"] = streak_body(attempt.streak)
    return body


def _answers(attempt: PuzzleAttempt, state: engine.State) -> list[ActionBody] | None:
    """The winning moves where a failed attempt stopped (from the puzzle's tree)."""
    if attempt.status != PuzzleAttempt.Status.FAILED:
        return None
    node = attempt.puzzle.tree.get(judging.key(state))
    return None if node is None else [_described(state, move) for move in node["w"]]


def day_get(date: dt.date) -> PuzzleDay | None:
    return PuzzleDay.objects.select_related("puzzle").filter(date=date).first()


def day_body(day: PuzzleDay, player_id: int | None) -> PuzzleDayBody:
    """The puzzle of a day, and the caller's attempt at it if they have one."""
    attempt = None
    if player_id is not None:
        mine = (
            PuzzleAttempt.objects.select_related("puzzle", "streak")
            .filter(player_id=player_id, puzzle_id=day.puzzle_id)
            .first()
        )
        attempt = None if mine is None else attempt_body(mine)
    return {
        "date": day.date.isoformat(),
        "rules": day.puzzle.rules,
        "rating": choose.rating_of(day.puzzle_id),
        "plays": plays(day.puzzle_id),
        "attempt": attempt,
    }


def streak_record(player_id: int) -> StreakRecordBody:
    running = PuzzleStreak.objects.filter(
        player_id=player_id, status=PuzzleStreak.Status.RUNNING
    ).first()
    return {
        "current": None if running is None else streak_body(running),
        "best": best_streak(player_id),
    }


_THEMES_SQL = """
SELECT t.theme, count(*), count(*) FILTER (WHERE r.solved)
FROM games_puzzle_result r
JOIN games_puzzle p ON p.id = r.puzzle_id
CROSS JOIN LATERAL unnest(p.themes) AS t(theme)
WHERE r.player_id = %s
GROUP BY t.theme"""


def dashboard(username: str) -> PuzzleDashboardBody:
    """A player's puzzles: rating, counts, best streak, and how they do on each theme,
    the most failed share first (then the most attempts, then the themes' order)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PlayerNotFound()
    rating = PuzzlePlayer.objects.filter(player_id=user.pk).first()
    with routing.read_connection().cursor() as cursor:
        cursor.execute(_THEMES_SQL, [user.pk])
        rows = cursor.fetchall()
    order = {theme: n for n, theme in enumerate(judging.THEMES)}
    themes: list[ThemeStatBody] = [
        {
            "theme": theme,
            "attempts": attempts,
            "solved": solved,
            "failed": attempts - solved,
            "failure": (attempts - solved) / attempts,
        }
        for theme, attempts, solved in rows
        if theme in order
    ]
    themes.sort(key=lambda row: (-row["failure"], -row["attempts"], order[row["theme"]]))
    results = PuzzleResult.objects.filter(player_id=user.pk)
    solved = results.filter(solved=True).count()
    ended = results.count()
    rd = parameters.START_RD if rating is None else rating.rd
    return {
        "player": user.get_username(),
        "rating": parameters.START_RATING if rating is None else rating.rating,
        "rd": rd,
        "provisional": parameters.provisional(rd),
        "rated": 0 if rating is None else rating.rated,
        "solved": solved,
        "failed": ended - solved,
        "best_streak": best_streak(user.pk),
        "themes": themes,
    }
