"""The Leaderboards page: every player's entry on every board, read-only (the boards are a
projection; ``manage.py rebuild_projections`` recomputes them, moderation acts on results
and players elsewhere)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from games.admin.common import PlayerBannedFilter, ReadOnlyAdmin, banned, elapsed, game_link
from games.boards.models import BoardEntry


class PeriodKindFilter(admin.SimpleListFilter):
    title = "period"
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("all", "All time"), ("month", "Months"), ("week", "ISO weeks")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "all":
            return queryset.filter(period="all")
        if self.value() == "month":
            return queryset.filter(period__regex=r"^\d{4}-\d{2}$")
        if self.value() == "week":
            return queryset.filter(period__contains="-W")
        return queryset


@admin.register(BoardEntry)
class BoardEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "scope",
        "period",
        "player",
        "wins",
        "best_time",
        "best_game_link",
        "streak",
        "run",
        "player_banned",
    )
    list_filter = ("scope", PeriodKindFilter, PlayerBannedFilter)
    list_select_related = ("player",)
    search_fields = ("player__username", "period")
    ordering = ("scope", "-period", "-wins", "wins_at")
    readonly_fields = (
        "scope",
        "period",
        "player",
        "wins",
        "wins_at",
        "best_time",
        "best_at",
        "best_game_link",
        "streak",
        "streak_at",
        "run",
        "last_at",
        "last_day",
    )
    fields = readonly_fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[BoardEntry]:
        entries: QuerySet[BoardEntry] = super().get_queryset(request)
        return entries.annotate(is_banned=banned("player_id"))

    @admin.display(description="best time", ordering="best_ms")
    def best_time(self, entry: BoardEntry) -> str:
        return "-" if entry.best_ms is None else elapsed(entry.best_ms)

    @admin.display(description="best game")
    def best_game_link(self, entry: BoardEntry) -> SafeString | str:
        return game_link(entry.best_game)

    @admin.display(description="banned (off the boards)", boolean=True)
    def player_banned(self, entry: BoardEntry) -> bool:
        return bool(getattr(entry, "is_banned", False))
