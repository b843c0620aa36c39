"""The Flagged games page: the evidence the background job measured of each finished rated
or contest game (``games.ratings.evidence``), flagged ones first, with a link to the game's
page (its events, its replay in the admin and the void) and to its public replay. Evidence
for a moderator, not a verdict: their void is what takes a rating change off."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.admin.common import GameIdSearch, ReadOnlyAdmin, game_link
from games.ratings import evidence
from games.ratings.models import GameEvidence

#: What each reason means, in the moderator's words.
REASONS = {
    "match": (
        f"chose the solver's move where it was not the obvious one at "
        f"{evidence.MATCH_FLAG:.0%} or more of such positions"
    ),
    "pace": (
        f"won at under {evidence.FAST_SECONDS:g} s a move, steadily "
        f"(variation under {evidence.STEADY_CV:g})"
    ),
    "hard_win": (
        f"won a deal of difficulty {evidence.HARD_DIFFICULTY:g}+ matching the solver "
        f"at {evidence.HARD_MATCH:.0%}+"
    ),
    "hints": "won with hints",
}


class ReasonFilter(admin.SimpleListFilter):
    title = "flag"
    parameter_name = "reason"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("any", "Any flag"), *((name, name) for name in REASONS), ("none", "Not flagged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        match self.value():
            case "any":
                return queryset.filter(flagged=True)
            case "none":
                return queryset.filter(flagged=False)
            case None:
                return queryset
            case reason:
                return queryset.filter(reasons__contains=[reason])


@admin.register(GameEvidence)
class GameEvidenceAdmin(GameIdSearch, ReadOnlyAdmin):
    list_display = (
        "game",
        "player",
        "why",
        "replay",
        "won",
        "match_shown",
        "pace",
        "difficulty",
        "hints",
        "kind",
        "rules",
    )
    list_select_related = ("player",)
    list_filter = (ReasonFilter, "kind", "won", "rules")
    search_fields = ("player__username",)
    search_help_text = "A game id, or (part of) the player's username."
    ordering = ("-flagged", "-assessed_at")
    fields = (
        "game",
        "player",
        "kind",
        "rules",
        "won",
        "match_shown",
        "positions",
        "matched",
        "pace",
        "intervals",
        "difficulty",
        "hints",
        "why",
        "replay",
        "assessed_at",
    )
    readonly_fields = fields

    @admin.display(description="game")
    def game(self, row: GameEvidence) -> SafeString | str:
        return game_link(row.game_id)

    @admin.display(description="solver's non-obvious moves played")
    def match_shown(self, row: GameEvidence) -> str:
        if row.match is None:
            return "-"
        return f"{row.match:.0%} ({row.matched}/{row.positions})"

    @admin.display(description="time a move")
    def pace(self, row: GameEvidence) -> str:
        if row.median_seconds is None:
            return "-"
        variation = "-" if row.variation is None else f"{row.variation:.2f}"
        return f"median {row.median_seconds:.1f} s, variation {variation}"

    @admin.display(description="flags")
    def why(self, row: GameEvidence) -> SafeString | str:
        if not row.reasons:
            return "-"
        return format_html(
            '<ul class="evidence-reasons">{}</ul>',
            SafeString(
                "".join(
                    str(format_html('<li data-reason="{}">{}</li>', name, REASONS.get(name, name)))
                    for name in row.reasons
                )
            ),
        )

    @admin.display(description="replay")
    def replay(self, row: GameEvidence) -> SafeString:
        return format_html(
            '<a class="evidence-replay" href="{}">public replay</a> · '
            '<a class="evidence-admin-replay" href="{}">board in the admin</a>',
            f"/games/{row.game_id}",
            reverse("admin:games_game_replay", args=[row.game_id, 1]),
        )
