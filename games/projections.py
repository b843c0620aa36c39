"""Read models as projections of the event store.

``game_fields`` computes the ``Game`` summary from a stream alone; the command service
writes it in the same transaction as each append, and ``rebuild_games`` recomputes every
row from events (``manage.py rebuild_projections``). ``Player.banned`` is a projection of
the moderation log, recomputed by ``rebuild_players``.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction

from games import engine, standings, streams
from games.models import Event, Game, ModerationAct, Player

#: Fields of ``Game`` that the projection owns (all but the key).
PROJECTED_FIELDS = (
    "owner_id",
    "rules",
    "seed",
    "public",
    "version",
    "status",
    "blocked",
    "score",
    "moves",
    "undos",
    "reserve",
    "removed",
    "revealed",
    "board",
    "challenge",
    "voided",
    "created_at",
    "updated_at",
    "finished_at",
)


def game_fields(stream: streams.Stream) -> dict[str, Any]:
    """The ``Game`` row's projected fields for ``stream``."""
    state = stream.state
    # A daily challenge's deal is everyone's: even a finished game of it stays masked here
    # (the day's end, not the game's, reveals it; presenters then read the stream).
    view = engine.player_view(state, reveal=stream.finished and stream.challenge is None)
    initially_down = sum(down for down, _ in stream.rules.layout)
    return {
        "owner_id": stream.owner_id,
        "rules": stream.rules.name,
        "seed": stream.seed,
        "public": stream.public,
        "version": stream.version,
        "status": state.status,
        "blocked": view["blocked"],
        "score": state.score,
        "moves": state.moves,
        "undos": state.undos,
        "reserve": len(state.reserve),
        "removed": "".join(view["removed"]),
        "revealed": initially_down - sum(state.down),
        "board": {key: view[key] for key in ("columns", "cells", "reserve_cards") if key in view},
        "challenge": stream.challenge,
        "voided": stream.voided,
        "created_at": stream.created_at,
        "updated_at": stream.updated_at,
        "finished_at": stream.finished_at,
    }


def save_game(stream: streams.Stream) -> None:
    """Write the read models of ``stream``: its ``Game`` row and, for a daily challenge
    game, its ``Standing`` (inside the caller's transaction)."""
    fields = game_fields(stream)
    updated = Game.objects.filter(id=stream.game_id).update(**fields)
    if not updated:
        Game.objects.create(id=stream.game_id, **fields)
    standings.save_standing(stream)


def rebuild_games() -> int:
    """Recompute every ``Game`` row from events alone; returns how many games there are.

    Holds a lock that blocks commands (they lock their game's row) for the duration.
    """
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE games_game IN ACCESS EXCLUSIVE MODE")
        Game.objects.all().delete()
        streams.cache.clear()
        count = 0
        current: streams.Stream | None = None
        for event in Event.objects.order_by("game_id", "seq").iterator(chunk_size=2000):
            if current is not None and event.game_id != current.game_id:
                save_game(current)
                count += 1
                current = None
            current = streams.start(event) if current is None else streams.advance(current, event)
        if current is not None:
            save_game(current)
            count += 1
    return count


def rebuild_players() -> int:
    """Recompute ``Player.banned`` from the moderation log alone: a player is banned when
    their latest ban or unban is a ban. Returns how many players are banned."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE games_player IN EXCLUSIVE MODE")
        latest = (
            ModerationAct.objects.filter(act__in=[ModerationAct.Act.BAN, ModerationAct.Act.UNBAN])
            .order_by("player_id", "-id")
            .distinct("player_id")
            .values_list("player_id", "act")
        )
        banned = [player for player, act in latest if act == ModerationAct.Act.BAN]
        Player.objects.exclude(user_id__in=banned).filter(banned=True).update(banned=False)
        Player.objects.bulk_create(
            [Player(user_id=player, banned=True) for player in banned],
            update_conflicts=True,
            unique_fields=["user"],
            update_fields=["banned"],
        )
    return len(banned)
