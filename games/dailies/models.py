"""The daily challenges' tables: the days, and each player's standing in a day's race."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

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
    #: Every game of the day entered the public log (``games.writes.public_log``).
    published_at = models.DateTimeField(null=True, blank=True)

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


class Contest(models.Model):
    """A race between friends or a scheduled arena: a window, a ruleset and a secret
    sequence of deals (round ``n``'s seed is an HMAC of the contest's id and ``n`` under
    ``DAILY_SECRET``, ``games.dailies.secrets``), revealed when the contest ends.

    Every player gets their own event-sourced game of each deal; the game's ``created``
    event names the contest and the round, so its result (:class:`ContestResult`) is a
    projection of its events, as a daily ``Standing`` is.
    """

    class Kind(models.TextChoices):
        RACE = "race"
        ARENA = "arena"

    id = models.UUIDField(primary_key=True)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    #: A race's short join code (arenas have none).
    code = models.CharField(max_length=12, null=True, blank=True, unique=True)  # noqa: DJ001
    title = models.CharField(max_length=100, blank=True, default="")
    rules = models.CharField(max_length=32)
    #: A race's number of deals (1 to 5); ``None`` for an arena (as many as one can play).
    deals = models.PositiveSmallIntegerField(null=True, blank=True)
    #: Listed for everyone (a private race is reached by its link or code only).
    public = models.BooleanField(default=True)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="contests_created",
    )
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    created_at = models.DateTimeField()
    #: A race's entrants were sealed at this instant (its start, under the row's lock).
    started_at = models.DateTimeField(null=True, blank=True)
    #: Set when every racer finished every deal before the time was up.
    finished_at = models.DateTimeField(null=True, blank=True)
    #: The rotation slot that made an arena (``ARENA_ROTATION``): one arena per slot.
    rotation = models.CharField(max_length=64, null=True, blank=True, unique=True)  # noqa: DJ001
    #: Every game of the contest entered the public log (``games.writes.public_log``).
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_contest"
        ordering = ["-starts_at", "id"]
        indexes = [
            models.Index(fields=["kind", "public", "-starts_at"], name="contest_listed"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__gt=F("starts_at")), name="contest_window"),
            models.CheckConstraint(
                condition=Q(kind="arena") | Q(deals__gte=1, deals__lte=5),
                name="contest_race_deals",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.code or self.id}"


class Entrant(models.Model):
    """A player in a contest: a racer who joined before the start, or an arena player
    (who enters by asking for a first deal)."""

    id = models.BigAutoField(primary_key=True)
    contest = models.ForeignKey(Contest, on_delete=models.PROTECT, related_name="entrants")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="entries"
    )
    joined_at = models.DateTimeField()

    class Meta:
        db_table = "games_contest_entrant"
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "player"], name="entrant_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.contest_id}"


class ContestResult(models.Model):
    """One game of a contest (a player's game of one round): a projection of its events,
    written in the same statement as each of them (``games.projections.contest_results``), so the
    ranking is applied one game at a time and never recomputed from the games."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="contest_result"
    )
    contest = models.ForeignKey(Contest, on_delete=models.PROTECT, related_name="results")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="contest_results"
    )
    round = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Game.Status.choices)
    moves = models.PositiveIntegerField(default=0)
    score = models.IntegerField(default=0)
    sequences = models.PositiveSmallIntegerField(default=0)
    revealed = models.PositiveSmallIntegerField(default=0)
    #: From the game's creation to its last event (to the finishing move, once finished).
    elapsed_ms = models.BigIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Arena points of this deal (``games.dailies.arenas.arena_points``).
    points = models.IntegerField(default=0)
    #: The game's version: the sum over a contest orders its standings frames.
    version = models.PositiveIntegerField()
    #: Hints shown to the player in this game (``hinted`` events): a race ranks unaided wins
    #: first, and an arena's aided win scores less (``games.dailies.arenas``). The database
    #: default lets a server that does not write it yet insert rows during an upgrade.
    hints = models.PositiveIntegerField(default=0, db_default=0)
    voided = models.BooleanField(default=False)
    joined_at = models.DateTimeField()

    class Meta:
        db_table = "games_contest_result"
        constraints = [
            models.UniqueConstraint(
                fields=["contest", "player", "round"], name="contest_result_one_game_per_round"
            ),
        ]
        indexes = [models.Index(fields=["contest", "player"], name="contest_result_player")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.contest_id} #{self.round}: {self.status}"
