"""The daily archive: a month of days with the caller's own result on each, and a closed
day's solution, position by position (docs/api.md#the-archive).

Both only read: a day nobody made is simply absent (this never makes one), and a day's
solution is shown only once the day is over (``visibility.challenge_solution``).
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Count

from games import engine
from games.dailies import challenges
from games.dailies.models import DailyChallenge, Standing
from games.engine.cards import suit_code
from games.errors import ChallengeNotFound
from games.reads import visibility
from games.reads.shapes import ChallengeDayBody, ChallengeMonthBody, SolutionStepBody
from games.reads.visibility import Viewer
from games.store.summary import Board


def month_of(text: str | None) -> dt.date:
    """The first day of the month ``YYYY-MM`` (the current UTC month for ``None``)."""
    if text is None:
        return challenges.today().replace(day=1)
    return dt.date(int(text[:4]), int(text[5:7]), 1)


def challenge_month(*, first: dt.date, viewer: Viewer) -> ChallengeMonthBody:
    """The days of the month beginning ``first`` that have a challenge and have begun, each
    with how many joined and, for a signed-in viewer, their own result."""
    days = DailyChallenge.objects.filter(
        date__year=first.year, date__month=first.month, date__lte=challenges.today()
    ).order_by("date")
    joined = dict(
        Standing.objects.filter(challenge__in=days)
        .values_list("challenge_id")
        .annotate(count=Count("game_id"))
        .order_by()
    )
    mine = {}
    if viewer.user_id is not None:
        mine = {
            s.challenge_id: s
            for s in Standing.objects.filter(challenge__in=days, player_id=viewer.user_id)
        }
    results: list[ChallengeDayBody] = []
    for day in days:
        _, difficulty = visibility.challenge_solution(day)
        own = mine.get(day.date)
        results.append(
            {
                "date": day.date.isoformat(),
                "rules": day.rules,
                "status": "open" if challenges.is_open(day.date) else "closed",
                "participants": joined.get(day.date, 0),
                "difficulty": difficulty,
                "mine": None
                if own is None
                else {
                    "game": str(own.game_id),
                    "status": own.status,
                    "moves": own.moves,
                    "score": own.score,
                    "sequences": own.sequences,
                    "elapsed_ms": own.elapsed_ms,
                    "hints": own.hints,
                },
            }
        )
    return {"month": f"{first.year:04d}-{first.month:02d}", "results": results}


def solution_step(*, date: dt.date, step: int) -> SolutionStepBody:
    """A closed day's position after the first ``step`` commands of its solution, every card
    face up; :class:`ChallengeNotFound` for a day that is open, absent or has no solution,
    and for a step beyond the solution."""
    day = DailyChallenge.objects.filter(date=date).first()
    solution, _ = visibility.challenge_solution(day) if day else (None, None)
    if day is None or solution is None or not 0 <= step <= len(solution):
        raise ChallengeNotFound()
    rules = engine.RULESETS[day.rules]
    actions = [engine.action_from_command(command) for command in solution[:step]]
    state = engine.replay(rules, engine.seeded_deal(rules, day.seed), actions)
    board = Board.of(state)
    body: SolutionStepBody = {
        "date": day.date.isoformat(),
        "step": step,
        "steps": len(solution),
        "action": solution[step - 1] if step else None,
        "status": state.status,
        "score": state.score,
        "moves": state.moves,
        "reserve": len(state.reserve),
        "removed": [suit_code(suit) for suit in state.removed],
        "columns": [list(cards) for cards in board.columns],
        "reserve_cards": list(board.reserve),
    }
    if board.cells is not None:
        body["cells"] = list(board.cells)
    return body
