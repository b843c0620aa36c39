"""The leaderboards' tables: each finished game's result, and each player's entry on each
board (a scope, a period), both projections of the events (docs/architecture.md#leaderboards).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class BoardResult(models.Model):
    """A finished game as the boards count it: written in the statement of the event that
    finished the game, its ``voided`` kept by moderation, rebuilt from events alone."""

    #: No foreign key (like the moderation log's): ``Game`` rows are a projection too, and
    #: each rebuild of either leaves the other alone.
    game_id = models.UUIDField(primary_key=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    rules = models.CharField(max_length=32)
    #: The daily challenge the game raced in, if any.
    day = models.DateField(null=True, blank=True)
    won = models.BooleanField()
    finished_at = models.DateTimeField()
    #: A win's time: from the game's first action to the winning one, in milliseconds.
    time_ms = models.BigIntegerField(null=True, blank=True)
    voided = models.BooleanField(default=False)

    class Meta:
        db_table = "games_board_result"
        indexes = [
            models.Index(fields=["player", "rules", "finished_at"], name="board_result_player"),
            models.Index(
                fields=["player", "finished_at"],
                condition=Q(day__isnull=False),
                name="board_result_player_daily",
            ),
        ]

    def __str__(self) -> str:
        return f"result of {self.game_id}"


class BoardEntry(models.Model):
    """A player's row on the boards of one scope (``daily`` or a ruleset) and one period
    (``all``, ``YYYY-MM``, ``YYYY-Www``): every metric at once, from the counted results
    (finished, not voided) of that scope that finished in that period.

    Each metric has its value and the moment it was reached (which orders ties): ``wins``
    (``wins_at``: the latest counted win), ``best_ms`` (``best_at``: that win),
    ``streak`` (``streak_at``: when the longest run first reached its length). ``run``,
    ``last_at``, ``last_game`` and ``last_day`` carry the fold forward so that a finished
    game updates the row without reading any other result.
    """

    id = models.BigAutoField(primary_key=True)
    scope = models.CharField(max_length=32)
    period = models.CharField(max_length=8)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    wins = models.PositiveIntegerField(default=0)
    wins_at = models.DateTimeField(null=True, blank=True)
    best_ms = models.BigIntegerField(null=True, blank=True)
    best_at = models.DateTimeField(null=True, blank=True)
    best_game = models.UUIDField(null=True, blank=True)
    streak = models.PositiveIntegerField(default=0)
    streak_at = models.DateTimeField(null=True, blank=True)
    #: The run of wins (ruleset) or of consecutive won days (daily) ending at the last result.
    run = models.PositiveIntegerField(default=0)
    last_at = models.DateTimeField()
    last_game = models.UUIDField()
    #: Daily scope: the day of the last counted win.
    last_day = models.DateField(null=True, blank=True)
    #: A result arrived out of finishing order: the row awaits its recomputation.
    dirty = models.BooleanField(default=False)

    class Meta:
        db_table = "games_board_entry"
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "period", "player"], name="board_entry_one_per_player"
            ),
        ]
        indexes = [
            models.Index(
                fields=["scope", "period", "-wins", "wins_at", "player"],
                condition=Q(wins__gt=0),
                name="board_wins",
            ),
            models.Index(
                fields=["scope", "period", "best_ms", "best_at", "player"],
                condition=Q(best_ms__isnull=False),
                name="board_best_time",
            ),
            models.Index(
                fields=["scope", "period", "-streak", "streak_at", "player"],
                condition=Q(streak__gt=0),
                name="board_streak",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} on {self.scope}/{self.period}"
