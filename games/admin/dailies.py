"""The Daily challenges and Standings pages: days, their seed once over (or on a recorded
reveal), and each player's result with its review flags; moderators void and restore."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from games.admin.common import (
    PlayerBannedFilter,
    ReadOnlyAdmin,
    ResultAdmin,
    SuspiciousFilter,
    change_url,
    flag_list,
)
from games.dailies.models import DailyChallenge, Standing
from games.reads import visibility

logger = logging.getLogger(__name__)


@admin.register(DailyChallenge)
class DailyChallengeAdmin(ReadOnlyAdmin):
    list_display = ("date", "rules", "status", "participants", "seed_shown", "standings_link")
    fields = ("date", "rules", "status", "participants", "seed_shown", "standings_link")
    readonly_fields = fields
    date_hierarchy = "date"
    change_form_template = "admin/games/dailychallenge/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[DailyChallenge]:
        days: QuerySet[DailyChallenge] = super().get_queryset(request)
        return days.annotate(entries=Count("standings"))

    @admin.display(description="status")
    def status(self, challenge: DailyChallenge) -> str:
        return "open" if visibility.day_is_secret(challenge.date) else "closed"

    @admin.display(description="participants", ordering="entries")
    def participants(self, challenge: DailyChallenge) -> int:
        return int(getattr(challenge, "entries", 0))

    @admin.display(description="seed")
    def seed_shown(self, challenge: DailyChallenge) -> str:
        seed = visibility.challenge_seed(challenge)
        return "hidden until the day ends" if seed is None else str(seed)

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
            "seed_secret": challenge is not None and visibility.day_is_secret(challenge.date),
        }
        return super().change_view(request, object_id, form_url, context)

    def reveal_seed_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Show an open challenge's seed to this moderator, once, and record that they
        looked (the admin's history and the server log)."""
        challenge = get_object_or_404(DailyChallenge, pk=object_id)
        if not self.has_view_permission(request, challenge):
            raise PermissionDenied
        if visibility.day_is_secret(challenge.date):
            self.log_change(request, challenge, "Revealed the seed while the challenge was open.")
            logger.warning("%s revealed the seed of the open challenge %s", request.user, challenge)
        self.message_user(
            request,
            f"The seed of {challenge} is {challenge.seed}. This reveal is recorded.",
            messages.WARNING,
        )
        return HttpResponseRedirect(change_url(DailyChallenge, challenge.pk))


@admin.register(Standing)
class StandingAdmin(ResultAdmin):
    list_display = (
        "challenge",
        "player",
        "status",
        "moves",
        "score",
        "sequences",
        "hints",
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
    fields = (
        "challenge",
        "player",
        "game_short",
        "status",
        "moves",
        "score",
        "sequences",
        "revealed",
        "hints",
        "time",
        "version",
        "voided",
        "review",
        "rhythm_cv",
        "joined_at",
    )
    readonly_fields = fields

    @admin.display(description="review flags")
    def review(self, standing: Standing) -> SafeString | str:
        return flag_list(standing)
