"""The event store's tables.

``Event`` is the only source of truth: one append-only table of every game's events, its
immutability enforced by PostgreSQL triggers (see the ``0002`` migration). ``Game`` is a
read model, a projection of a game's events kept up to date in the same transaction as each
append and rebuildable from events alone (``manage.py rebuild_projections``). The moderation
log (``ModerationAct``) is append-only too; ``Player.banned`` is its projection.
``PublicLogEntry`` is the public log: the games open to everyone, in commit order
(``games.store.log``, docs/architecture.md#the-public-log).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.db.models import Q


class Xid8Field(models.Field):  # type: ignore[type-arg]
    """A PostgreSQL ``xid8``: a transaction's 64-bit id (``pg_current_xact_id()``), read
    as an ``int``. What orders the public log and the events by commit
    (``games.store.log``)."""

    description = "PostgreSQL transaction id (xid8)"

    def db_type(self, connection: Any) -> str:
        return "xid8"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> int | None:
        return None if value is None else int(value)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        value = super().get_db_prep_value(value, connection, prepared)
        return None if value is None or hasattr(value, "resolve_expression") else str(value)

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        """Written as text and cast: PostgreSQL has no cast from an integer to ``xid8``."""
        return "%s::xid8"


#: The writing transaction's id, as a column's default.
CURRENT_XID = models.Func(function="pg_current_xact_id", output_field=Xid8Field())


class Event(models.Model):
    """One immutable fact about one game.

    ``seq`` numbers a game's events 1, 2, 3, … with no gaps; ``UNIQUE (game_id, seq)`` is
    the optimistic-concurrency guard. ``data`` records intent (``moved {from, index, to}``);
    effects are derived on replay. A retried command carries the same idempotency key and
    request fingerprint, and ``UNIQUE (game_id, idempotency_key)`` makes it append nothing.
    """

    position = models.BigAutoField(primary_key=True)
    game_id = models.UUIDField()
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField(default=dict)
    #: The version of the event class (``games.store.events``) that wrote ``data``.
    schema_version = models.PositiveSmallIntegerField(default=1, db_default=1)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    at = models.DateTimeField()
    # NULL, not "", for "no key": the unique constraint must ignore keyless events.
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    #: SHA-256 of the command that carried ``idempotency_key``: a reused key must carry the
    #: same command.
    request_hash = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    #: The transaction that wrote the event (``NULL`` for events older than the column, all
    #: committed before it): ``(xid, position)`` is the commit order ``games.store.log``
    #: reads.
    xid = Xid8Field(null=True, editable=False, db_default=CURRENT_XID)

    class Meta:
        db_table = "games_event"
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["game_id", "seq"], name="event_game_seq_unique"),
            models.UniqueConstraint(
                fields=["game_id", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="event_game_idempotency_key_unique",
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="event_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} #{self.seq} {self.type}"


class Game(models.Model):
    """A game's head: its stream's latest version, its lock, and its summary.

    A command locks this row (``SELECT … FOR UPDATE``) to append to the game's stream, so
    the row is both the head of the stream and its lock (docs/architecture.md#the-game-row).
    Its other fields are a projection of the events (``games.store.summary.GameSummary``):
    written in the same transaction as each append, rebuildable from events alone. ``board``
    holds every card of the position, face-down ones included, so that reading a game never
    needs a replay; ``games.reads.visibility`` decides what of it is shown.
    """

    class Status(models.TextChoices):
        PLAYING = "playing"
        WON = "won"
        LOST = "lost"
        RESIGNED = "resigned"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games"
    )
    rules = models.CharField(max_length=32)
    seed = models.BigIntegerField(null=True, blank=True)
    public = models.BooleanField(default=True)
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices)
    blocked = models.BooleanField(default=False)
    score = models.IntegerField(default=0)
    moves = models.PositiveIntegerField(default=0)
    undos = models.PositiveIntegerField(default=0)
    reserve = models.PositiveSmallIntegerField(default=0)
    #: Suit letters of the removed runs, in order ("HS").
    removed = models.CharField(max_length=16, blank=True, default="")
    #: Face-down cards turned up in the current position.
    revealed = models.PositiveSmallIntegerField(default=0)
    board = models.JSONField(default=dict)
    #: The daily challenge this game races in (its UTC date), if any.
    challenge = models.DateField(null=True, blank=True)
    #: The race or arena this game is a deal of (``games.dailies.models.Contest``; no
    #: foreign key: this row is a projection), and which of its deals (1, 2, …).
    contest = models.UUIDField(null=True, blank=True)
    round = models.PositiveSmallIntegerField(null=True, blank=True)
    #: A rated game: the player against the deal, in the ruleset's pool (docs/ratings.md).
    rated = models.BooleanField(db_default=False, default=False)
    #: A moderator voided this result (``result_voided`` is the stream's last word on it).
    voided = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_game"
        ordering = ["-created_at", "id"]
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="game_owner_created"),
            models.Index(fields=["public", "-created_at"], name="game_public_created"),
            models.Index(fields=["challenge", "-created_at"], name="game_challenge_created"),
            models.Index(fields=["contest", "owner"], name="game_contest_owner"),
            #: Whether anyone was dealt a deal: a rated draw deals only a deal nobody has seen.
            models.Index(fields=["rules", "seed"], name="game_rules_seed"),
        ]

    def __str__(self) -> str:
        return f"{self.rules} game {self.id} ({self.status})"

    @property
    def finished(self) -> bool:
        """Won, lost or resigned: no action is accepted any more."""
        return self.status != self.Status.PLAYING


class Player(models.Model):
    """What the server keeps about a player beyond their account: moderation state."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="player"
    )
    #: A banned player's commands are refused and their games leave standings and lists.
    #: Written only by ``player_ban`` / ``player_unban``: a projection of the moderation log.
    banned = models.BooleanField(default=False)

    class Meta:
        db_table = "games_player"

    def __str__(self) -> str:
        return f"player {self.user_id}{' (banned)' if self.banned else ''}"


class Account(models.Model):
    """What an account is beyond Django's user row: the pseudonym that names it in the
    public record, whether it is a guest, and whether it was closed.

    Every user has one: a trigger on ``auth_user`` makes it with a fresh pseudonym, whatever
    makes the user (the API, ``createsuperuser``, SQL; the ``0020`` migration). The public
    log and the exports name players only by ``pseudonym``, which never changes; the name
    shown on pages is the username, which a closure replaces with the pseudonym
    (docs/architecture.md#names-and-the-public-record).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="account"
    )
    #: ``p-`` and 16 hex digits, random: the name in the public log and the exports.
    pseudonym = models.CharField(max_length=24, unique=True)
    #: A visitor playing with no account yet (docs/api.md#guests): never rated, never on a
    #: board, expired when idle.
    guest = models.BooleanField(default=False)
    #: When the account was closed (or the guest expired): its name is gone, its games stay.
    closed_at = models.DateTimeField(null=True, blank=True)
    #: How the player likes the client (docs/api.md#preferences): what was stored, read over
    #: the defaults of ``games.reads.accounts.PREFERENCES``.
    preferences = models.JSONField(default=dict, db_default={}, blank=True)

    class Meta:
        db_table = "games_account"
        indexes = [
            # The accounts that closed (not guests that expired): few, read by every board.
            models.Index(
                fields=["user"],
                condition=Q(closed_at__isnull=False, guest=False),
                name="account_closed",
            ),
        ]

    def __str__(self) -> str:
        return f"account {self.user_id} ({self.pseudonym})"


class PlayerAccount(User):
    """A user account seen as a player, for the moderators' admin pages (a proxy: no table
    of its own; the moderation state lives in :class:`Player`)."""

    class Meta:
        proxy = True
        verbose_name = "player"
        verbose_name_plural = "players"


class ModerationAct(models.Model):
    """One act of a moderator, on the record for good: append-only like events (PostgreSQL
    triggers refuse UPDATE, DELETE and TRUNCATE, see the ``0005`` migration).

    ``Player.banned`` is a projection of the bans and unbans here; a void or restore is also
    an event in the game's own stream (``seq`` names it).
    """

    class Act(models.TextChoices):
        BAN = "ban"
        UNBAN = "unban"
        VOID = "void"
        RESTORE = "restore"

    id = models.BigAutoField(primary_key=True)
    act = models.CharField(max_length=16, choices=Act.choices)
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    #: The banned or unbanned player, or the player whose result was voided or restored.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moderation_acts"
    )
    #: The game whose result was voided or restored (no foreign key: ``Game`` rows are a
    #: projection, rebuilt from events).
    game_id = models.UUIDField(null=True, blank=True)
    #: The ``result_voided`` / ``result_restored`` event in that game's stream.
    seq = models.PositiveIntegerField(null=True, blank=True)
    reason = models.TextField()
    at = models.DateTimeField()

    class Meta:
        db_table = "games_moderation_log"
        ordering = ["-id"]
        verbose_name = "moderation act"
        verbose_name_plural = "moderation log"
        indexes = [
            models.Index(fields=["player", "id"], name="moderation_player"),
            models.Index(fields=["game_id"], name="moderation_game"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="moderation_reason_given"),
            models.CheckConstraint(
                condition=(
                    Q(act__in=["ban", "unban"], game_id__isnull=True, seq__isnull=True)
                    | Q(act__in=["void", "restore"], game_id__isnull=False, seq__isnull=False)
                ),
                name="moderation_target_fits_act",
            ),
        ]
        permissions = [("moderate", "Can ban players and void results")]

    def __str__(self) -> str:
        target = f"game {self.game_id}" if self.game_id else f"player {self.player_id}"
        return f"{self.act} {target} by {self.moderator_id}"


class GameAnalysis(models.Model):
    """The post-game analysis of a finished game (``games.engine.analysis``): computed once,
    with full information, the first time anyone asks, and kept. Shown only when the game's
    hidden cards may be (docs/api.md#analysis)."""

    #: The game's id (not a foreign key: ``rebuild_projections`` remakes ``Game`` rows, and
    #: an analysis is of the events, which stay).
    game_id = models.UUIDField(primary_key=True)
    #: The version the analysis covers (the game's last action is at or before it).
    version = models.PositiveIntegerField()
    #: Whether the deal could be won from the start (``None``: the search could not tell).
    winnable = models.BooleanField(null=True)
    #: The first version after which the game could no longer be won.
    lost_at = models.PositiveIntegerField(null=True)
    #: The last version whose position could still be won, and a winning line from it (API
    #: commands).
    last_winnable = models.PositiveIntegerField(null=True)
    line = models.JSONField(null=True)
    #: No position whose verdict matters was left undecided by the search's budget.
    decided = models.BooleanField()
    nodes = models.BigIntegerField()
    computed_at = models.DateTimeField()

    class Meta:
        db_table = "games_game_analysis"

    def __str__(self) -> str:
        return f"analysis of {self.game_id}"


class ApiKey(models.Model):
    """One API key of an account (a sign-in: an account may hold several).

    Only the key's SHA-256 is stored, so a copy of the table opens no account. A key is
    alive while its account is active and it was used within ``KEY_LIFETIME_SECONDS``
    (a sliding expiry: ``last_used_at`` moves on with use, at most once a
    ``KEY_TOUCH_SECONDS``); revoking it deletes the row.
    """

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    digest = models.CharField(max_length=64, unique=True)
    #: The key's first characters, so that its owner can tell their keys apart.
    prefix = models.CharField(max_length=8)
    #: What the key is for: given at sign-in, else the client that signed in ("Firefox on
    #: Linux", "python-httpx"), so that its owner knows which to revoke.
    name = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField()
    #: Where it was last used from: the client address and User-Agent (truncated).
    last_address = models.GenericIPAddressField(null=True, blank=True)
    last_user_agent = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        db_table = "games_api_key"
        indexes = [models.Index(fields=["user", "-last_used_at"], name="api_key_user_used")]

    def __str__(self) -> str:
        return f"key {self.prefix}… of user {self.user_id}"


class WsTicket(models.Model):
    """A single-use, short-lived ticket that opens one WebSocket as its account (so that no
    key travels in a URL). Taking it deletes it; a revoked key takes its tickets along."""

    digest = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, null=True, related_name="+")
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "games_ws_ticket"

    def __str__(self) -> str:
        return f"ticket of user {self.user_id}"


class PublicLogEntry(models.Model):
    """A game that became open to everyone, whole: finished and public, or of a daily
    challenge, race or arena that is over (``games.reads.visibility.published``). One row
    per game, never withdrawn; ordered by ``(xid, id)``, the writing transaction's id then
    the row's, and read only below the high-water mark (``games.store.log``).

    ``notation`` is the game in the notation as of ``version``, filled once after the entry
    commits (``games.writes.public_log``); readers write it themselves while it is ``NULL``.
    """

    id = models.BigAutoField(primary_key=True)
    xid = Xid8Field(editable=False, db_default=CURRENT_XID)
    game = models.OneToOneField(Game, on_delete=models.DO_NOTHING, related_name="+")
    #: When the game became open to everyone: its finish, or its contest's end.
    published_at = models.DateTimeField()
    version = models.PositiveIntegerField(null=True, blank=True)
    notation = models.TextField(null=True, blank=True)  # noqa: DJ001

    class Meta:
        db_table = "games_public_log"
        ordering = ["xid", "id"]
        indexes = [
            models.Index(fields=["xid", "id"], name="public_log_order"),
            models.Index(fields=["published_at", "xid", "id"], name="public_log_month"),
            models.Index(
                fields=["id"], condition=Q(notation__isnull=True), name="public_log_unwritten"
            ),
        ]

    def __str__(self) -> str:
        return f"public log #{self.id}: {self.game_id}"


class JobIncident(models.Model):
    """Something the job engine's self-healing did: a job retried because its worker
    stopped heartbeating (``stalled``), or a worker started again after it died or lost
    the database (``restart``). ``/metrics`` counts them (``games.jobs.health``)."""

    STALLED = "stalled"
    RESTART = "restart"

    kind = models.CharField(max_length=16)
    #: The job's task and id, or the worker's queues and why it restarted.
    detail = models.CharField(max_length=200)
    at = models.DateTimeField()

    class Meta:
        db_table = "games_job_incident"
        indexes = [models.Index(fields=["kind"], name="job_incident_kind")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


class JobWorker(models.Model):
    """The queues a job worker runs, beside procrastinate's own row of it
    (``procrastinate_workers``, which has its heartbeat but not its queues): ``/readyz``
    and ``manage.py status`` join the two (``games.jobs.health``). A row whose
    procrastinate worker is gone is stale, and the next worker to start deletes it."""

    #: procrastinate's id of the worker.
    worker_id = models.BigIntegerField(primary_key=True)
    #: The queues it runs, separated by commas; empty: every queue.
    queues = models.CharField(max_length=200, blank=True)
    host = models.CharField(max_length=100)
    pid = models.IntegerField()
    started_at = models.DateTimeField()

    class Meta:
        db_table = "games_job_worker"

    def __str__(self) -> str:
        return f"worker {self.worker_id} on {self.queues or 'every queue'}"
