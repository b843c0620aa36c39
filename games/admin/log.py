"""The Moderation log page: every ban, unban, void and restore, on the record for good."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from games.admin.common import ReadOnlyAdmin, as_uuid, game_link, player_link
from games.store.models import ModerationAct


@admin.register(ModerationAct)
class ModerationActAdmin(ReadOnlyAdmin):
    """Every ban, unban, void and restore, newest first: on the record for good."""

    list_display = ("at", "act", "moderator", "target_player", "target_game", "seq", "reason")
    list_select_related = ("moderator", "player")
    list_filter = ("act", ("moderator", admin.RelatedOnlyFieldListFilter))
    search_fields = ("player__username", "reason")
    search_help_text = "A game id, or words of the player's username or of the reason."
    date_hierarchy = "at"
    fields = ("at", "act", "moderator", "target_player", "target_game", "seq", "reason")
    readonly_fields = fields

    @admin.display(description="player")
    def target_player(self, act: ModerationAct) -> SafeString | str:
        return player_link(act.player)

    @admin.display(description="game")
    def target_game(self, act: ModerationAct) -> SafeString | str:
        return game_link(act.game_id)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[ModerationAct], search_term: str
    ) -> tuple[QuerySet[ModerationAct], bool]:
        key = as_uuid(search_term)
        if key is not None:
            return queryset.filter(game_id=key), False
        return super().get_search_results(request, queryset, search_term)
