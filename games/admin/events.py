"""The Events page: every event, read-only for everyone (events are facts)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from games.admin.common import ReadOnlyAdmin, as_json, as_uuid, game_link
from games.reads import presenters, visibility
from games.store import events as vocabulary
from games.store.models import Event, Game
from games.store.summary import GameSummary


class EventTypeFilter(admin.SimpleListFilter):
    title = "type"
    parameter_name = "type"
    types = vocabulary.TYPES

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(kind, kind) for kind in self.types]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(type=self.value()) if self.value() else queryset


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    """Events are immutable facts: viewing only, for everyone (the database refuses changes
    anyway)."""

    list_display = ("position", "game", "seq", "type", "actor", "at")
    list_select_related = ("actor",)
    list_filter = (EventTypeFilter,)
    search_fields = ("game_id",)  # answered by get_search_results: an exact game id
    search_help_text = "A game id (the whole UUID)."
    fields = ("position", "game", "seq", "type", "shown_data", "actor", "at", "idempotency_key")
    readonly_fields = fields

    @admin.display(description="game")
    def game(self, event: Event) -> SafeString | str:
        return game_link(event.game_id)

    @admin.display(description="data")
    def shown_data(self, event: Event) -> SafeString:
        # A field of the page has no request: it shows what staff who revealed nothing see.
        game = Game.objects.select_related("owner").filter(id=event.game_id).first()
        if game is None:  # an event whose game row a rebuild has not written yet
            return as_json("-")
        sight = visibility.sight(visibility.STAFF, GameSummary.from_row(game))
        return as_json(presenters.event_data(event, sight))

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Event], search_term: str
    ) -> tuple[QuerySet[Event], bool]:
        if not search_term.strip():
            return queryset, False
        key = as_uuid(search_term)
        return (queryset.filter(game_id=key) if key else queryset.none()), False
