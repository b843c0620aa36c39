"""The daily challenges' tables: the days, and each player's standing in a day's race."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.store.models import Game


class DailyChallenge(models.Model):
    """One UTC day's race: everyone plays the same deal, from a seed kept secret until the
    day ends (it is derived from ``DAILY_SECRET`` and the date)."""

    date = models.DateField(primary_key=True)
    rules = models.CharField(max_length=32)
    #: Never shown before the day ends.
    seed = models.BigIntegerField()
    #: Which deal of the day's secret sequence it is: the first the solver proved winnable
    #: (``games.dailies.challenges``). ``None`` for a day made before deals were certified.
    counter = models.PositiveIntegerField(null=True, blank=True)
    #: A winning line (API commands) replayed through the engine when the day was made, and
    #: the difficulty band of the search that found it: both secret until the day ends.
    solution = models.JSONField(null=True, blank=True)
    difficulty = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    #: Nodes the solver searched to prove the deal winnable (what ``difficulty`` bands).
    nodes = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        db_table = "games_daily_challenge"
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"daily challenge {self.date}"


class Standing(models.Model):
    """A player's entry in a daily challenge: a projection of their game's events."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="standing"
    )
    challenge = models.ForeignKey(
        DailyChallenge, on_delete=models.PROTECT, related_name="standings"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="standings"
    )
    status = models.CharField(max_length=16, choices=Game.Status.choices)
    moves = models.PositiveIntegerField(default=0)
    score = models.IntegerField(default=0)
    sequences = models.PositiveSmallIntegerField(default=0)
    revealed = models.PositiveSmallIntegerField(default=0)
    #: From joining to the game's last event (to the win, for a won game).
    elapsed_ms = models.BigIntegerField(default=0)
    #: The game's version: the sum over a challenge orders its standings snapshots.
    version = models.PositiveIntegerField()
    #: Hints shown to the player during the race (``hinted`` events): unaided wins rank first.
    hints = models.PositiveIntegerField(default=0)
    #: Left out of the standings by a moderator (``result_voided`` in the game's stream).
    voided = models.BooleanField(default=False)
    joined_at = models.DateTimeField()
    #: Review flags (``games.suspicion``), recomputed with every event of the game: a win
    #: faster than ``SUSPICIOUS_WIN_SECONDS``; move timings too regular to be human.
    flag_fast = models.BooleanField(default=False)
    flag_regular = models.BooleanField(default=False)
    #: Coefficient of variation of the intervals between the player's actions, once there
    #: are enough of them to judge (``SUSPICIOUS_RHYTHM_MIN_MOVES``); else ``None``.
    rhythm_cv = models.FloatField(null=True, blank=True)

    class Meta:
        db_table = "games_standing"
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "player"], name="standing_one_game_per_player_per_day"
            ),
        ]
        indexes = [
            models.Index(fields=["player", "challenge"], name="standing_player_day"),
            models.Index(
                fields=["challenge"],
                condition=Q(flag_fast=True) | Q(flag_regular=True),
                name="standing_flagged",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.challenge_id}: {self.status}"

    @property
    def suspicious(self) -> bool:
        """Flagged for a moderator's review."""
        return self.flag_fast or self.flag_regular
