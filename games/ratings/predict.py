"""Each ruleset's fit of a deal's rating from its certification, kept in the database, and
the predicted rating of every pool deal not dealt yet (``games.ratings.fit`` is the model).

:func:`refit` fits a ruleset on its rated history (the counted rated games of pool deals,
newest :data:`HISTORY` of them) and predicts again the deals still to deal; the pools' job
runs :func:`refresh` after each fill (a refit only when the history grew), and
``rebuild_projections`` refits every ruleset after replaying the ratings. A rated game's
``created`` event records the rating its deal was given, so a refit changes no rating
already served: the rebuild stays exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db.models import QuerySet

from games import clock
from games.pools.models import CertifiedDeal
from games.ratings import fit
from games.ratings.models import RatedGame, RatingFit

#: A fit reads at most this many of a ruleset's rated games, the newest.
HISTORY = 20_000


def features_of(deal: CertifiedDeal) -> tuple[float, ...]:
    """The model's inputs for a certified deal."""
    return fit.features(difficulty=deal.difficulty, nodes=deal.nodes, solution=deal.solution)


def history(rules: str) -> Iterator[tuple[float, float, tuple[float, ...]]]:
    """The rated games of pool deals of ``rules`` that count (not voided), newest
    :data:`HISTORY`, oldest first: each the player's rating before it, its score and its
    deal's features."""
    games = list(
        RatedGame.objects.filter(rules=rules, counted=True)
        .order_by("-at", "-game_id")
        .values_list("seed", "player_before", "score")[:HISTORY]
    )
    games.reverse()
    deals = {
        deal.seed: deal
        for deal in CertifiedDeal.objects.filter(rules=rules, seed__in={seed for seed, *_ in games})
    }
    for seed, before, score in games:
        deal = deals.get(seed)
        if deal is not None:  # a daily's deal is not the pool's
            yield before, score, features_of(deal)


def current(rules: str) -> fit.Fit:
    """The stored fit of ``rules`` (:data:`fit.UNFITTED` before the first)."""
    row = RatingFit.objects.filter(rules=rules).first()
    if row is None:
        return fit.UNFITTED
    return fit.Fit(weights=tuple(row.weights), games=row.games, log_likelihood=row.log_likelihood)


def refit(
    rules: str, games: Iterable[tuple[float, float, tuple[float, ...]]] | None = None
) -> fit.Fit:
    """Fit ``rules`` on its rated history (``games``, if read already), store the fit, and
    predict again the ratings of its deals nobody was dealt; the fit."""
    found = fit.fit(history(rules) if games is None else games)
    RatingFit.objects.update_or_create(
        rules=rules,
        defaults={
            "weights": list(found.weights),
            "games": found.games,
            "log_likelihood": found.log_likelihood,
            "fitted_at": clock.now(),
        },
    )
    _predict(CertifiedDeal.objects.filter(rules=rules, draws=0), found)
    return found


def refresh(rules: str) -> None:
    """Refit ``rules`` if rated games were scored since its fit; else only predict the
    deals certified since (their rating still ``None``)."""
    fitted = current(rules)
    games = list(history(rules))
    if len(games) != fitted.games:
        refit(rules, games)
    else:
        _predict(CertifiedDeal.objects.filter(rules=rules, rating__isnull=True), fitted)


def predicted(deal: CertifiedDeal) -> float:
    """The rating of ``deal`` under its ruleset's fit: the one it was given, else now."""
    if deal.rating is not None:
        return deal.rating
    return current(deal.rules).rating(features_of(deal))


def _predict(deals: QuerySet[CertifiedDeal], found: fit.Fit) -> None:
    changed = []
    for deal in deals:
        deal.rating = found.rating(features_of(deal))
        changed.append(deal)
    CertifiedDeal.objects.bulk_update(changed, ["rating"], batch_size=500)
