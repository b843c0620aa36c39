"""The ratings' tables, projections of the events (docs/ratings.md): a player's rating per
ruleset, a deal's per ruleset and seed, each rated game's change, and each player's
history. Written by ``games.projections.ratings`` in the statement of the event that
changes them; their DDL is ``games.migrations.0015_ratings``'s."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class PlayerRating(models.Model):
    """A player's rating in one ruleset's pool. ``changes`` counts their history's rows
    (the key of the next one); ``games`` the rated games that count (not voided)."""

    id = models.BigAutoField(primary_key=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    rules = models.CharField(max_length=32)
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    games = models.IntegerField(default=0)
    changes = models.IntegerField(default=0)
    #: When the rating last changed (ties on the rating board: who got there first).
    updated_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "games_rating_player"
        constraints = [
            models.UniqueConstraint(fields=["player", "rules"], name="rating_player_rules")
        ]

    def __str__(self) -> str:
        return f"rating of {self.player_id} in {self.rules}"


class DealRating(models.Model):
    """A deal's rating in its ruleset's pool; its first rating comes from its difficulty."""

    id = models.BigAutoField(primary_key=True)
    rules = models.CharField(max_length=32)
    seed = models.BigIntegerField()
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    games = models.IntegerField(default=0)

    class Meta:
        db_table = "games_rating_deal"
        constraints = [models.UniqueConstraint(fields=["rules", "seed"], name="rating_deal_seed")]

    def __str__(self) -> str:
        return f"rating of {self.rules} deal {self.seed}"


class RatedGame(models.Model):
    """A scored rated game: both ratings before and after its one-game update, whether the
    player's change counts now (``counted``: not voided) and whether the deal's does
    (``deal_counted``: not voided, and not restored while the player was banned)."""

    game_id = models.UUIDField(primary_key=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    rules = models.CharField(max_length=32)
    seed = models.BigIntegerField()
    score = models.FloatField()
    at = models.DateTimeField()
    player_before = models.FloatField()
    player_rd_before = models.FloatField()
    player_volatility_before = models.FloatField()
    player_after = models.FloatField()
    player_rd_after = models.FloatField()
    player_volatility_after = models.FloatField()
    deal_before = models.FloatField()
    deal_rd_before = models.FloatField()
    deal_volatility_before = models.FloatField()
    deal_after = models.FloatField()
    deal_rd_after = models.FloatField()
    deal_volatility_after = models.FloatField()
    counted = models.BooleanField()
    deal_counted = models.BooleanField()

    class Meta:
        db_table = "games_rated_game"

    def __str__(self) -> str:
        return f"rated game {self.game_id}"


class RatingChange(models.Model):
    """One row of a player's history in a ruleset: their rating after a rated game
    (``game``), or after a void or a restore of one; ``n`` counts from 1."""

    class Kind(models.TextChoices):
        GAME = "game"
        VOID = "void"
        RESTORE = "restore"

    id = models.BigAutoField(primary_key=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    rules = models.CharField(max_length=32)
    n = models.IntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    game_id = models.UUIDField()
    seq = models.IntegerField()
    at = models.DateTimeField()
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()

    class Meta:
        db_table = "games_rating_change"
        constraints = [
            models.UniqueConstraint(fields=["player", "rules", "n"], name="rating_change_n")
        ]

    def __str__(self) -> str:
        return f"rating change {self.n} of {self.player_id} in {self.rules}"


class RatingFit(models.Model):
    """A ruleset's fit of a deal's rating from its certification (``games.ratings.fit``):
    its weights, in the order of ``fit.NAMES``, and the rated games it was fitted on. Not
    a projection: the rating each deal was first given is in its game's ``created`` event,
    so a refit changes no rating already served, only those of the deals still to deal."""

    rules = models.CharField(max_length=32, primary_key=True)
    weights = models.JSONField()
    games = models.IntegerField()
    log_likelihood = models.FloatField()
    fitted_at = models.DateTimeField()

    class Meta:
        db_table = "games_rating_fit"

    def __str__(self) -> str:
        return f"rating fit of {self.rules} on {self.games} games"


class GameEvidence(models.Model):
    """What the background job measured of a finished rated or contest game
    (``games.ratings.evidence``), and the reasons it is flagged for a moderator (none: not
    flagged). Written once per game by ``games.jobs.assess_game``; a retry writes it again,
    the same."""

    game_id = models.UUIDField(primary_key=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    rules = models.CharField(max_length=32)
    #: ``rated`` (a pool game), ``daily`` or ``contest``.
    kind = models.CharField(max_length=8)
    won = models.BooleanField()
    positions = models.IntegerField()
    matched = models.IntegerField()
    match = models.FloatField(null=True)
    intervals = models.IntegerField()
    median_seconds = models.FloatField(null=True)
    mean_seconds = models.FloatField(null=True)
    variation = models.FloatField(null=True)
    difficulty = models.FloatField(null=True)
    hints = models.IntegerField()
    reasons = models.JSONField(default=list)
    flagged = models.BooleanField()
    assessed_at = models.DateTimeField()

    class Meta:
        db_table = "games_game_evidence"
        indexes = [models.Index(fields=["flagged", "-assessed_at"], name="evidence_flagged")]

    def __str__(self) -> str:
        return f"evidence of {self.game_id}"
