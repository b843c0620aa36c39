"""The Players page: accounts, banned or not, their latest games, standings and history;
moderators ban and lift bans here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.admin.common import (
    RECENT,
    BannedFilter,
    ModerationAdmin,
    banned,
    elapsed,
    flag_list,
    game_link,
    moderator_of,
)
from games.dailies.models import Standing
from games.store.models import Game, ModerationAct, PlayerAccount
from games.writes import moderation


@admin.register(PlayerAccount)
class PlayerAccountAdmin(ModerationAdmin):
    list_display = ("username", "banned", "is_staff", "is_active", "date_joined", "last_login")
    list_filter = (BannedFilter, "is_staff", "is_active")
    search_fields = ("username",)
    ordering = ("username",)
    actions = ["ban_players", "unban_players"]
    fields = (
        "username",
        "banned",
        "is_staff",
        "is_active",
        "date_joined",
        "last_login",
        "recent_games",
        "recent_standings",
        "moderation_history",
    )
    readonly_fields = fields
    change_form_template = "admin/games/playeraccount/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlayerAccount]:
        accounts: QuerySet[PlayerAccount] = super().get_queryset(request)
        return accounts.annotate(is_banned=banned("pk"))

    @admin.display(boolean=True, ordering="is_banned")
    def banned(self, user: PlayerAccount) -> bool:
        return bool(getattr(user, "is_banned", False))

    @admin.display(description="games (newest first)")
    def recent_games(self, user: PlayerAccount) -> SafeString:
        games = Game.objects.filter(owner=user).order_by("-created_at")[:RECENT]
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    game_link(g.id),
                    g.rules,
                    g.status,
                    g.challenge or "-",
                    "voided" if g.voided else "",
                    g.created_at.strftime("%Y-%m-%d %H:%M"),
                )
                for g in games
            ),
        )
        every = reverse("admin:games_game_changelist") + f"?owner__id__exact={user.pk}"
        return format_html(
            "<table><tr><th>game</th><th>rules</th><th>status</th><th>daily</th><th></th>"
            '<th>created</th></tr>{}</table><a href="{}">all their games</a>',
            rows,
            every,
        )

    @admin.display(description="daily standings (newest first)")
    def recent_standings(self, user: PlayerAccount) -> SafeString:
        entries = Standing.objects.filter(player=user).order_by("-challenge_id")[:RECENT]
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    s.challenge_id,
                    game_link(s.game_id),
                    s.status,
                    elapsed(s.elapsed_ms),
                    "voided" if s.voided else "",
                    flag_list(s),
                )
                for s in entries
            ),
        )
        every = reverse("admin:games_standing_changelist") + f"?player__id__exact={user.pk}"
        return format_html(
            "<table><tr><th>day</th><th>game</th><th>status</th><th>time</th><th></th>"
            '<th>review</th></tr>{}</table><a href="{}">all their standings</a>',
            rows,
            every,
        )

    @admin.display(description="moderation history")
    def moderation_history(self, user: PlayerAccount) -> SafeString | str:
        acts = ModerationAct.objects.filter(player=user).select_related("moderator")[:RECENT]
        if not acts:
            return "-"
        return format_html_join(
            "",
            "<div>{} · {} by {}{}: {}</div>",
            (
                (
                    a.at.strftime("%Y-%m-%d %H:%M"),
                    a.act,
                    a.moderator,
                    format_html(" (game {})", game_link(a.game_id)) if a.game_id else "",
                    a.reason,
                )
                for a in acts
            ),
        )

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path("<path:object_id>/ban/", view(self.ban_view), name="games_playeraccount_ban"),
            path(
                "<path:object_id>/unban/", view(self.unban_view), name="games_playeraccount_unban"
            ),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = {**(extra_context or {}), "can_moderate": self.has_moderate_permission(request)}
        user = self.get_object(request, object_id)
        context["is_banned"] = bool(user is not None and getattr(user, "is_banned", False))
        return super().change_view(request, object_id, form_url, context)

    def _ban(self, request: HttpRequest) -> Callable[[Any, str], str]:
        def apply(user: Any, reason: str) -> str:
            moderation.player_ban(player=user, moderator=moderator_of(request), reason=reason)
            return f"Banned {user}."

        return apply

    def _unban(self, request: HttpRequest) -> Callable[[Any, str], str]:
        def apply(user: Any, reason: str) -> str:
            moderation.player_unban(player=user, moderator=moderator_of(request), reason=reason)
            return f"Lifted the ban of {user}."

        return apply

    def ban_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self.object_moderation_view(
            request, object_id, title="Ban a player", verb="Ban", apply=self._ban(request)
        )

    def unban_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self.object_moderation_view(
            request, object_id, title="Lift a ban", verb="Unban", apply=self._unban(request)
        )

    @admin.action(description="Ban the selected players", permissions=["moderate"])
    def ban_players(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return self.ask_reason(
            request,
            title="Ban players",
            verb="Ban",
            targets=queryset,
            apply=self._ban(request),
            selected=queryset.values_list("pk", flat=True),
            action="ban_players",
            cancel_url=request.get_full_path(),
        )

    @admin.action(description="Lift the ban of the selected players", permissions=["moderate"])
    def unban_players(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return self.ask_reason(
            request,
            title="Lift bans",
            verb="Unban",
            targets=queryset,
            apply=self._unban(request),
            selected=queryset.values_list("pk", flat=True),
            action="unban_players",
            cancel_url=request.get_full_path(),
        )
