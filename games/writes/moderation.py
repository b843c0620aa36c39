"""Moderation services: banning players and voiding results, every act on the record.

Each service is one transaction that holds both the act's effect and its row in the
moderation log (:class:`~games.models.ModerationAct`, append-only in PostgreSQL), so an
effect never exists without its record or the other way round. Keyword-only arguments; the
moderator must be staff (the admin also asks for the ``games.moderate`` permission).

- A ban sets ``Player.banned`` (a projection of the log): the player's commands, new games
  and challenge joins are refused, their results leave every challenge's standings and
  every leaderboard (the ranking queries leave banned players out; watchers of open races
  get fresh standings after commit) and their games leave other people's game lists.
  Reading stays possible.
- A void appends ``result_voided`` (``{"reason"}``, actor the moderator) to the game's own
  stream, under the same lock and ``seq`` rules as a player's command, and the projections
  (``Game.voided``, ``Standing.voided``, the contest result, the leaderboard result, and
  the player's entries on its boards, recomputed: ``games.projections``) follow in the
  same transaction; spectators receive
  the event and race watchers the new standings after commit. A restore appends
  ``result_restored`` and undoes it.
- A rated game's void takes its change off its player's and its deal's ratings, and a
  restore puts it back: the deal's only if the player is not banned, which the
  ``result_restored`` event records (``owner_banned``), so the rebuild agrees
  (docs/ratings.md).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from games import clock
from games.dailies import challenges, contests
from games.dailies.models import Standing
from games.errors import ModerationRefused
from games.live import publish
from games.store import events, streams
from games.store.models import Event, ModerationAct, Player
from games.store.summary import GameSummary
from games.writes import services

#: Longest reason a moderator may give.
MAX_REASON = 1000


@dataclass(frozen=True, slots=True)
class ResultModerated:
    """What a void or restore did: the appended event, the stream after it, the log row."""

    event: Event
    stream: streams.Stream
    summary: GameSummary
    act: ModerationAct


def player_ban(*, player: User, moderator: User, reason: str) -> ModerationAct:
    """Ban ``player``; :class:`ModerationRefused` if they are banned already."""
    return _set_banned(player=player, moderator=moderator, reason=reason, banned=True)


def player_unban(*, player: User, moderator: User, reason: str) -> ModerationAct:
    """Lift ``player``'s ban; :class:`ModerationRefused` if they are not banned."""
    return _set_banned(player=player, moderator=moderator, reason=reason, banned=False)


def result_void(*, game_id: uuid.UUID, moderator: User, reason: str) -> ResultModerated:
    """Void the game's result (``result_voided`` in its stream); :class:`ModerationRefused`
    if it is voided already, :class:`~games.errors.GameNotFound` if there is no game."""
    return _judge(game_id=game_id, moderator=moderator, reason=reason, void=True)


def result_restore(*, game_id: uuid.UUID, moderator: User, reason: str) -> ResultModerated:
    """Restore a voided result (``result_restored`` in its stream); :class:`ModerationRefused`
    if it is not voided."""
    return _judge(game_id=game_id, moderator=moderator, reason=reason, void=False)


def _set_banned(*, player: User, moderator: User, reason: str, banned: bool) -> ModerationAct:
    text = _checked(moderator, reason)
    with transaction.atomic():
        Player.objects.bulk_create([Player(user_id=player.pk)], ignore_conflicts=True)
        row = Player.objects.select_for_update().get(user_id=player.pk)
        if row.banned == banned:
            if banned:
                raise ModerationRefused("already_banned", f"{player} is banned already.")
            raise ModerationRefused("not_banned", f"{player} is not banned.")
        row.banned = banned
        row.save(update_fields=["banned"])
        act = ModerationAct.objects.create(
            act=ModerationAct.Act.BAN if banned else ModerationAct.Act.UNBAN,
            moderator=moderator,
            player_id=player.pk,
            reason=text,
            at=clock.now(),
        )
        # Their entries leave (or rejoin) every race they are in: tell the live ones.
        open_days = Standing.objects.filter(
            player_id=player.pk, challenge_id__gte=challenges.today()
        )
        for day in open_days.values_list("challenge_id", flat=True):
            publish.standings_after_commit(day)
        for contest in contests.entered_unfinished(player.pk):
            publish.contest_after_commit(contest)
    return act


def _judge(*, game_id: uuid.UUID, moderator: User, reason: str, void: bool) -> ResultModerated:
    text = _checked(moderator, reason)
    with transaction.atomic():
        row = services.lock_game(game_id)
        stream = streams.load(game_id, row.version)
        if void and stream.voided:
            raise ModerationRefused("already_voided", "This result is voided already.")
        if not void and not stream.voided:
            raise ModerationRefused("not_voided", "This result is not voided: nothing to restore.")
        owner = get_user_model().objects.only("username").get(pk=row.owner_id)
        fact = (
            events.ResultVoided(text)
            if void
            else events.ResultRestored(text, owner_banned=row.owner_banned)
        )
        done = services.append_event(stream, fact, actor=moderator, owner=owner.get_username())
        event = done.event
        act = ModerationAct.objects.create(
            act=ModerationAct.Act.VOID if void else ModerationAct.Act.RESTORE,
            moderator=moderator,
            player_id=row.owner_id,
            game_id=game_id,
            seq=event.seq,
            reason=text,
            at=event.at,
        )
    return ResultModerated(event, done.stream, done.summary, act)


def _checked(moderator: User, reason: str) -> str:
    """The reason, trimmed; refuses a moderator who is not staff and an empty reason."""
    if not getattr(moderator, "is_staff", False) or not moderator.is_active:
        raise ModerationRefused("not_staff", "Only staff can moderate.")
    text = (reason or "").strip()
    if not text:
        raise ModerationRefused("reason_required", "Give a reason: it goes on the record.")
    if len(text) > MAX_REASON:
        raise ModerationRefused(
            "reason_too_long", f"Keep the reason within {MAX_REASON} characters."
        )
    return text
