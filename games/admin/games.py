"""The Games page: every game, its event log and a replay of its board at any version; a
recorded reveal of an open daily challenge's secret; moderators void and restore results."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from games import engine
from games.admin import replay
from games.admin.common import (
    REVEALED_SESSION_KEY,
    ModerationAdmin,
    OwnerBannedFilter,
    SuspiciousFilter,
    as_uuid,
    ask_void,
    change_url,
    flag_list,
    player_link,
    sight_of,
    to_json,
    voider,
)
from games.reads import presenters, visibility
from games.store import streams
from games.store.models import Event, Game, ModerationAct
from games.store.summary import GameSummary

logger = logging.getLogger(__name__)


class RulesFilter(admin.SimpleListFilter):
    title = "rules"
    parameter_name = "rules"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, rules.title) for name, rules in engine.RULESETS.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(rules=self.value()) if self.value() else queryset


class GameSuspiciousFilter(SuspiciousFilter):
    prefix = "standing__"


@admin.register(Game)
class GameAdmin(ModerationAdmin):
    list_display = (
        "short_id",
        "owner",
        "rules",
        "status",
        "challenge",
        "version",
        "score",
        "moves",
        "voided",
        "review",
        "created_at",
    )
    list_select_related = ("owner", "standing")
    list_filter = (
        RulesFilter,
        "status",
        ("challenge", admin.DateFieldListFilter),
        OwnerBannedFilter,
        "voided",
        GameSuspiciousFilter,
    )
    search_fields = ("owner__username",)
    search_help_text = "A game id, or (part of) the owner's username."
    date_hierarchy = "created_at"
    actions = ["void_results", "restore_results"]
    fields = (
        "id",
        "owner_link",
        "rules",
        "seed_shown",
        "public",
        "status",
        "blocked",
        "version",
        "score",
        "moves",
        "undos",
        "reserve",
        "removed",
        "revealed",
        "challenge",
        "voided",
        "review",
        "created_at",
        "updated_at",
        "finished_at",
    )
    readonly_fields = fields
    change_form_template = "admin/games/game/change_form.html"

    @admin.display(description="game", ordering="id")
    def short_id(self, game: Game) -> str:
        return str(game.id)[:8]

    @admin.display(description="owner")
    def owner_link(self, game: Game) -> SafeString | str:
        return player_link(game.owner)

    @admin.display(description="seed")
    def seed_shown(self, game: Game) -> str:
        # A field of the page has no request: it shows what staff who revealed nothing see.
        if not visibility.sight(visibility.STAFF, GameSummary.from_row(game)).reveal:
            return "hidden while the daily challenge is open"
        return "-" if game.seed is None else str(game.seed)

    @admin.display(description="review flags")
    def review(self, game: Game) -> SafeString | str:
        return flag_list(getattr(game, "standing", None))

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Game], search_term: str
    ) -> tuple[QuerySet[Game], bool]:
        key = as_uuid(search_term)
        if key is not None:
            return queryset.filter(id=key), False
        return super().get_search_results(request, queryset, search_term)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/replay/<int:version>/",
                view(self.replay_view),
                name="games_game_replay",
            ),
            path(
                "<path:object_id>/reveal/",
                view(require_POST(self.reveal_view)),
                name="games_game_reveal",
            ),
            path("<path:object_id>/void/", view(self.void_view), name="games_game_void"),
            path("<path:object_id>/restore/", view(self.restore_view), name="games_game_restore"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        game = self.get_object(request, object_id)
        if game is not None and self.has_view_permission(request, game):
            summary = GameSummary.from_row(game)
            sight = sight_of(request, game)
            context.update(
                events=[
                    {**event, "data": to_json(event["data"]), "effects": to_json(event["effects"])}
                    for event in replay.event_log(summary, sight)
                ],
                event_limit=replay.EVENT_LOG_LIMIT,
                secret=visibility.is_secret(GameSummary.from_row(game)) and not sight.reveal,
                can_moderate=self.has_moderate_permission(request),
                replay_url=reverse("admin:games_game_replay", args=[game.id, game.version]),
                acts=ModerationAct.objects.filter(game_id=game.id).select_related("moderator"),
            )
        return super().change_view(request, object_id, form_url, context)

    def replay_view(self, request: HttpRequest, object_id: str, version: int) -> HttpResponse:
        """The board at ``version``, every card shown (face-down ones marked), with steps."""
        game = self._viewable(request, object_id)
        if not 1 <= version <= game.version:
            raise Http404("no such version")
        stream = streams.at_version(game.id, version)
        sight = sight_of(request, game)
        event = Event.objects.select_related("actor").get(game_id=game.id, seq=version)

        def step(to: int) -> str:
            return reverse("admin:games_game_replay", args=[game.id, to])

        context = {
            **self.admin_site.each_context(request),
            "opts": Game._meta,
            "original": game,
            "title": f"Replay of {game} at version {version}",
            "game": game,
            "version": version,
            "board": replay.board(stream.state, sight),
            "event": event,
            "event_data": to_json(presenters.event_data(event, sight)),
            "effects": to_json(stream.effects_of(version)),
            "secret": visibility.is_secret(GameSummary.from_row(game)) and not sight.reveal,
            "first_url": step(1),
            "previous_url": step(version - 1) if version > 1 else None,
            "next_url": step(version + 1) if version < game.version else None,
            "last_url": step(game.version),
            "change_url": change_url(Game, game.id),
        }
        return TemplateResponse(request, "admin/games/game/replay.html", context)

    def reveal_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Show this moderator the hidden cards of a game of an open daily challenge, and
        record that they looked."""
        game = self._viewable(request, object_id)
        if visibility.is_secret(GameSummary.from_row(game)):
            kept = set(request.session.get(REVEALED_SESSION_KEY, []))
            request.session[REVEALED_SESSION_KEY] = sorted({*kept, str(game.id)})
            note = "Revealed the hidden cards and seed while the daily challenge was open."
            if game.contest is not None:
                note = "Revealed the hidden cards and seed while the race or arena was running."
            self.log_change(request, game, note)
            logger.warning(
                "%s revealed the secret cards of running contest game %s", request.user, game.id
            )
            self.message_user(request, note + " This is recorded.", messages.WARNING)
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = change_url(Game, game.id)
        return HttpResponseRedirect(back)

    def _viewable(self, request: HttpRequest, object_id: str) -> Game:
        game = self.get_object(request, object_id)
        if not isinstance(game, Game):
            raise Http404("no such game")
        if not self.has_view_permission(request, game):
            raise PermissionDenied
        return game

    def void_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self.object_moderation_view(
            request, object_id, title="Void a result", verb="Void", apply=voider(request, True)
        )

    def restore_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self.object_moderation_view(
            request,
            object_id,
            title="Restore a result",
            verb="Restore",
            apply=voider(request, False),
        )

    @admin.action(description="Void the selected results", permissions=["moderate"])
    def void_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return ask_void(self, request, queryset, void=True, action="void_results")

    @admin.action(description="Restore the selected results", permissions=["moderate"])
    def restore_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return ask_void(self, request, queryset, void=False, action="restore_results")
