"""Reads: who may see which game, and the queries the API and live views share.

Visibility is decided here once: a public game is readable by anyone, a private one by its
owner, everything by staff.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Q, QuerySet

from games import streams
from games.errors import GameNotFound, PrivateGame
from games.models import Game


def is_staff(viewer: Any) -> bool:
    """Whether ``viewer`` (a user, possibly anonymous or ``None``) is staff."""
    return bool(viewer is not None and getattr(viewer, "is_staff", False))


def can_read(game: Game, viewer: Any) -> bool:
    """Whether ``viewer`` may read ``game`` (and spectate it)."""
    if game.public or is_staff(viewer):
        return True
    return viewer is not None and viewer.is_authenticated and game.owner_id == viewer.pk


def game_get(*, game_id: uuid.UUID | str, viewer: Any) -> Game:
    """The game if ``viewer`` may read it: :class:`GameNotFound` or :class:`PrivateGame`."""
    try:
        key = game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id))
        game = Game.objects.select_related("owner").get(id=key)
    except (Game.DoesNotExist, ValueError):
        raise GameNotFound() from None
    if not can_read(game, viewer):
        raise PrivateGame()
    return game


def game_list(
    *,
    viewer: Any,
    owner: str | None = None,
    status: str | None = None,
    rules: str | None = None,
) -> QuerySet[Game]:
    """Games ``viewer`` may read (public ones and their own), newest first, filtered."""
    games = Game.objects.select_related("owner")
    if not is_staff(viewer):
        visible = Q(public=True)
        if viewer is not None and viewer.is_authenticated:
            visible |= Q(owner_id=viewer.pk)
        games = games.filter(visible)
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
