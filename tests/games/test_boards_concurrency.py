"""One player's games finishing at the same moment, with a moderator voiding another of
their results meanwhile: the entries they share end as a rebuild from events makes them."""

import threading

import pytest
from django.core.management import call_command
from django.db import connections

from games.boards.models import BoardEntry
from games.writes import moderation, services
from tests.golden import WIN

GAMES = 8


def entries() -> list[dict[str, object]]:
    return list(
        BoardEntry.objects.order_by("scope", "period", "player_id").values(
            *(f.attname for f in BoardEntry._meta.concrete_fields if f.attname != "id")
        )
    )


@pytest.mark.django_db(transaction=True)
def test_concurrent_finishes_and_a_void_agree_with_the_rebuild(alice, django_user_model) -> None:
    mod = django_user_model.objects.create_user("mod", password="pw-mod-123", is_staff=True)
    games = []
    for _ in range(GAMES):
        game = services.game_create(owner=alice, rules="classic", seed=WIN["seed"]).game_id
        for command in WIN["actions"][:-1]:
            services.game_command(game_id=game, actor=alice, command=command)
        games.append(game)
    finished = services.game_create(owner=alice, rules="classic", seed=WIN["seed"]).game_id
    for command in WIN["actions"]:
        services.game_command(game_id=finished, actor=alice, command=command)

    barrier = threading.Barrier(GAMES + 1)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait()
            if index == GAMES:
                moderation.result_void(game_id=finished, moderator=mod, reason="checked")
            elif index % 2:
                services.game_command(game_id=games[index], actor=alice, command={"type": "resign"})
            else:
                services.game_command(game_id=games[index], actor=alice, command=WIN["actions"][-1])
        except BaseException as error:  # surfaced below, in the test's thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(GAMES + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors

    live = entries()
    assert not any(entry["dirty"] for entry in live)
    all_time = next(e for e in live if e["scope"] == "classic" and e["period"] == "all")
    assert all_time["wins"] == GAMES // 2
    call_command("rebuild_projections", verbosity=0)
    assert entries() == live
