"""A deal's rating before play: the fit from certification features starts as the rating
from difficulty, learns the rated history (calibrated on games it never saw), gives the same
bits twice, and a rated pool game records its deal's predicted rating, so the rebuild, which
refits, gives back every rating exactly."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command

from games import pools
from games.pools.models import CertifiedDeal
from games.ratings import fit, parameters, predict
from games.ratings.models import DealRating, RatingFit
from games.store import notation
from games.store.models import Event
from games.store.notation import stored
from games.writes import services
from tests.games.test_ratings import snapshot


def synthetic(count: int, seed: int) -> list[tuple[float, float, tuple[float, ...]]]:
    """Games whose deals' true ratings follow known weights, their outcomes drawn by the
    rating system's own chance of a win."""
    truth = (900.0, 1500.0, 0.0, 300.0, -200.0)
    draw = random.Random(seed)
    games = []
    for _ in range(count):
        nodes = int(10 ** draw.uniform(1, 6))
        line = [{"type": "move"}] * draw.randrange(60, 220)
        line[draw.randrange(len(line))] = {"type": "deal"}
        values = fit.features(difficulty=draw.random(), nodes=nodes, solution=line)
        player = draw.gauss(1500, 300)
        deal = sum(w * x for w, x in zip(truth, values, strict=True))
        games.append((player, 1.0 if draw.random() < fit.win_chance(player, deal) else 0.0, values))
    return games


def test_the_fit_starts_as_the_difficulty_and_learns_calibrated_ratings() -> None:
    values = fit.features(difficulty=0.4, nodes=5000, solution=[{"type": "move"}] * 80)
    assert fit.fit([]) == fit.UNFITTED
    assert fit.UNFITTED.rating(values) == pytest.approx(parameters.deal_rating(0.4))

    learnt = fit.fit(synthetic(2000, seed=1))
    assert learnt == fit.fit(synthetic(2000, seed=1))  # the same games, the same bits
    assert learnt.games == 2000 and learnt.weights != fit.PRIOR
    held_out = synthetic(2000, seed=2)
    chances = [fit.win_chance(p, learnt.rating(v)) for p, _, v in held_out]
    groups = fit.deciles(chances, [score for _, score, _ in held_out])
    assert len(groups) == 10 and sum(n for *_, n in groups) == 2000
    for predicted, actual, n in groups:
        assert abs(predicted - actual) < 0.1, (predicted, actual, n)
    # The prior's chances on the same games are further off than the fit's.
    prior = [fit.win_chance(p, fit.UNFITTED.rating(v)) for p, _, v in held_out]

    def error(found: list[float]) -> float:
        return sum((c - s) ** 2 for c, (_, s, _) in zip(found, held_out, strict=True))

    assert error(chances) < error(prior)


@pytest.mark.django_db
def test_a_rated_game_records_its_deals_predicted_rating_and_the_rebuild_is_exact(
    alice, bob, settings
) -> None:
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000
    settings.POOL_RULES = ["classic"]
    made = {deal.seed: deal for deal in pools.fill("classic", 5)}
    predict.refresh("classic")  # no history: the prior's ratings
    for deal in CertifiedDeal.objects.all():
        assert deal.rating == pytest.approx(parameters.deal_rating(deal.difficulty))
    for player, win in ((alice, True), (bob, False)):
        game = services.game_create(owner=player, rules="classic", rated=True)
        created = Event.objects.get(game_id=game.game_id, seq=1).data
        dealt = CertifiedDeal.objects.get(seed=created["seed"])
        assert created["deal_rating"] == dealt.rating
        assert DealRating.objects.get(seed=dealt.seed).rating == dealt.rating
        commands = made[dealt.seed].solution if win else [{"type": "resign"}]
        for command in commands:
            services.game_command(game_id=game.game_id, actor=player, command=command)
    predict.refresh("classic")  # two games: a refit, and the deals left predicted anew
    fitted = RatingFit.objects.get(rules="classic")
    assert fitted.games == 2 and tuple(fitted.weights) != fit.PRIOR
    learnt = predict.current("classic")
    for deal in CertifiedDeal.objects.filter(draws=0):
        assert deal.rating == learnt.rating(predict.features_of(deal))
    third = services.game_create(owner=alice, rules="classic", rated=True)
    created = Event.objects.get(game_id=third.game_id, seq=1).data
    assert created["deal_rating"] == CertifiedDeal.objects.get(seed=created["seed"]).rating
    services.game_command(game_id=third.game_id, actor=alice, command={"type": "resign"})
    # The notation keeps the deal's rating, event for event.
    rows = list(Event.objects.filter(game_id=third.game_id).order_by("seq").select_related("actor"))
    text = notation.write(stored.transcript(rows))
    assert f'[DealRating "{created["deal_rating"]!r}"]' in text
    (read,) = notation.read(io.StringIO(text))
    assert [(e.event.TYPE, e.event.to_json()) for e in read.entries] == [
        (row.type, row.data) for row in rows
    ]

    before = snapshot()
    RatingFit.objects.all().delete()
    call_command("rebuild_projections")
    assert snapshot() == before  # the ratings served, to the bit
    assert RatingFit.objects.get(rules="classic").games == 3  # refit on the history
