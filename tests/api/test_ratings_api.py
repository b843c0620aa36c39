"""Ratings through the API: rated games from the pool, the rating change in the game's
body, a player's ratings and paged history, the rating board, and the 400s."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from games import clock, pools
from games.dailies.models import DailyChallenge
from games.ratings import parameters
from games.ratings.models import PlayerRating, RatingChange
from games.store.models import Event
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _quick_pools(settings):
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000
    settings.POOL_RULES = ["classic"]


def test_rated_needs_the_servers_deal_and_a_pool(as_alice) -> None:
    with_seed = as_alice.post("/api/v1/games", {"rated": True, "seed": 4})
    assert with_seed.status_code == 400 and with_seed.json()["code"] == "rated_with_deal"
    no_pool = as_alice.post("/api/v1/games", {"rules": "wasp", "rated": True})
    assert no_pool.status_code == 400 and no_pool.json()["code"] == "rated_no_pool"
    translated = as_alice.in_language("it").post("/api/v1/games", {"rules": "wasp", "rated": True})
    assert "classificate" in translated.json()["detail"]


def test_a_rated_win_and_its_history(as_alice, as_bob, alice) -> None:
    deals = pools.fill("classic", 2)
    by_seed = {deal.seed: deal for deal in deals}
    first = as_alice.post("/api/v1/games", {"rules": "classic", "rated": True}).json()
    seed = Event.objects.get(game_id=first["id"], seq=1).data["seed"]
    assert Event.objects.get(game_id=first["id"], seq=1).data["rated"] is True
    events = as_alice.get(f"/api/v1/games/{first['id']}/events").json()["results"]
    assert events[0]["data"]["difficulty"] is None  # secret, as the seed, while played
    for command in by_seed[seed].solution:
        answer = as_alice.post(f"/api/v1/games/{first['id']}/commands", command).json()
    won = answer["game"]
    assert won["status"] == "won"
    rating = won["rating"]
    assert rating["score"] == 1 and rating["before"] == parameters.START_RATING
    assert rating["change"] == rating["after"] - rating["before"] > 0
    assert rating["provisional"] and rating["counted"]
    assert rating["deal"]["after"] < rating["deal"]["before"]
    # The body read back says the same.
    assert as_bob.get(f"/api/v1/games/{first['id']}").json()["rating"] == rating

    second = as_alice.post("/api/v1/games", {"rules": "classic", "rated": True}).json()
    assert Event.objects.get(game_id=second["id"], seq=1).data["seed"] != seed  # never twice
    # Asking for another rated game abandons this one: resigned for her, scored 0.
    pools.fill("classic", 3)
    third = as_alice.post("/api/v1/games", {"rules": "classic", "rated": True}).json()
    lost = as_alice.get(f"/api/v1/games/{second['id']}").json()
    assert lost["status"] == "resigned"
    assert lost["rating"]["score"] == 0 and lost["rating"]["change"] < 0
    assert as_alice.get(f"/api/v1/games/{third['id']}").json()["status"] == "playing"

    ratings = as_bob.get("/api/v1/players/alice/ratings").json()
    assert ratings["player"] == "alice"
    (classic,) = ratings["ratings"]
    mine = PlayerRating.objects.get(player=alice[0], rules="classic")
    assert classic == {
        "rules": "classic",
        "rating": mine.rating,
        "rd": mine.rd,
        "volatility": mine.volatility,
        "provisional": True,
        "games": 2,
    }
    page = as_bob.get("/api/v1/players/alice/ratings/classic?limit=1").json()
    assert page["rating"] == mine.rating and page["games"] == 2
    assert [row["n"] for row in page["history"]] == [2]
    assert page["history"][0]["game"] == second["id"]
    assert page["history"][0]["rating"] == mine.rating
    following = as_bob.get(page["next"].split("testserver")[-1]).json()
    assert [row["n"] for row in following["history"]] == [1]
    assert following["history"][0]["rating"] == rating["after"]
    assert following["next"] is None

    forged = as_bob.get("/api/v1/players/alice/ratings/classic?cursor=MQ")
    assert forged.status_code == 400 and forged.json()["code"] == "invalid"
    assert "cursor" in forged.json()["fields"]
    assert as_bob.get("/api/v1/players/alice/ratings/nope").status_code == 404
    assert as_bob.get("/api/v1/players/nobody/ratings").status_code == 404
    fresh = as_bob.get("/api/v1/players/bob/ratings/classic").json()
    assert fresh["rating"] == parameters.START_RATING and fresh["history"] == []


def test_a_daily_games_deal_rating_stays_hidden_while_the_day_runs(as_alice) -> None:
    DailyChallenge.objects.create(
        date=DAY, rules="classic", seed=WIN["seed"], nodes=1000, created_at=NOON
    )
    with clock.frozen(NOON):
        joined = as_alice.post(f"/api/v1/challenges/{DAY.isoformat()}/join").json()
        game_id = joined["id"]
        assert joined["rated"] is True
        answer = as_alice.post(f"/api/v1/games/{game_id}/commands", {"type": "resign"}).json()
        assert answer["game"]["rating"]["deal"] is None
        assert as_alice.get(f"/api/v1/games/{game_id}").json()["rating"]["deal"] is None
    with clock.frozen(NOON + dt.timedelta(days=1)):
        shown = as_alice.get(f"/api/v1/games/{game_id}").json()["rating"]["deal"]
        assert shown is not None and shown["after"] > shown["before"]


def test_the_rating_board_lists_non_provisional_players_with_me(
    as_alice, alice, bob, player
) -> None:
    carol = player("carol")
    at = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
    for user, rating, rd in (
        (alice[0], 1712.4, 80.0),
        (bob[0], 1650.6, 60.0),
        (carol[0], 1900.0, 200.0),
    ):
        PlayerRating.objects.create(
            player=user, rules="classic", rating=rating, rd=rd, volatility=0.09, games=12,
            changes=12, updated_at=at,
        )  # fmt: skip
    board = as_alice.get("/api/v1/leaderboards/classic/rating").json()
    assert [(row["player"], row["value"], row["rank"]) for row in board["results"]] == [
        ("alice", 1712, 1),
        ("bob", 1651, 2),
    ]
    assert board["me"]["player"] == "alice" and board["me"]["rank"] == 1
    assert as_alice.get("/api/v1/leaderboards/daily/rating").status_code == 404


def test_a_weeks_rating_board_lists_who_was_rated_in_it_as_they_left_it(
    as_alice, alice, bob, player
) -> None:
    """A week's board: the players with a rating change in it, at their last change of it
    (not their rating now), once it was no longer provisional; an empty week is empty."""
    carol = player("carol")
    monday = dt.datetime(2026, 11, 23, 9, tzinfo=dt.UTC)  # ISO week 2026-W48
    history = {
        alice[0]: [(monday, 1600.0, 90.0), (monday + dt.timedelta(days=2), 1640.4, 85.0),
                   (monday + dt.timedelta(days=8), 1500.0, 80.0)],
        bob[0]: [(monday + dt.timedelta(days=1), 1700.0, 70.0)],
        carol[0]: [(monday + dt.timedelta(days=3), 1900.0, 200.0)],  # provisional then
    }  # fmt: skip
    for user, changes in history.items():
        for n, (at, rating, rd) in enumerate(changes, start=1):
            RatingChange.objects.create(
                player=user, rules="classic", n=n, kind="game", game_id=uuid.uuid4(), seq=2,
                at=at, rating=rating, rd=rd, volatility=0.09,
            )  # fmt: skip
        last = changes[-1]
        PlayerRating.objects.create(
            player=user, rules="classic", rating=last[1], rd=last[2], volatility=0.09,
            games=len(changes), changes=len(changes), updated_at=last[0],
        )  # fmt: skip

    def rows(query: str) -> list[tuple[str, int]]:
        board = as_alice.get(f"/api/v1/leaderboards/classic/rating?{query}").json()
        return [(row["player"], row["value"]) for row in board["results"]]

    assert rows("period=week&at=2026-W48") == [("bob", 1700), ("alice", 1640)]
    assert rows("period=week&at=2026-W49") == [("alice", 1500)]
    assert rows("period=month&at=2026-11") == [("bob", 1700), ("alice", 1640)]
    assert rows("period=month&at=2026-12") == [("alice", 1500)]
    assert rows("period=week&at=2026-W47") == []
    assert rows("") == [("bob", 1700), ("alice", 1500)]


def test_the_replay_attack_finds_no_rated_game_to_win(as_alice, as_bob) -> None:
    """Copy a public game's winning line into a rated game: no rated game is ever dealt a
    deal whose line is public, so the copy never wins, and an exhausted pool says so."""
    solutions = {deal.seed: deal.solution for deal in pools.fill("classic", 4)}
    # Bob wins a rated deal and resigns a casual one of the pool: both public, seed and all.
    won = as_bob.post("/api/v1/games", {"rules": "classic", "rated": True}).json()["id"]
    for command in solutions[Event.objects.get(game_id=won, seq=1).data["seed"]]:
        as_bob.post(f"/api/v1/games/{won}/commands", command)
    casual = as_bob.post("/api/v1/games", {"rules": "classic", "winnable": True}).json()["id"]
    as_bob.post(f"/api/v1/games/{casual}/commands", {"type": "resign"})
    public = {as_alice.get(f"/api/v1/games/{game}").json()["seed"] for game in (won, casual)}
    assert None not in public and len(public) == 2
    lines = [solutions[seed] for seed in public]

    dealt = []
    rated = {"rules": "classic", "rated": True}
    while (answer := as_alice.post("/api/v1/games", rated)).status_code == 201:
        game = answer.json()["id"]
        dealt.append(Event.objects.get(game_id=game, seq=1).data["seed"])
        for line in lines:  # every public line, played from where the last one stopped
            for command in line:
                if as_alice.post(f"/api/v1/games/{game}/commands", command).status_code != 201:
                    break
        assert as_alice.get(f"/api/v1/games/{game}").json()["status"] != "won"
    assert len(dealt) == 2 and not public & set(dealt)
    assert answer.status_code == 503 and answer.json()["code"] == "pool_empty"
    assert answer.headers["Retry-After"] == "60"


def test_the_dailys_stakes_are_the_changes_a_win_and_a_loss_then_make(as_alice, as_bob) -> None:
    DailyChallenge.objects.create(
        date=DAY, rules="classic", seed=WIN["seed"], nodes=1000, created_at=NOON
    )
    day = DAY.isoformat()
    with clock.frozen(NOON):
        stakes = as_alice.get(f"/api/v1/challenges/{day}/stakes").json()
        assert stakes["rated"] is True and stakes["rating"] == parameters.START_RATING
        assert stakes["provisional"] is True and stakes["win"] > 0 > stakes["loss"]
        game_id = as_alice.post(f"/api/v1/challenges/{day}/join").json()["id"]
        lost = as_alice.post(f"/api/v1/games/{game_id}/commands", {"type": "resign"}).json()
        assert lost["game"]["rating"]["change"] == pytest.approx(stakes["loss"], abs=0.01)
        # Bob's stakes are against the deal as Alice's loss left it: his win is what he gets.
        stakes = as_bob.get(f"/api/v1/challenges/{day}/stakes").json()
        game_id = as_bob.post(f"/api/v1/challenges/{day}/join").json()["id"]
        for command in WIN["actions"]:
            answer = as_bob.post(f"/api/v1/games/{game_id}/commands", command).json()
        assert answer["game"]["rating"]["change"] == pytest.approx(stakes["win"], abs=0.01)
        assert as_bob.get("/api/v1/challenges/1999-01-01/stakes").status_code == 404
    with clock.frozen(NOON + dt.timedelta(days=1)):
        closed = as_alice.get(f"/api/v1/challenges/{day}/stakes").json()
        assert (closed["rated"], closed["win"], closed["loss"]) == (False, None, None)
        assert closed["rating"] < parameters.START_RATING
