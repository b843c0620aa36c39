"""The winnable pools' tables: certified deals, who drew which, and each pool's cursor."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class CertifiedDeal(models.Model):
    """A deal of a ruleset's secret pool sequence that the solver proved winnable, with the
    winning line it found (checked through the engine) and how hard the deal is. The seed
    and the line never leave the server while a game of the deal is played
    (``games.reads.visibility``)."""

    rules = models.CharField(max_length=32)
    #: Which deal of the ruleset's secret sequence (``games.pools.certify.secret_seed``).
    index = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    #: A winning line (API commands), replayed to a win through the engine before it is kept.
    solution = models.JSONField()
    #: Nodes the solver searched to prove the deal winnable.
    nodes = models.BigIntegerField()
    #: Whether a player who sees only the face-up cards and follows the hints won the deal
    #: (``None``: not measured); one of the two inputs of ``difficulty``.
    follower_won = models.BooleanField(null=True)
    #: When the follower's verdict was settled: measured, or given up past
    #: ``POOL_FOLLOW_SECONDS`` (``None``: not yet; the pool-fill job certifies without it,
    #: and the follow-up job measures it later, ``games.pools.follow_up``).
    followed_at = models.DateTimeField(null=True, blank=True)
    #: 0 (easiest) to 1 (hardest), and its band (docs/solvability.md#difficulty).
    difficulty = models.FloatField()
    difficulty_label = models.CharField(max_length=16)
    #: How many players were dealt it: a fresh deal (none) is dealt first.
    draws = models.PositiveIntegerField(default=0)
    #: Its rating predicted from the certification (``games.ratings.predict``; ``None``
    #: until first predicted): what a rated game of it records as the deal's first rating.
    rating = models.FloatField(null=True)
    created_at = models.DateTimeField()

    class Meta:
        db_table = "games_certified_deal"
        constraints = [
            models.UniqueConstraint(fields=["rules", "index"], name="certified_deal_one_index"),
            models.CheckConstraint(
                condition=models.Q(difficulty__gte=0, difficulty__lte=1),
                name="certified_deal_difficulty_0_1",
            ),
        ]
        indexes = [
            models.Index(fields=["rules", "draws", "id"], name="certified_deal_fresh"),
            models.Index(
                fields=["id"],
                condition=models.Q(followed_at__isnull=True),
                name="certified_deal_unfollowed",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rules} pool deal {self.index}"


class PoolDraw(models.Model):
    """A player was dealt a certified deal: at most once each (the unique constraint is the
    last guard of ``games.pools.draw``)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pool_draws"
    )
    deal = models.ForeignKey(CertifiedDeal, on_delete=models.PROTECT, related_name="draws_of")
    #: The game dealt from it (not a foreign key: ``rebuild_projections`` remakes ``Game``
    #: rows, and the draw is of the events, which stay).
    game_id = models.UUIDField(null=True, unique=True)
    drawn_at = models.DateTimeField()

    class Meta:
        db_table = "games_pool_draw"
        constraints = [
            models.UniqueConstraint(fields=["player", "deal"], name="pool_draw_once_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.deal} dealt to {self.player_id}"


class PoolCursor(models.Model):
    """The next index of a ruleset's secret pool sequence to certify: candidates are tried
    once each, whatever the verdict."""

    rules = models.CharField(max_length=32, primary_key=True)
    next_index = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "games_pool_cursor"

    def __str__(self) -> str:
        return f"{self.rules} pool at {self.next_index}"


class RatedDeal(models.Model):
    """A deal dealt to a rated pool game: one row per deal, ever. PostgreSQL writes it, from
    the ``created`` event of every rated game that is not a daily's (a trigger of the
    ``0022`` migration), so the unique ``(rules, seed)`` refuses a second rated game of a
    deal however its event is written (docs/ratings.md#one-rated-game-a-deal). Rated games
    dealt before the table existed are recorded by their first game only: a deal some of
    them shared stays as it was dealt."""

    rules = models.CharField(max_length=32)
    seed = models.BigIntegerField()
    #: The rated game dealt it (not a foreign key: ``Game`` rows are a projection).
    game_id = models.UUIDField(unique=True)
    dealt_at = models.DateTimeField()

    class Meta:
        db_table = "games_rated_deal"
        constraints = [
            models.UniqueConstraint(fields=["rules", "seed"], name="rated_deal_once"),
        ]

    def __str__(self) -> str:
        return f"{self.rules} deal {self.seed} rated in {self.game_id}"
