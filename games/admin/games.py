"""The moderators' Django admin: players, games, events, daily challenges, standings and the
moderation log. Staff only (Django's admin sends everyone else to its login page).

Every row here is written by services or is a fact that never changes, so nothing can be
added, changed or deleted through these pages, by superusers neither: events and the
moderation log are append-only (PostgreSQL refuses anyway), games and standings are
projections of events, players' bans a projection of the log. What moderators do goes
through ``games.moderation``: ban / unban a player, void / restore a result, each with a
reason asked on a small form page, with the ``games.moderate`` permission.

Secrets of an open daily challenge (its seed, and so its deal and every hidden card of its
games) stay masked here as well while the day runs: a moderator who also races must not
learn the deal by opening a page. When an investigation needs them, an explicit "reveal"
button (a POST) shows them to that moderator and records who looked in the admin's history
(and the server log). Once the day is over everything is shown, as it is to players.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from games import engine
from games.admin import replay
from games.dailies import challenges as dailies
from games.dailies import suspicion
from games.dailies.models import DailyChallenge, Standing
from games.errors import DomainError, ModerationRefused
from games.store import streams
from games.store.models import Event, Game, ModerationAct, Player, PlayerAccount
from games.writes import moderation

logger = logging.getLogger(__name__)

#: Session key of the games whose hidden cards this moderator revealed while secret.
REVEALED_SESSION_KEY = "games_admin_revealed"

#: How many of a player's games and standings their page lists (the rest: the changelists).
RECENT = 20

admin.site.site_header = "Scorpion administration"
admin.site.site_title = "Scorpion admin"
admin.site.index_title = "Moderation"


# --- Shared pieces -------------------------------------------------------------------------


def as_uuid(text: str) -> uuid.UUID | None:
    """``text`` as a UUID, or ``None``."""
    try:
        return uuid.UUID(text.strip())
    except ValueError:
        return None


def change_url(model: type[Any], pk: Any) -> str:
    return reverse(f"admin:games_{model._meta.model_name}_change", args=[pk])


def game_link(game_id: uuid.UUID | None) -> SafeString | str:
    if game_id is None:
        return "-"
    return format_html('<a href="{}">{}</a>', change_url(Game, game_id), str(game_id)[:8])


def player_link(user: Any) -> SafeString | str:
    if user is None:
        return "-"
    return format_html('<a href="{}">{}</a>', change_url(PlayerAccount, user.pk), user)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def as_json(value: Any) -> SafeString:
    return format_html("<code>{}</code>", _json(value))


def elapsed(ms: int) -> str:
    """``1:02:03.4`` from milliseconds."""
    minutes, seconds = divmod(ms / 1000, 60)
    hours, minutes = divmod(int(minutes), 60)
    return f"{hours}:{minutes:02d}:{seconds:04.1f}"


def label(target: Any) -> str:
    """How the moderation pages name a player, a game or a standing."""
    if isinstance(target, Game):
        return f"{target.owner}'s {target.rules} game {str(target.id)[:8]}"
    if isinstance(target, Standing):
        return f"{target.player}'s result in the daily challenge of {target.challenge_id}"
    return str(target)


def flag_list(standing: Standing | None) -> SafeString | str:
    """The review flags of ``standing`` with their reasons."""
    if standing is None or not standing.suspicious:
        return "-"
    return format_html_join(
        "", '<span class="suspicious">⚑ {}</span><br>', ((r,) for r in suspicion.reasons(standing))
    )


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Staff may look; nobody adds, changes or deletes rows here (services write them)."""

    actions: list[Any] = []
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # viewing only: Django renders the change page read-only

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        """Whether the user may ban, unban, void and restore (``games.moderate``)."""
        return bool(request.user.is_active and request.user.has_perm("games.moderate"))


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=moderation.MAX_REASON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        help_text="Goes on the moderation log, with your name and the time.",
    )


class ModerationAdmin(ReadOnlyAdmin):
    """Asks a reason on a small form page, then runs a moderation service per target."""

    def ask_reason(
        self,
        request: HttpRequest,
        *,
        title: str,
        verb: str,
        targets: Iterable[Any],
        apply: Callable[[Any, str], str],
        selected: Iterable[Any] = (),
        action: str = "",
        cancel_url: str,
    ) -> HttpResponse | None:
        """The reason form, or ``None`` once the form came back with a reason and ``apply``
        ran on every target (each success or refusal becomes a message)."""
        targets = list(targets)
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            for target in targets:
                try:
                    done = apply(target, form.cleaned_data["reason"])
                except ModerationRefused as refusal:
                    self.message_user(request, f"{label(target)}: {refusal}", messages.ERROR)
                except DomainError as error:
                    self.message_user(request, f"{label(target)}: {error.code}", messages.ERROR)
                else:
                    self.message_user(request, done, messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": title,
            "verb": verb,
            "targets": [label(target) for target in targets],
            "form": form,
            "selected": [str(pk) for pk in selected],
            "action": action,
            "cancel_url": cancel_url,
        }
        return TemplateResponse(request, "admin/games/moderation_form.html", context)

    def object_moderation_view(
        self,
        request: HttpRequest,
        object_id: str,
        *,
        title: str,
        verb: str,
        apply: Callable[[Any, str], str],
    ) -> HttpResponse:
        """One object's reason form (``…/<id>/ban/``, ``…/<id>/void/``)."""
        if not self.has_moderate_permission(request):
            raise PermissionDenied
        target = self.get_object(request, object_id)
        if target is None:
            raise Http404
        back = change_url(self.model, target.pk)
        response = self.ask_reason(
            request, title=title, verb=verb, targets=[target], apply=apply, cancel_url=back
        )
        return response if response is not None else HttpResponseRedirect(back)


# --- Players --------------------------------------------------------------------------------


class BannedFilter(admin.SimpleListFilter):
    title = "banned"
    parameter_name = "banned"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(is_banned=True)
        if self.value() == "no":
            return queryset.filter(is_banned=False)
        return queryset


def _banned(user_ref: str) -> Exists:
    return Exists(Player.objects.filter(user_id=OuterRef(user_ref), banned=True))


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
        return super().get_queryset(request).annotate(is_banned=_banned("pk"))

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
            moderation.player_ban(player=user, moderator=request.user, reason=reason)
            return f"Banned {user}."

        return apply

    def _unban(self, request: HttpRequest) -> Callable[[Any, str], str]:
        def apply(user: Any, reason: str) -> str:
            moderation.player_unban(player=user, moderator=request.user, reason=reason)
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


# --- Games ----------------------------------------------------------------------------------


class RulesFilter(admin.SimpleListFilter):
    title = "rules"
    parameter_name = "rules"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, rules.title) for name, rules in engine.RULESETS.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(rules=self.value()) if self.value() else queryset


class OwnerBannedFilter(admin.SimpleListFilter):
    title = "owner banned"
    parameter_name = "owner_banned"
    owner_field = "owner_id"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(_banned(self.owner_field))
        if self.value() == "no":
            return queryset.exclude(_banned(self.owner_field))
        return queryset


class PlayerBannedFilter(OwnerBannedFilter):
    title = "player banned"
    parameter_name = "player_banned"
    owner_field = "player_id"


class SuspiciousFilter(admin.SimpleListFilter):
    """The review flags of daily results (``games.suspicion``)."""

    title = "suspicious speed"
    parameter_name = "suspicious"
    prefix = ""

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("any", "Any flag"),
            ("fast", "Won too fast"),
            ("regular", "Too regular"),
            ("none", "Not flagged"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        fast, regular = f"{self.prefix}flag_fast", f"{self.prefix}flag_regular"
        match self.value():
            case "any":
                return queryset.filter(**{fast: True}) | queryset.filter(**{regular: True})
            case "fast":
                return queryset.filter(**{fast: True})
            case "regular":
                return queryset.filter(**{regular: True})
            case "none":
                return queryset.exclude(**{fast: True}).exclude(**{regular: True})
        return queryset


class GameSuspiciousFilter(SuspiciousFilter):
    prefix = "standing__"


def revealed(request: HttpRequest, game: Game) -> bool:
    """Whether this moderator may see ``game``'s hidden cards and seed now: always, unless
    they are the secret of an open daily challenge that they have not explicitly revealed."""
    if not replay.is_secret(game):
        return True
    return str(game.id) in request.session.get(REVEALED_SESSION_KEY, [])


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
        if replay.is_secret(game):
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
            shown = revealed(request, game)
            context.update(
                events=[
                    {**event, "data": _json(event["data"]), "effects": _json(event["effects"])}
                    for event in replay.event_log(game, reveal=shown)
                ],
                event_limit=replay.EVENT_LOG_LIMIT,
                secret=replay.is_secret(game) and not shown,
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
        shown = revealed(request, game)
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
            "board": replay.board(stream.state, reveal=shown),
            "event": event,
            "event_data": _json(_shown_data(event, reveal=shown)),
            "effects": _json(stream.effects_of(version)),
            "secret": replay.is_secret(game) and not shown,
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
        if replay.is_secret(game):
            kept = set(request.session.get(REVEALED_SESSION_KEY, []))
            request.session[REVEALED_SESSION_KEY] = sorted({*kept, str(game.id)})
            note = "Revealed the hidden cards and seed while the daily challenge was open."
            self.log_change(request, game, note)
            logger.warning(
                "%s revealed the secret cards of open daily game %s", request.user, game.id
            )
            self.message_user(request, note + " This is recorded.", messages.WARNING)
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = change_url(Game, game.id)
        return HttpResponseRedirect(back)

    def _viewable(self, request: HttpRequest, object_id: str) -> Game:
        game = self.get_object(request, object_id)
        if game is None:
            raise Http404("no such game")
        if not self.has_view_permission(request, game):
            raise PermissionDenied
        return game

    def void_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self.object_moderation_view(
            request, object_id, title="Void a result", verb="Void", apply=_voider(request, True)
        )

    def restore_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self.object_moderation_view(
            request,
            object_id,
            title="Restore a result",
            verb="Restore",
            apply=_voider(request, False),
        )

    @admin.action(description="Void the selected results", permissions=["moderate"])
    def void_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return _ask_void(self, request, queryset, void=True, action="void_results")

    @admin.action(description="Restore the selected results", permissions=["moderate"])
    def restore_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return _ask_void(self, request, queryset, void=False, action="restore_results")


def _game_of(target: Game | Standing) -> uuid.UUID:
    return target.id if isinstance(target, Game) else target.game_id


def _voider(request: HttpRequest, void: bool) -> Callable[[Any, str], str]:
    """Void (or restore) the result of a game or standing, through the services."""

    def apply(target: Game | Standing, reason: str) -> str:
        service = moderation.result_void if void else moderation.result_restore
        done = service(game_id=_game_of(target), moderator=request.user, reason=reason)
        verb = "Voided" if void else "Restored"
        return f"{verb} {label(target)} (event #{done.event.seq} of its stream)."

    return apply


def _ask_void(
    model_admin: ModerationAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    *,
    void: bool,
    action: str,
) -> HttpResponse | None:
    return model_admin.ask_reason(
        request,
        title="Void results" if void else "Restore results",
        verb="Void" if void else "Restore",
        targets=queryset,
        apply=_voider(request, void),
        selected=queryset.values_list("pk", flat=True),
        action=action,
        cancel_url=request.get_full_path(),
    )


def _shown_data(event: Event, *, reveal: bool) -> dict[str, Any]:
    """An event's data as the admin shows it: a ``created`` event's seed and deal only with
    ``reveal``."""
    if event.type != streams.CREATED or reveal:
        return dict(event.data)
    return {**event.data, "seed": None, "deal": None}


# --- Events ---------------------------------------------------------------------------------


class EventTypeFilter(admin.SimpleListFilter):
    title = "type"
    parameter_name = "type"
    types = (
        "created",
        "moved",
        "dealt",
        "undone",
        "restarted",
        "resigned",
        streams.VOIDED,
        streams.RESTORED,
    )

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
        game = Game.objects.filter(id=event.game_id).first()
        reveal = game is None or not replay.is_secret(game)
        return as_json(_shown_data(event, reveal=reveal))

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Event], search_term: str
    ) -> tuple[QuerySet[Event], bool]:
        if not search_term.strip():
            return queryset, False
        key = as_uuid(search_term)
        return (queryset.filter(game_id=key) if key else queryset.none()), False


# --- Daily challenges and standings ---------------------------------------------------------


@admin.register(DailyChallenge)
class DailyChallengeAdmin(ReadOnlyAdmin):
    list_display = ("date", "rules", "status", "participants", "seed_shown", "standings_link")
    fields = ("date", "rules", "status", "participants", "seed_shown", "standings_link")
    readonly_fields = fields
    date_hierarchy = "date"
    change_form_template = "admin/games/dailychallenge/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[DailyChallenge]:
        return super().get_queryset(request).annotate(entries=Count("standings"))

    @admin.display(description="status")
    def status(self, challenge: DailyChallenge) -> str:
        return "open" if dailies.is_open(challenge.date) else "closed"

    @admin.display(description="participants", ordering="entries")
    def participants(self, challenge: DailyChallenge) -> int:
        return int(getattr(challenge, "entries", 0))

    @admin.display(description="seed")
    def seed_shown(self, challenge: DailyChallenge) -> str:
        if dailies.is_open(challenge.date):
            return "hidden until the day ends"
        return str(challenge.seed)

    @admin.display(description="standings")
    def standings_link(self, challenge: DailyChallenge) -> SafeString:
        url = (
            reverse("admin:games_standing_changelist") + f"?challenge__date__exact={challenge.date}"
        )
        return format_html('<a href="{}">standings</a>', url)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/reveal-seed/",
                view(require_POST(self.reveal_seed_view)),
                name="games_dailychallenge_reveal_seed",
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
        challenge = self.get_object(request, object_id)
        context = {
            **(extra_context or {}),
            "seed_secret": challenge is not None and dailies.is_open(challenge.date),
        }
        return super().change_view(request, object_id, form_url, context)

    def reveal_seed_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Show an open challenge's seed to this moderator, once, and record that they
        looked (the admin's history and the server log)."""
        challenge = get_object_or_404(DailyChallenge, pk=object_id)
        if not self.has_view_permission(request, challenge):
            raise PermissionDenied
        if dailies.is_open(challenge.date):
            self.log_change(request, challenge, "Revealed the seed while the challenge was open.")
            logger.warning("%s revealed the seed of the open challenge %s", request.user, challenge)
        self.message_user(
            request,
            f"The seed of {challenge} is {challenge.seed}. This reveal is recorded.",
            messages.WARNING,
        )
        return HttpResponseRedirect(change_url(DailyChallenge, challenge.pk))


@admin.register(Standing)
class StandingAdmin(ModerationAdmin):
    list_display = (
        "challenge",
        "player",
        "status",
        "moves",
        "score",
        "sequences",
        "time",
        "voided",
        "review",
        "game_short",
    )
    list_select_related = ("player",)
    list_filter = (
        "challenge",
        "status",
        "voided",
        SuspiciousFilter,
        PlayerBannedFilter,
    )
    search_fields = ("player__username",)
    search_help_text = "A game id, or (part of) the player's username."
    ordering = ("-challenge", "elapsed_ms")
    actions = ["void_results", "restore_results"]
    fields = (
        "challenge",
        "player",
        "game_short",
        "status",
        "moves",
        "score",
        "sequences",
        "revealed",
        "time",
        "version",
        "voided",
        "review",
        "rhythm_cv",
        "joined_at",
    )
    readonly_fields = fields

    @admin.display(description="time", ordering="elapsed_ms")
    def time(self, standing: Standing) -> str:
        return elapsed(standing.elapsed_ms)

    @admin.display(description="review flags")
    def review(self, standing: Standing) -> SafeString | str:
        return flag_list(standing)

    @admin.display(description="game")
    def game_short(self, standing: Standing) -> SafeString | str:
        return game_link(standing.game_id)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Standing], search_term: str
    ) -> tuple[QuerySet[Standing], bool]:
        key = as_uuid(search_term)
        if key is not None:
            return queryset.filter(game_id=key), False
        return super().get_search_results(request, queryset, search_term)

    @admin.action(description="Void the selected results", permissions=["moderate"])
    def void_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return _ask_void(self, request, queryset, void=True, action="void_results")

    @admin.action(description="Restore the selected results", permissions=["moderate"])
    def restore_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return _ask_void(self, request, queryset, void=False, action="restore_results")


# --- The moderation log ---------------------------------------------------------------------


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
