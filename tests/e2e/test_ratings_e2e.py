"""Ratings end to end, through a real daphne process on real PostgreSQL: twenty players
finish the same daily deal at the same moment, then each plays a rated pool deal of their
own, all at once (no two share a deal, and none was seen before it was dealt), a moderator
voids and restores results, and ``rebuild_projections`` gives back exactly the ratings that
were served, to the last bit, everywhere: every rating row, every rated game, every
history row, and each player's rating as the server answered it."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from typing import Any

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connections
from django.test import override_settings
from websockets.sync.client import connect

from games import pools
from games.dailies.models import DailyChallenge
from games.pools.models import CertifiedDeal
from games.ratings.models import DealRating, PlayerRating, RatedGame, RatingChange
from games.store.models import Event
from games.writes import moderation
from tests.e2e.conftest import ws_ticket
from tests.e2e.players import register
from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PLAYERS = 20
POOL_DEALS = PLAYERS  # a pool deal is dealt to one rated game, ever


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory(POOL_RULES="classic")


def send(client: httpx.Client, game: str, command: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"/api/v1/games/{game}/commands", json=command)
    assert response.status_code == 201, response.text
    return dict(response.json())


def snapshot() -> dict[str, list[tuple[Any, ...]]]:
    """Every rating row by its natural key, floats compared exactly."""
    return {
        "players": list(
            PlayerRating.objects.order_by("player_id", "rules").values_list(
                "player_id", "rules", "rating", "rd", "volatility", "games", "changes", "updated_at"
            )
        ),
        "deals": list(
            DealRating.objects.order_by("rules", "seed").values_list(
                "rules", "seed", "rating", "rd", "volatility", "games"
            )
        ),
        "games": list(RatedGame.objects.order_by("game_id").values_list()),
        "history": list(
            RatingChange.objects.order_by("player_id", "rules", "n").values_list(
                "player_id", "rules", "n", "kind", "game_id", "seq", "at", "rating", "rd",
                "volatility",
            )
        ),
    }  # fmt: skip


def test_many_players_and_deals_then_a_rebuild_gives_the_same_ratings(server) -> None:
    today = dt.datetime.now(dt.UTC).date()
    DailyChallenge.objects.create(
        date=today,
        rules="classic",
        seed=WIN["seed"],
        nodes=5000,
        created_at=dt.datetime.now(dt.UTC),
    )
    with override_settings(POOL_FOLLOW_HINTS=False, POOL_SOLVER_BUDGET=20_000):
        pools.fill("classic", POOL_DEALS)
    solutions = {deal.seed: deal.solution for deal in CertifiedDeal.objects.all()}
    names = [f"p{number:02d}" for number in range(PLAYERS)]
    clients = {name: register(server.http, name) for name in names}
    served: dict[str, dict[str, Any]] = {}

    # --- Twenty players finish today's deal at the same moment ----------------------------
    games = {}
    for name, client in clients.items():
        joined = client.post("/api/v1/challenges/today/join")
        assert joined.status_code == 201, joined.text
        assert joined.json()["rated"] is True
        games[name] = joined.json()["id"]
    ready = threading.Barrier(PLAYERS)
    answers: dict[str, dict[str, Any]] = {}
    errors: list[BaseException] = []

    def race(name: str, winner: bool) -> None:
        try:
            for command in WIN["actions"][:-1]:
                send(clients[name], games[name], command)
            ready.wait(timeout=120)
            last = WIN["actions"][-1] if winner else {"type": "resign"}
            answers[name] = send(clients[name], games[name], last)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    watched = names[0]
    token = clients[watched].headers["Authorization"].split()[1]
    final: list[dict[str, Any]] = []

    def watch() -> None:  # the owner's own socket: nobody else may watch an open day's game
        ticket = ws_ticket(server.http, token)
        with connect(f"{server.ws}/ws/games/{games[watched]}/?ticket={ticket}") as spectator:
            while True:
                frame = json.loads(spectator.recv(timeout=300))
                if frame.get("type") == "event" and frame["game"]["status"] != "playing":
                    final.append(frame)
                    return

    watcher = threading.Thread(target=watch)
    watcher.start()
    threads = [
        threading.Thread(target=race, args=(name, index % 3 != 0))
        for index, name in enumerate(names)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    watcher.join(timeout=60)
    assert not errors, errors
    # The final event's frame carries the rating change, as the command's body does.
    (frame,) = final
    assert frame["game"]["rating"] == answers[watched]["game"]["rating"]
    assert frame["game"]["rating"]["deal"] is None  # the day is open: the deal is secret
    for name in names:
        rating = answers[name]["game"]["rating"]
        assert rating["score"] == (1 if names.index(name) % 3 else 0)
        served[name] = {"after": rating["after"], "rd": rating["rd"]}
    deal = DealRating.objects.get(rules="classic", seed=WIN["seed"])
    assert deal.games == PLAYERS
    # Each scoring saw the deal as the previous one (in position order) left it.
    scorings = sorted(
        RatedGame.objects.filter(seed=WIN["seed"]),
        key=lambda game: Event.objects.filter(game_id=game.game_id).order_by("-seq")[0].position,
    )
    for earlier, later in zip(scorings, scorings[1:], strict=False):
        assert later.deal_before == earlier.deal_after

    # --- Then each plays a rated pool deal of their own, all at once ----------------------
    def rated(name: str, index: int) -> None:
        try:
            client = clients[name]
            created = client.post("/api/v1/games", json={"rules": "classic", "rated": True})
            for _ in range(100):  # every deal left to them is being drawn by others: retry
                if created.status_code != 503:
                    break
                time.sleep(0.2)
                created = client.post("/api/v1/games", json={"rules": "classic", "rated": True})
            assert created.status_code == 201, created.text
            game = created.json()["id"]
            seed = Event.objects.get(game_id=game, seq=1).data["seed"]
            if index % 2:
                answer = send(client, game, {"type": "resign"})
            else:
                for command in solutions[seed]:
                    answer = send(client, game, command)
            assert answer["game"]["rating"]["deal"] is not None  # over: the deal shows
            served[name] = {
                "after": answer["game"]["rating"]["after"],
                "rd": answer["game"]["rating"]["rd"],
            }
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connections.close_all()  # this thread's own connection

    threads = [threading.Thread(target=rated, args=(name, i)) for i, name in enumerate(names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not errors, errors
    assert RatedGame.objects.count() == PLAYERS * 2
    # Played to their end, the pool's rated games never share a deal, and none was dealt a
    # deal anyone had seen: no game of it began before it (the daily's deal included).
    pool_games = RatedGame.objects.exclude(seed=WIN["seed"])
    seeds = list(pool_games.values_list("seed", flat=True))
    assert len(seeds) == len(set(seeds)) == PLAYERS
    for game in pool_games:
        first = Event.objects.filter(type="created", data__seed=game.seed).order_by("position")[0]
        assert str(first.game_id) == str(game.game_id)
    assert DealRating.objects.filter(games__gt=0).count() == PLAYERS + 1

    # --- A moderator voids two results and restores one (its player banned meanwhile) -----
    staff = get_user_model().objects.create_user("mod", password="pw-mod-Rated-2026", is_staff=True)
    users = {user.username: user for user in get_user_model().objects.filter(username__in=names)}
    voided, restored = games[names[1]], games[names[2]]
    moderation.result_void(game_id=voided, moderator=staff, reason="assisted")
    moderation.result_void(game_id=restored, moderator=staff, reason="assisted")
    moderation.player_ban(player=users[names[2]], moderator=staff, reason="assisted")
    moderation.result_restore(game_id=restored, moderator=staff, reason="appeal")
    assert not RatedGame.objects.get(game_id=voided).counted
    back = RatedGame.objects.get(game_id=restored)
    assert back.counted and not back.deal_counted
    for name in (names[1], names[2]):
        row = PlayerRating.objects.get(player=users[name], rules="classic")
        served[name] = {"after": row.rating, "rd": row.rd}

    # --- What the server answers is what the tables hold --------------------------------
    for name in names:
        body = clients[name].get(f"/api/v1/players/{name}/ratings/classic").json()
        assert (body["rating"], body["rd"]) == (served[name]["after"], served[name]["rd"])

    # --- The rebuild, from events alone: the same bits everywhere ------------------------
    before = snapshot()
    assert len(before["history"]) == PLAYERS * 2 + 3
    call_command("rebuild_projections")
    assert snapshot() == before
    for name in names:
        body = clients[name].get(f"/api/v1/players/{name}/ratings/classic").json()
        assert (body["rating"], body["rd"]) == (served[name]["after"], served[name]["rd"])
