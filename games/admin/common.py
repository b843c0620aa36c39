"""What every page of the moderators' admin shares: read-only pages, the reason form that
moderation acts ask for, links, filters, and what a moderator may see of a game.

Every row here is written by services or is a fact that never changes, so nothing can be
added, changed or deleted through these pages, by superusers neither: events and the
moderation log are append-only (PostgreSQL refuses anyway), games and standings are
projections of events, players' bans a projection of the log. What moderators do goes
through ``games.writes.moderation``: ban / unban a player, void / restore a result, each
with a reason asked on a small form page, with the ``games.moderate`` permission.

What a moderator sees of a game is ``games.reads.visibility``'s answer for them
(:func:`sight_of`): every card, except the secret of an open daily challenge, which stays
masked until they reveal it with an explicit, recorded POST (``games.admin.games``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.dailies import suspicion
from games.dailies.models import ContestResult, Standing
from games.errors import DomainError, ModerationRefused
from games.reads import visibility
from games.reads.visibility import Sight, Viewer
from games.store.models import Game, Player, PlayerAccount
from games.store.summary import GameSummary
from games.writes import moderation

#: Session key of the games whose hidden cards this moderator revealed while secret.
REVEALED_SESSION_KEY = "games_admin_revealed"

#: How many of a player's games and standings their page lists (the rest: the changelists).
RECENT = 20


def viewer_of(request: HttpRequest) -> Viewer:
    """The moderator behind ``request``, with the games whose secret they revealed."""
    revealed = {uuid.UUID(key) for key in request.session.get(REVEALED_SESSION_KEY, [])}
    return Viewer.of(request.user, revealed=revealed)


def moderator_of(request: HttpRequest) -> User:
    """The staff account behind an admin request (the admin lets only those in)."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied
    return user


def sight_of(request: HttpRequest, game: Game) -> Sight:
    """What the moderator behind ``request`` may see of ``game`` (``visibility.sight``)."""
    return visibility.sight(viewer_of(request), GameSummary.from_row(game))


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


def to_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def as_json(value: Any) -> SafeString:
    return format_html("<code>{}</code>", to_json(value))


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
    if isinstance(target, ContestResult):
        return f"{target.player}'s deal {target.round} of {target.contest}"
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


def banned(user_ref: str) -> Exists:
    return Exists(Player.objects.filter(user_id=OuterRef(user_ref), banned=True))


class OwnerBannedFilter(admin.SimpleListFilter):
    title = "owner banned"
    parameter_name = "owner_banned"
    owner_field = "owner_id"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(banned(self.owner_field))
        if self.value() == "no":
            return queryset.exclude(banned(self.owner_field))
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


def game_of(target: Game | Standing | ContestResult) -> uuid.UUID:
    return target.id if isinstance(target, Game) else target.game_id


def voider(request: HttpRequest, void: bool) -> Callable[[Any, str], str]:
    """Void (or restore) the result of a game or standing, through the services."""

    def apply(target: Game | Standing | ContestResult, reason: str) -> str:
        service = moderation.result_void if void else moderation.result_restore
        done = service(game_id=game_of(target), moderator=moderator_of(request), reason=reason)
        verb = "Voided" if void else "Restored"
        return f"{verb} {label(target)} (event #{done.event.seq} of its stream)."

    return apply


def ask_void(
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
        apply=voider(request, void),
        selected=queryset.values_list("pk", flat=True),
        action=action,
        cancel_url=request.get_full_path(),
    )


class GameIdSearch(admin.ModelAdmin):  # type: ignore[type-arg]
    """A page of one row per game (``game_id``): a search for a game id finds its row."""

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        key = as_uuid(search_term)
        if key is not None:
            return queryset.filter(game_id=key), False
        return super().get_search_results(request, queryset, search_term)


class ResultAdmin(GameIdSearch, ModerationAdmin):
    """A page of one row per game's result (a daily's standings, a race's or arena's
    results): its time, its game, a search by game id, and voiding or restoring the games
    selected."""

    actions = ["void_results", "restore_results"]

    @admin.display(description="time", ordering="elapsed_ms")
    def time(self, result: Any) -> str:
        return elapsed(result.elapsed_ms)

    @admin.display(description="game")
    def game_short(self, result: Any) -> SafeString | str:
        return game_link(result.game_id)

    @admin.action(description="Void the selected results", permissions=["moderate"])
    def void_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return ask_void(self, request, queryset, void=True, action="void_results")

    @admin.action(description="Restore the selected results", permissions=["moderate"])
    def restore_results(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return ask_void(self, request, queryset, void=False, action="restore_results")
