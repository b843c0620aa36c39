"""``Player.banned``: a projection of the moderation log (not of the event log), recomputed
by ``rebuild_projections``; the moderation services keep it as they write the log."""

from __future__ import annotations

from django.db import connection, transaction

from games.store.models import ModerationAct, Player


def rebuild() -> int:
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
