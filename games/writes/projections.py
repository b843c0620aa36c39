"""Read models as projections of the event store.

Writers save a game's summary (``games.store.summary``) and its daily standing with each
append (in the append's own statement, ``games.writes.appends``), and ``rebuild_games``
recomputes every row from events (``manage.py rebuild_projections``), the leaderboards'
results and entries included (``games.boards.projection``). ``Player.banned`` is
a projection of the moderation log, recomputed by ``rebuild_players``.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from games.boards import projection as leaderboards
from games.dailies import contests, standings
from games.dailies.models import ContestResult, Standing
from games.store import streams
from games.store.models import Event, Game, ModerationAct, Player
from games.store.summary import GameSummary


def create(stream: streams.Stream, summary: GameSummary) -> None:
    """Write the read models of a game that has none yet (made now, or rebuilt), whose
    stream is ``stream`` and summary ``summary``: its ``Game`` row and, for a daily
    challenge game, its ``Standing`` (a race's or arena's: its ``ContestResult``), inside the
    caller's transaction. Appends update them in their own statement (``games.writes.appends``)."""
    Game.objects.create(id=summary.id, **summary.row())
    if stream.challenge is not None:
        Standing.objects.create(game_id=stream.game_id, **standings.standing_fields(stream))
    leaderboards.create_result(stream)
    if stream.contest is not None:
        ContestResult.objects.create(game_id=stream.game_id, **contests.result_fields(stream))


def rebuild_games() -> int:
    """Recompute every ``Game`` row (with its standing, contest result and leaderboard
    result) from events alone, then every leaderboard entry from those results; returns how
    many games there are.

    Holds a lock that blocks commands (they lock their game's row) for the duration.
    """
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE games_game IN ACCESS EXCLUSIVE MODE")
        Game.objects.all().delete()
        leaderboards.clear_results()
        streams.cache.clear()
        names = dict(get_user_model().objects.values_list("pk", "username"))

        def save_stream(stream: streams.Stream) -> None:
            create(stream, GameSummary.of(stream, owner=names[stream.owner_id]))

        count = 0
        current: streams.Stream | None = None
        for event in Event.objects.order_by("game_id", "seq").iterator(chunk_size=2000):
            if current is not None and event.game_id != current.game_id:
                save_stream(current)
                count += 1
                current = None
            current = streams.start(event) if current is None else streams.advance(current, event)
        if current is not None:
            save_stream(current)
            count += 1
        leaderboards.rebuild()
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
