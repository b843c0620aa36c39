"""Reads: who may see which game, and the queries the API and live views share.

Visibility is decided here once. A public game is readable by anyone, a private one by its
owner, everything by staff. A daily challenge's game is its player's alone while the day
runs (everyone plays the same deal), and everyone's once the day is over. What a reader
sees of a board is :func:`may_reveal`'s: hidden cards and the seed only for staff, for a
finished game, and for any game of a daily challenge that has ended.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, F, Min, OuterRef, Q, QuerySet

from games import engine
from games.dailies import challenges as dailies
from games.dailies.models import Standing
from games.engine.hint import hint
from games.errors import ChallengeInProgress, GameNotFound, PlayerNotFound, PrivateGame
from games.store import streams
from games.store.models import Event, Game, Player


def is_staff(viewer: Any) -> bool:
    """Whether ``viewer`` (a user, possibly anonymous or ``None``) is staff."""
    return bool(viewer is not None and getattr(viewer, "is_staff", False))


def is_owner(game: Game, viewer: Any) -> bool:
    """Whether ``viewer`` is signed in and owns ``game``."""
    return bool(viewer is not None and viewer.is_authenticated and game.owner_id == viewer.pk)


def check_read(game: Game, viewer: Any) -> None:
    """Raise unless ``viewer`` may read ``game`` (and spectate it)."""
    if is_staff(viewer) or is_owner(game, viewer):
        return
    if game.challenge is not None:
        if dailies.is_open(game.challenge):
            raise ChallengeInProgress()
        return
    if not game.public:
        raise PrivateGame()


def may_reveal(game: Game, viewer: Any) -> bool:
    """Whether ``viewer`` may see ``game``'s hidden cards, seed and deal."""
    if is_staff(viewer):
        return True
    if game.challenge is not None:
        return not dailies.is_open(game.challenge)
    return game.finished


def game_get(*, game_id: uuid.UUID | str, viewer: Any) -> Game:
    """The game if ``viewer`` may read it: :class:`GameNotFound`, :class:`PrivateGame` or
    :class:`ChallengeInProgress` otherwise."""
    try:
        key = game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id))
        game = Game.objects.select_related("owner").get(id=key)
    except (Game.DoesNotExist, ValueError):
        raise GameNotFound() from None
    check_read(game, viewer)
    return game


def game_list(
    *,
    viewer: Any,
    owner: str | None = None,
    status: str | None = None,
    rules: str | None = None,
) -> QuerySet[Game]:
    """Games ``viewer`` may read (public ones, their own, and those of daily challenges that
    have ended), newest first, filtered. A banned player's games are listed only to staff
    and to that player (they stay readable one by one)."""
    games = Game.objects.select_related("owner")
    if not is_staff(viewer):
        today = dailies.today()
        visible = (Q(public=True) & Q(challenge__isnull=True)) | Q(challenge__lt=today)
        shown = ~Exists(Player.objects.filter(user_id=OuterRef("owner_id"), banned=True))
        if viewer is not None and viewer.is_authenticated:
            visible |= Q(owner_id=viewer.pk)
            shown |= Q(owner_id=viewer.pk)
        games = games.filter(visible & shown)
    if owner:
        games = games.filter(owner__username=owner)
    if status:
        games = games.filter(status=status)
    if rules:
        games = games.filter(rules=rules)
    return games.order_by("-created_at", "id")


def game_stream(game: Game) -> streams.Stream:
    """The stream behind ``game``'s projection (cached; replays only what is missing)."""
    return streams.load(game.id, game.version)


def game_events(*, game: Game, after: int, limit: int) -> tuple[list[Event], bool]:
    """Up to ``limit`` events of ``game`` after ``seq`` ``after`` (its projection's version
    at most), in ``seq`` order, with their actors; and whether more follow."""
    events = list(
        Event.objects.filter(game_id=game.id, seq__gt=after, seq__lte=game.version)
        .select_related("actor")
        .order_by("seq")[: limit + 1]
    )
    return events[:limit], len(events) > limit


def game_moves(game: Game) -> list[dict[str, Any]]:
    """Every legal action now, as API entries (moves name the face-up card they take)."""
    state = game_stream(game).state
    return [engine.describe_action(state, action) for action in engine.legal_actions(state)]


def game_hint(game: Game) -> dict[str, Any] | None:
    """The recommended action as an API entry, or ``None``.

    Computed from the projection's public board only (never the replayed state), so no
    hidden card can sway it.
    """
    board = game.board
    view: dict[str, Any] = {
        "status": game.status,
        "columns": board["columns"],
        "reserve": game.reserve,
        "removed": game.removed,
    }
    if "cells" in board:
        view["cells"] = board["cells"]
    action = hint(engine.RULESETS[game.rules], view)
    if isinstance(action, engine.Move):
        card = board["columns"][action.source - 1][action.index]
        return {**engine.action_to_command(action), "card": card}
    if isinstance(action, engine.CellMove):
        return {**engine.action_to_command(action), "card": board["cells"][action.cell - 1]}
    if isinstance(action, engine.Deal):
        return {"type": "deal"}
    return None


def game_at_version(*, game: Game, version: int) -> streams.Stream:
    """``game``'s stream as it was at ``version`` (:class:`GameNotFound` outside
    1..current)."""
    if not 1 <= version <= game.version:
        raise GameNotFound()
    return streams.at_version(game.id, version)


def player_stats(*, username: str) -> dict[str, Any]:
    """A player's record: :class:`PlayerNotFound` for an unknown name.

    ``played``/``won``/``best_time_ms`` count every game but those a moderator voided;
    ``streak``/``best_streak`` count consecutive UTC days with a won daily challenge, the
    current streak running to today or, while today is not won yet, to yesterday.
    """
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PlayerNotFound()
    games = Game.objects.filter(owner=user, voided=False)
    won = Q(status=Game.Status.WON)
    totals = games.aggregate(
        played=Count("id"),
        won=Count("id", filter=won),
        best=Min(F("finished_at") - F("created_at"), filter=won),
    )
    played, wins, best = totals["played"], totals["won"], totals["best"]
    days = sorted(
        Standing.objects.filter(player=user, status=Game.Status.WON, voided=False).values_list(
            "challenge_id", flat=True
        )
    )
    streak, best_streak = _streaks(days, dailies.today())
    return {
        "username": user.get_username(),
        "played": played,
        "won": wins,
        "win_rate": round(wins / played, 4) if played else 0.0,
        "streak": streak,
        "best_streak": best_streak,
        "best_time_ms": best // dt.timedelta(milliseconds=1) if best is not None else None,
    }


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
