"""Read models are projections: rebuilt from events alone they equal the live rows."""

import datetime as dt
import uuid

import pytest
from django.core.management import call_command

from games import clock
from games.dailies import challenges
from games.dailies.models import Standing
from games.projections.game_row import COLUMNS
from games.store.models import Game
from games.writes import services

pytestmark = pytest.mark.django_db


def rows() -> list[dict[str, object]]:
    games = list(Game.objects.order_by("id").values("id", *COLUMNS))
    entries = list(Standing.objects.order_by("game_id").values())
    return [*games, *entries]


def play(game_id, actor, commands) -> None:
    for command in commands:
        services.game_command(game_id=game_id, actor=actor, command=command)


def test_rebuild_from_events_gives_the_same_rows(alice, bob, sample_deal) -> None:
    first = services.game_create(owner=alice, deal=sample_deal)
    play(
        first.game_id,
        alice,
        [
            {"type": "move", "from": 2, "index": 5, "to": 7},
            {"type": "deal"},
            {"type": "undo"},
            {"type": "move", "from": 7, "index": 4, "to": 3},
        ],
    )
    resigned = services.game_create(owner=bob, rules="cards4", seed=3, public=False)
    play(resigned.game_id, bob, [{"type": "deal"}, {"type": "resign"}])
    services.game_create(owner=bob, rules="three_blind_mice", seed=8)
    restarted = services.game_create(owner=alice, rules="double", seed=1)
    play(restarted.game_id, alice, [{"type": "deal"}, {"type": "restart"}])
    with clock.frozen(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)):
        challenges.prepare(dt.date(2026, 11, 30))
        daily, _ = services.challenge_join(date=dt.date(2026, 11, 30), player=bob)
        play(daily.game_id, bob, [{"type": "deal"}, {"type": "resign"}])
    live = rows()
    assert len(live) == 6  # five games and one standing

    Game.objects.update(score=-1, board={}, status="lost")  # corrupt the read models
    Standing.objects.update(score=-1, moves=0)
    call_command("rebuild_projections", verbosity=0)

    assert rows() == live


def test_rebuild_removes_rows_that_no_events_support(alice) -> None:
    stream = services.game_create(owner=alice, seed=1)
    orphan = Game.objects.get(id=stream.game_id)
    orphan.pk = None
    orphan.id = uuid.uuid4()
    orphan.save(force_insert=True)
    call_command("rebuild_projections", verbosity=0)
    assert list(Game.objects.values_list("id", flat=True)) == [stream.game_id]


def test_rebuild_gives_the_same_race_and_arena_results(alice, bob, django_user_model) -> None:
    from games.dailies import contests as domain
    from games.dailies.models import ContestResult
    from games.writes import contests, moderation

    t0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    with clock.frozen(t0):
        race = contests.race_create(
            creator=alice,
            rules="classic",
            deals=2,
            countdown=dt.timedelta(0),
            time_limit=dt.timedelta(hours=1),
        )
        arena = domain.arena_create(rules="wasp", starts_at=t0, ends_at=t0 + dt.timedelta(days=1))
    with clock.frozen(t0 + dt.timedelta(minutes=1)):
        games, _ = contests.race_games(race=race, player=alice)
        play(games[0].game_id, alice, [{"type": "deal"}, {"type": "resign"}])
        first, _ = contests.arena_play(arena=arena, player=bob)
        play(first.game_id, bob, [{"type": "resign"}])
        second, _ = contests.arena_play(arena=arena, player=bob)
        root = django_user_model.objects.create_user("root", password="x", is_staff=True)
        moderation.result_void(game_id=first.game_id, moderator=root, reason="test")
    live = sorted(ContestResult.objects.values(), key=lambda row: str(row["game_id"]))
    assert len(live) == 4 and second.summary.round == 2
    ranked = (domain.ranked(race), domain.ranked(arena))

    ContestResult.objects.update(points=-1, moves=0, voided=False)
    call_command("rebuild_projections", verbosity=0)

    assert sorted(ContestResult.objects.values(), key=lambda row: str(row["game_id"])) == live
    assert (domain.ranked(race), domain.ranked(arena)) == ranked
