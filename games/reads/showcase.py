"""What the lobby's "Live now" and TV show: public games being played right now.

A game is live while it is playing, public, of no daily challenge, race or arena (those stay
hidden from others while they run: ``games.reads.visibility``), its owner not banned, and
its last event at most ``LIVE_WINDOW_SECONDS`` old, so a game left in play drops out. TV
picks among the same games the one most worth watching: the longest (most moves), then the
latest to move. Both answers carry an ETag of what they list, so a client asks again with
``If-None-Match`` and gets 304 until something changes (docs/api.md#live-games).
"""

from __future__ import annotations

import datetime as dt
import hashlib

from django.conf import settings
from django.db.models import QuerySet

from games import clock
from games.reads import selectors, visibility
from games.reads.visibility import Viewer
from games.store.models import Game


def _live() -> QuerySet[Game]:
    since = clock.now() - dt.timedelta(seconds=settings.LIVE_WINDOW_SECONDS)
    return (
        Game.objects.select_related("owner")
        .filter(visibility.listed(visibility.ANONYMOUS))
        .filter(
            status=Game.Status.PLAYING,
            public=True,
            challenge__isnull=True,
            contest__isnull=True,
            updated_at__gte=since,
        )
    )


def live_games(*, viewer: Viewer, limit: int) -> list[selectors.Seen]:
    """Up to ``limit`` live games, the latest to move first, as ``viewer`` sees them."""
    rows = _live().order_by("-updated_at", "id")[:limit]
    return [selectors.listed_game(row, viewer) for row in rows]


def tv_pick(*, viewer: Viewer) -> selectors.Seen | None:
    """The live game most worth watching (most moves, then the latest to move), or ``None``."""
    row = _live().order_by("-moves", "-updated_at", "id").first()
    return None if row is None else selectors.listed_game(row, viewer)


def etag(seen: list[selectors.Seen]) -> str:
    """An ETag of a list of games: it changes when a game joins, leaves or moves."""
    text = ",".join(f"{item.game.id}:{item.game.version}" for item in seen)
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:20] + '"'
