"""Suspicion flags: the end of a rated game queues the job in its own transaction; a real
worker runs it; a win at a machine's steady pace is flagged with its evidence, an honest
player's game is not, a casual game is not assessed at all; and each flag's threshold
(docs/ratings.md#suspicion-flags)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection
from procrastinate.contrib.django import app

from games import clock, engine, pools
from games.engine import heuristic
from games.pools.models import CertifiedDeal
from games.ratings import evidence
from games.ratings.models import GameEvidence
from games.store import streams
from games.writes import services

START = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def _pools_and_an_empty_queue(settings):
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000
    settings.POOL_RULES = ["classic"]
    settings.POOL_TARGET = 0  # the worker's periodic fill has nothing to do
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE procrastinate_jobs CASCADE")
    yield
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE procrastinate_jobs CASCADE")


def queued() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT args FROM procrastinate_jobs WHERE task_name = 'assess_game' ORDER BY id"
        )
        rows = [row[0] for row in cursor.fetchall()]
    return [(json.loads(row) if isinstance(row, str) else row)["game_id"] for row in rows]


def play(player, game_id, commands, *, seconds: float) -> None:
    """``commands``, one every ``seconds``; then resign if the game is still on."""
    at = START
    for command in commands:
        at += dt.timedelta(seconds=seconds)
        with clock.frozen(at):
            services.game_command(game_id=game_id, actor=player, command=command)
    if streams.load(game_id).state.status == engine.PLAYING:
        with clock.frozen(at + dt.timedelta(seconds=seconds)):
            services.game_command(game_id=game_id, actor=player, command={"type": "resign"})


def certified_line(game_id) -> list[dict]:
    """The winning line the pool certified for ``game_id``'s deal: what a cheat who runs a
    full solver, or copies a public line, plays."""
    seed = streams.load(game_id).seed
    return list(CertifiedDeal.objects.get(seed=seed).solution)


def heuristic_line(game_id, count: int) -> list[dict]:
    """The first ``count`` actions of the one-move heuristic from the player's own view."""
    rules = engine.RULESETS["classic"]
    state = streams.load(game_id).state
    line = []
    for _ in range(count):
        action = heuristic.best(rules, engine.player_view(state))
        if action is None:
            break
        line.append(engine.action_to_command(action))
        state, _ = engine.apply(state, action)
    return line


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_pools_and_an_empty_queue")
def test_a_finished_rated_game_is_assessed_by_a_worker_and_a_machine_paced_win_flagged(
    alice, bob
) -> None:
    pools.fill("classic", 2)
    casual = services.game_create(owner=alice, rules="classic", seed=11).game_id
    services.game_command(game_id=casual, actor=alice, command={"type": "resign"})
    assert queued() == []  # a casual game is nobody's business

    cheat = services.game_create(owner=alice, rules="classic", rated=True).game_id
    play(alice, cheat, certified_line(cheat), seconds=0.6)
    honest = services.game_create(owner=bob, rules="classic", rated=True).game_id
    play(bob, honest, heuristic_line(honest, 12), seconds=5)
    assert queued() == [str(cheat), str(honest)]  # with each game's end

    with app.replace_connector(app.connector.get_worker_connector()) as worker_app:
        worker_app.run_worker(
            queues=["solver"], wait=False, install_signal_handlers=False, listen_notify=False
        )

    flagged = GameEvidence.objects.get(game_id=cheat)
    assert flagged.flagged and "pace" in flagged.reasons and flagged.kind == "rated"
    assert flagged.player_id == alice.pk and flagged.hints == 0 and flagged.won
    assert flagged.median_seconds == pytest.approx(0.6)
    assert flagged.variation == pytest.approx(0, abs=1e-6)
    assert flagged.intervals == len(certified_line(cheat)) - 1
    clean = GameEvidence.objects.get(game_id=honest)
    assert not clean.flagged and clean.reasons == [] and not clean.won
    assert clean.matched == 0  # the heuristic never plays the solver's non-obvious move
    assert clean.median_seconds == pytest.approx(5)


def evidence_of(**given) -> evidence.Evidence:
    found = {
        "positions": 0, "matched": 0, "intervals": 0, "median_seconds": None,
        "mean_seconds": None, "variation": None, "won": False, "difficulty": None, "hints": 0,
    } | given  # fmt: skip
    return evidence._with_reasons(evidence.Evidence(**found))


def test_the_flags_thresholds() -> None:
    enough = evidence.MIN_POSITIONS
    assert evidence_of(positions=enough, matched=enough).reasons == ("match",)
    assert evidence_of(positions=enough - 1, matched=enough - 1).reasons == ()
    assert evidence_of(positions=10, matched=7).reasons == ()  # 70%: people find some
    paced = {"won": True, "intervals": 40, "median_seconds": 0.7, "variation": 0.2}
    assert evidence_of(**paced).reasons == ("pace",)
    assert evidence_of(**paced | {"variation": 1.1}).reasons == ()  # thinks, then bursts
    assert evidence_of(**paced | {"won": False}).reasons == ()
    hard = {"won": True, "difficulty": 0.8, "positions": 10, "matched": 7}
    assert evidence_of(**hard).reasons == ("hard_win",)
    assert evidence_of(**hard | {"difficulty": 0.5}).reasons == ()
    assert evidence_of(won=True, hints=2).reasons == ("hints",)
    assert evidence_of(won=False, hints=2).reasons == ()
