"""Players' records: what ``GET /players/{username}`` shows (docs/api.md#players).

One definition of a win's time everywhere: the leaderboards' (from the game's first action
to the winning one, ``BoardResult.time_ms``), so a profile's best time and the boards'
agree on every game. Per ruleset and for the dailies the best time and the streaks are read
from the player's all-time board entries (``games.boards``), which the append keeps; the
counts of games played, finished and won from the games themselves. A win rate is over
finished games only: a game still in play is neither won nor lost yet.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Avg, Count, Q

from games import engine
from games.boards import metrics
from games.boards.models import BoardEntry, BoardResult
from games.dailies import challenges
from games.dailies.models import DailyChallenge, Standing
from games.errors import PlayerNotFound
from games.pools.models import PoolDraw
from games.ratings import parameters
from games.reads import selectors
from games.reads.shapes import (
    DailyRecordBody,
    HardestWinBody,
    PlayerBody,
    RulesetRecordBody,
    RulesetStatsBody,
)
from games.reads.visibility import Viewer
from games.store.models import Game


def player_record(*, username: str, viewer: Viewer) -> PlayerBody:
    """A player's record: :class:`PlayerNotFound` for an unknown name.

    Counts leave out the games a moderator voided. ``streak``/``best_streak`` count
    consecutive UTC days with a won daily challenge, the current streak running to today
    or, while today is not won yet, to yesterday. Each ``best_game`` is shown only when
    ``viewer`` may read that game.
    """
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PlayerNotFound()
    counts = _counts(user)
    entries = {
        entry.scope: entry for entry in BoardEntry.objects.filter(player=user, period=metrics.ALL)
    }
    fastest = min(
        (e for scope, e in entries.items() if scope != metrics.DAILY and e.best_ms is not None),
        key=lambda e: (e.best_ms, e.best_at),
        default=None,
    )
    shown = selectors.readable_games(
        [e.best_game for e in entries.values() if e.best_game is not None], viewer
    )

    def best_game(entry: BoardEntry | None) -> str | None:
        game = entry.best_game if entry is not None else None
        return str(game) if game is not None and game in shown else None

    rulesets: list[RulesetRecordBody] = []
    for name in engine.RULESETS:
        if name not in counts:
            continue
        played, finished, wins = counts[name]
        entry = entries.get(name)
        rulesets.append(
            {
                "rules": name,
                "played": played,
                "finished": finished,
                "won": wins,
                "win_rate": _rate(wins, finished),
                "best_time_ms": entry.best_ms if entry is not None else None,
                "best_game": best_game(entry),
                "streak": entry.run if entry is not None else 0,
                "best_streak": entry.streak if entry is not None else 0,
            }
        )
    days = Standing.objects.filter(player=user, voided=False)
    won_days = sorted(days.filter(status=Game.Status.WON).values_list("challenge_id", flat=True))
    days_finished = days.exclude(status=Game.Status.PLAYING).count()
    daily_entry = entries.get(metrics.DAILY)
    daily: DailyRecordBody = {
        "played": days.count(),
        "finished": days_finished,
        "won": len(won_days),
        "win_rate": _rate(len(won_days), days_finished),
        "best_time_ms": daily_entry.best_ms if daily_entry is not None else None,
        "best_game": best_game(daily_entry),
    }
    streak, best_streak = _streaks(won_days, challenges.today())
    played = sum(count for count, _, _ in counts.values())
    finished = sum(count for _, count, _ in counts.values())
    wins = sum(count for _, _, count in counts.values())
    return {
        "username": user.get_username(),
        "played": played,
        "finished": finished,
        "won": wins,
        "win_rate": _rate(wins, finished),
        "streak": streak,
        "best_streak": best_streak,
        "best_time_ms": fastest.best_ms if fastest is not None else None,
        "best_game": best_game(fastest),
        "daily": daily,
        "rulesets": rulesets,
    }


def ruleset_stats(*, username: str, rules: str, viewer: Viewer) -> RulesetStatsBody:
    """A player's statistics in one ruleset (``GET /players/{name}/stats/{rules}``):
    :class:`PlayerNotFound` for an unknown name. The win rate is over finished games, the
    average time over the counted wins (timed as the leaderboards time them), and the
    hardest deal won is the won game whose deal the solver found hardest: a deal of the
    winnable pool, or a daily challenge once its day is over (its difficulty is secret
    until then)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PlayerNotFound()
    played, finished, wins = _counts(user, rules).get(rules, (0, 0, 0))
    entry = BoardEntry.objects.filter(player=user, period=metrics.ALL, scope=rules).first()
    average = BoardResult.objects.filter(
        player=user, rules=rules, won=True, voided=False, time_ms__isnull=False
    ).aggregate(ms=Avg("time_ms"))["ms"]
    return {
        "username": user.get_username(),
        "rules": rules,
        "played": played,
        "finished": finished,
        "won": wins,
        "win_rate": _rate(wins, finished),
        "streak": entry.run if entry is not None else 0,
        "best_streak": entry.streak if entry is not None else 0,
        "average_time_ms": round(average) if average is not None else None,
        "best_time_ms": entry.best_ms if entry is not None else None,
        "hardest_win": _hardest_win(user, rules, viewer),
    }


def _hardest_win(user: Any, rules: str, viewer: Viewer) -> HardestWinBody | None:
    won = Game.objects.filter(owner=user, rules=rules, status=Game.Status.WON, voided=False)
    candidates: list[tuple[float, str, Any]] = []
    pool = (
        PoolDraw.objects.filter(game_id__in=won.filter(challenge__isnull=True).values("id"))
        .select_related("deal")
        .order_by("-deal__difficulty")
        .first()
    )
    if pool is not None:
        candidates.append((pool.deal.difficulty, pool.deal.difficulty_label, pool.game_id))
    days = dict(won.filter(challenge__lt=challenges.today()).values_list("challenge", "id"))
    for day in DailyChallenge.objects.filter(date__in=list(days)).exclude(nodes=None):
        difficulty = parameters.daily_difficulty(day.nodes)
        candidates.append((difficulty, day.difficulty or "", days[day.date]))
    if not candidates:
        return None
    difficulty, label, game = max(candidates, key=lambda c: c[0])
    shown = selectors.readable_games([game], viewer)
    return {
        "difficulty": round(difficulty, 4),
        "label": label,
        "game": str(game) if game in shown else None,
    }


def _counts(user: Any, rules: str | None = None) -> dict[str, tuple[int, int, int]]:
    """Each ruleset's (played, finished, won) games of ``user``, voided ones left out."""
    rows = Game.objects.filter(owner=user, voided=False)
    if rules is not None:
        rows = rows.filter(rules=rules)
    return {
        row["rules"]: (row["played"], row["over"], row["won"])
        for row in rows.values("rules")
        .annotate(
            played=Count("id"),
            over=Count("id", filter=~Q(status=Game.Status.PLAYING)),
            won=Count("id", filter=Q(status=Game.Status.WON)),
        )
        .order_by()
    }


def _rate(won: int, played: int) -> float:
    return round(won / played, 4) if played else 0.0


def _streaks(days: list[dt.date], today: dt.date) -> tuple[int, int]:
    """(current, best) runs of consecutive days in the sorted ``days``."""
    best = run = 0
    previous: dt.date | None = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and today - previous <= dt.timedelta(days=1) else 0
    return current, best
