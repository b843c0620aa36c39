"""The puzzles' tables (docs/puzzles.md): the puzzles mined, the miner's cursor, each
player's attempts, the results log the ratings are folded from, the ratings themselves,
the puzzle of each day and the streaks. The DDL of the rows PostgreSQL guards (the results
log's triggers, the rating functions) is ``games.migrations.0019_puzzles``'s."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q


class Puzzle(models.Model):
    """A position of real play and the tree of decisions it asks for
    (``games.engine.puzzles``): a fact, written once when it is mined and never changed.
    ``position`` holds every card, face-down and reserve included, and ``tree`` and
    ``line`` the answer: none of the three leaves the server before an attempt ends
    (``games.reads.visibility.puzzle_revealed``)."""

    #: Ten letters and digits from a digest of the ruleset and the position: the same
    #: position is one puzzle, however often it is found.
    id = models.CharField(max_length=12, primary_key=True)
    rules = models.CharField(max_length=32)
    #: ``games.engine.puzzles.key`` of the position.
    key = models.CharField(max_length=24)
    #: ``{"columns": [[codes]], "down": [n], "reserve": [codes], "cells": [code|null],
    #: "removed": "SH"}``: every card where it lies.
    position = models.JSONField()
    #: The solver's line (``games.engine.puzzles.encode``), ``length`` moves.
    line = models.JSONField()
    length = models.PositiveSmallIntegerField()
    #: Every position of the tree by its key: ``{"w": [moves], "l": [[move, reason]]}``.
    tree = models.JSONField()
    themes = ArrayField(models.CharField(max_length=24))
    #: The line's length when it ends in the win.
    win_in = models.PositiveSmallIntegerField(null=True, blank=True)
    #: Moves that win and moves there are at the position, up to renumbering columns.
    winning = models.PositiveSmallIntegerField()
    choices = models.PositiveSmallIntegerField()
    #: Cards unseen at the position (face down or in the reserve).
    unseen = models.PositiveSmallIntegerField()
    #: Nodes the solver searched to find and check it.
    searched = models.BigIntegerField()
    difficulty = models.FloatField()
    #: Its first rating, from its difficulty (``games.puzzles.ratings.first_rating``).
    first_rating = models.FloatField()
    #: Where it was found: a version of a public game (the position after it), or the
    #: certified line of a daily challenge that is over (``source_step`` actions into it).
    source_game = models.UUIDField(null=True, blank=True)
    source_version = models.PositiveIntegerField(null=True, blank=True)
    source_challenge = models.DateField(null=True, blank=True)
    source_step = models.PositiveIntegerField(null=True, blank=True)
    #: The move the game played from the position (``None`` for a daily's line), and
    #: whether it lost as the cards lay: a real player's mistake.
    played = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    mistake = models.BooleanField(default=False)
    created_at = models.DateTimeField()

    class Meta:
        db_table = "games_puzzle"
        constraints = [models.UniqueConstraint(fields=["rules", "key"], name="puzzle_position")]
        indexes = [models.Index(fields=["created_at", "id"], name="puzzle_month")]

    def __str__(self) -> str:
        return f"puzzle {self.id}"


class PuzzleMiner(models.Model):
    """Where the miner is in one source: the public log's cursor, or the last daily
    challenge whose line was mined."""

    source = models.CharField(max_length=16, primary_key=True)
    cursor = models.CharField(max_length=64, blank=True, default="")
    #: Games (or days) looked at and puzzles found, in all.
    looked = models.BigIntegerField(default=0)
    found = models.BigIntegerField(default=0)

    class Meta:
        db_table = "games_puzzle_miner"

    def __str__(self) -> str:
        return f"puzzle miner {self.source} at {self.cursor!r}"


class PuzzleStreak(models.Model):
    """A run of Streak: puzzles of rising rating, unrated, until the first mistake."""

    class Status(models.TextChoices):
        RUNNING = "running"
        ENDED = "ended"

    id = models.UUIDField(primary_key=True)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices)
    #: Puzzles solved in it.
    solved = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_puzzle_streak"
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(status="running"), name="puzzle_one_streak"
            )
        ]
        indexes = [models.Index(fields=["player", "solved"], name="puzzle_streak_best")]

    def __str__(self) -> str:
        return f"streak {self.id}"


class PuzzleAttempt(models.Model):
    """A player's attempt at a puzzle: at most one each, ever (the unique constraint is
    "never a puzzle already seen"). ``moves`` grows by one winning move at a time while it
    is ``playing``; it ends ``solved`` or ``failed`` (a losing move, ``wrong`` with its
    ``reason``, or given up), and its result is appended to :class:`PuzzleResult`."""

    class Mode(models.TextChoices):
        RATED = "rated"
        DAILY = "daily"
        STREAK = "streak"

    class Status(models.TextChoices):
        PLAYING = "playing"
        SOLVED = "solved"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True)
    puzzle = models.ForeignKey(Puzzle, on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    mode = models.CharField(max_length=8, choices=Mode.choices)
    streak = models.ForeignKey(
        PuzzleStreak, null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    status = models.CharField(max_length=8, choices=Status.choices)
    moves = models.JSONField(default=list)
    #: The losing move, and why it loses (``games.engine.puzzles.explain``).
    wrong = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    reason = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_puzzle_attempt"
        constraints = [
            models.UniqueConstraint(fields=["player", "puzzle"], name="puzzle_seen_once"),
            # One rated attempt and one Streak attempt at a time (days' puzzles may wait).
            models.UniqueConstraint(
                fields=["player", "mode"],
                condition=Q(status="playing") & ~Q(mode="daily"),
                name="puzzle_playing",
            ),
        ]
        indexes = [models.Index(fields=["streak", "started_at"], name="puzzle_streak_attempts")]

    def __str__(self) -> str:
        return f"attempt {self.id} at {self.puzzle_id}"


class PuzzleResult(models.Model):
    """An attempt's end, appended once and never changed (PostgreSQL's triggers refuse
    UPDATE, DELETE and TRUNCATE): the log the puzzle ratings are a fold of. ``position``
    is drawn only after the ratings it changes are locked, so its order is the order the
    ratings were updated in (docs/ratings.md#puzzles)."""

    position = models.BigAutoField(primary_key=True)
    attempt = models.OneToOneField(PuzzleAttempt, on_delete=models.DO_NOTHING, related_name="+")
    puzzle = models.ForeignKey(Puzzle, on_delete=models.DO_NOTHING, related_name="results")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, related_name="+"
    )
    rated = models.BooleanField()
    solved = models.BooleanField()
    at = models.DateTimeField()

    class Meta:
        db_table = "games_puzzle_result"
        indexes = [models.Index(fields=["player", "position"], name="puzzle_result_player")]

    def __str__(self) -> str:
        return f"puzzle result {self.position}"


class PuzzlePlayer(models.Model):
    """A player's puzzle rating (one for every ruleset's puzzles), a fold of their rated
    results; ``rated`` counts those."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    rated = models.IntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_puzzle_player"

    def __str__(self) -> str:
        return f"puzzle rating of {self.player_id}"


class PuzzleRating(models.Model):
    """A puzzle's rating, a fold of its rated results; it starts from the puzzle's
    ``first_rating``."""

    puzzle = models.OneToOneField(
        Puzzle, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    rated = models.IntegerField(default=0)

    class Meta:
        db_table = "games_puzzle_rating"

    def __str__(self) -> str:
        return f"rating of puzzle {self.puzzle_id}"


class PuzzleRatingChange(models.Model):
    """What one rated result did to both ratings (the player's and the puzzle's)."""

    result = models.OneToOneField(
        PuzzleResult, primary_key=True, on_delete=models.DO_NOTHING, related_name="+"
    )
    player_before = models.FloatField()
    player_rd_before = models.FloatField()
    player_after = models.FloatField()
    player_rd_after = models.FloatField()
    player_volatility_after = models.FloatField()
    puzzle_before = models.FloatField()
    puzzle_rd_before = models.FloatField()
    puzzle_after = models.FloatField()
    puzzle_rd_after = models.FloatField()
    puzzle_volatility_after = models.FloatField()

    class Meta:
        db_table = "games_puzzle_rating_change"

    def __str__(self) -> str:
        return f"rating change of result {self.result_id}"


class PuzzleDay(models.Model):
    """The puzzle of a UTC day: chosen once by the scheduled job, each puzzle at most
    once."""

    date = models.DateField(primary_key=True)
    puzzle = models.OneToOneField(Puzzle, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        db_table = "games_puzzle_day"
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"puzzle of {self.date}"
