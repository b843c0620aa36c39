"""Players' records: what ``GET /players/{username}`` shows (docs/api.md#players).

One definition of a win's time everywhere: the leaderboards' (from the game's first action
to the winning one, ``BoardResult.time_ms``), so a profile's best time and the boards'
agree on every game. Per ruleset and for the dailies the best time and the streaks are read
from the player's all-time board entries (``games.boards``), which the append keeps; the
counts of games played and won from the games themselves, playing ones included.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from games import engine
from games.boards import metrics
from games.boards.models import BoardEntry
from games.dailies import challenges
from games.dailies.models import Standing
from games.errors import PlayerNotFound
from games.reads import selectors
from games.reads.shapes import DailyRecordBody, PlayerBody, RulesetRecordBody
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
    won = Q(status=Game.Status.WON)
    counts = {
        row["rules"]: (row["played"], row["won"])
        for row in Game.objects.filter(owner=user, voided=False)
        .values("rules")
        .annotate(played=Count("id"), won=Count("id", filter=won))
        .order_by()
    }
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
        played, wins = counts[name]
        entry = entries.get(name)
        rulesets.append(
            {
                "rules": name,
                "played": played,
                "won": wins,
                "win_rate": _rate(wins, played),
                "best_time_ms": entry.best_ms if entry is not None else None,
                "best_game": best_game(entry),
                "streak": entry.run if entry is not None else 0,
                "best_streak": entry.streak if entry is not None else 0,
            }
        )
    days = Standing.objects.filter(player=user, voided=False)
    won_days = sorted(days.filter(status=Game.Status.WON).values_list("challenge_id", flat=True))
    daily_entry = entries.get(metrics.DAILY)
    daily: DailyRecordBody = {
        "played": days.count(),
        "won": len(won_days),
        "win_rate": _rate(len(won_days), days.count()),
        "best_time_ms": daily_entry.best_ms if daily_entry is not None else None,
        "best_game": best_game(daily_entry),
    }
    streak, best_streak = _streaks(won_days, challenges.today())
    played = sum(count for count, _ in counts.values())
    wins = sum(count for _, count in counts.values())
    return {
        "username": user.get_username(),
        "played": played,
        "won": wins,
        "win_rate": _rate(wins, played),
        "streak": streak,
        "best_streak": best_streak,
        "best_time_ms": fastest.best_ms if fastest is not None else None,
        "best_game": best_game(fastest),
        "daily": daily,
        "rulesets": rulesets,
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
