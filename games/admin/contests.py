"""The Races and arenas pages: every race and arena with its phase, seeds (once finished),
players and final or live table; staff schedule arenas here. The Contest results page lists
each player's game of each deal, where moderators void and restore results (a voided game,
like a banned player, leaves the table)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games import engine
from games.admin.common import (
    PlayerBannedFilter,
    ResultAdmin,
    moderator_of,
)
from games.dailies import contests
from games.dailies.models import Contest, ContestResult
from games.reads import visibility
from games.writes import contests as services


class ArenaForm(forms.ModelForm):  # type: ignore[type-arg]
    """Scheduling an arena: a title, a ruleset and a window."""

    rules = forms.ChoiceField(choices=[(name, name) for name in engine.RULESETS])

    class Meta:
        model = Contest
        fields = ("title", "rules", "starts_at", "ends_at")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instance.kind = Contest.Kind.ARENA  # what the table's constraints check

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        starts, ends = data.get("starts_at"), data.get("ends_at")
        if starts is not None and ends is not None and ends <= starts:
            raise forms.ValidationError("An arena ends after it starts.")
        return data


@admin.register(Contest)
class ContestAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "name",
        "kind",
        "rules",
        "starts_at",
        "ends_at",
        "phase",
        "players",
        "seeds_shown",
        "results_link",
    )
    list_filter = ("kind", "rules", "public")
    search_fields = ("code", "title", "creator__username")
    ordering = ("-starts_at",)
    date_hierarchy = "starts_at"
    show_full_result_count = False
    readonly_fields = (
        "kind",
        "code",
        "title",
        "rules",
        "deals",
        "public",
        "creator",
        "starts_at",
        "ends_at",
        "started_at",
        "finished_at",
        "rotation",
        "phase",
        "players",
        "seeds_shown",
        "table",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Contest]:
        rows: QuerySet[Contest] = super().get_queryset(request)
        return rows.select_related("creator").annotate(entries=Count("entrants"))

    # Moderators schedule arenas (add_contest); players make races; nothing is edited or
    # deleted.
    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_form(
        self, request: HttpRequest, obj: Any | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[Any]]:
        if obj is None:
            kwargs.update(form=ArenaForm, fields=ArenaForm.Meta.fields)
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("title", "rules", "starts_at", "ends_at")
        return self.readonly_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Contest, form: Any, change: bool) -> None:
        made = services.arena_schedule(
            rules=form.cleaned_data["rules"],
            starts_at=form.cleaned_data["starts_at"],
            ends_at=form.cleaned_data["ends_at"],
            title=form.cleaned_data.get("title") or "",
            creator=moderator_of(request),
        )
        obj.pk = made.pk

    def response_add(self, request: HttpRequest, obj: Contest, post_url: Any = None) -> Any:
        obj.refresh_from_db()
        return super().response_add(request, obj, post_url)

    @admin.display(description="race or arena")
    def name(self, contest: Contest) -> str:
        return contest.title or contest.code or str(contest.id)[:8]

    @admin.display(description="phase")
    def phase(self, contest: Contest) -> str:
        return contests.phase(contest)

    @admin.display(description="players", ordering="entries")
    def players(self, contest: Contest) -> int:
        return int(getattr(contest, "entries", 0))

    @admin.display(description="seeds")
    def seeds_shown(self, contest: Contest) -> str:
        seeds = visibility.contest_seeds(contest)
        return "hidden until it is finished" if seeds is None else ", ".join(map(str, seeds))

    @admin.display(description="results")
    def results_link(self, contest: Contest) -> SafeString:
        url = reverse("admin:games_contestresult_changelist") + f"?contest__id__exact={contest.id}"
        return format_html('<a href="{}">results</a>', url)

    @admin.display(description="table (live until finished; voids and bans left out)")
    def table(self, contest: Contest) -> SafeString:
        rows = json.loads(contests.ranked(contest)[1])
        if not rows:
            return format_html("<em>{}</em>", "nobody yet")
        keys = [key for key in rows[0] if key != "rank"]
        head = format_html_join("", "<th>{}</th>", ((key,) for key in ["rank", *keys]))
        body = format_html_join(
            "",
            "<tr>{}</tr>",
            (
                (format_html_join("", "<td>{}</td>", ((row[k],) for k in ["rank", *keys])),)
                for row in rows
            ),
        )
        return format_html("<table><tr>{}</tr>{}</table>", head, body)


@admin.register(ContestResult)
class ContestResultAdmin(ResultAdmin):
    list_display = (
        "contest",
        "player",
        "round",
        "status",
        "moves",
        "sequences",
        "hints",
        "points",
        "time",
        "voided",
        "game_short",
    )
    list_select_related = ("player", "contest")
    list_filter = ("contest__kind", "status", "voided", PlayerBannedFilter)
    search_fields = ("player__username",)
    search_help_text = "A game id, or (part of) the player's username."
    ordering = ("contest", "player", "round")
    fields = (
        "contest",
        "player",
        "round",
        "game_short",
        "status",
        "moves",
        "score",
        "sequences",
        "revealed",
        "hints",
        "points",
        "time",
        "version",
        "voided",
        "joined_at",
    )
    readonly_fields = fields
