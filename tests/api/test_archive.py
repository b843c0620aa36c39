"""The daily archive: a month's days with the caller's result, and a closed day's solution."""

import datetime as dt

import pytest

from games import clock, engine
from games.dailies.models import DailyChallenge
from games.writes import services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 11, 30)


def at(day: dt.date, hour: int = 12):
    return clock.frozen(dt.datetime.combine(day, dt.time(hour), tzinfo=dt.UTC))


def day(date: dt.date, **extra) -> DailyChallenge:
    return DailyChallenge.objects.create(
        date=date,
        rules="classic",
        seed=WIN["seed"],
        solution=WIN["actions"],
        difficulty="medium",
        created_at=dt.datetime.combine(date, dt.time(0), tzinfo=dt.UTC),
        **extra,
    )


def test_a_month_lists_its_days_with_the_callers_own_result(as_alice, as_bob, alice):
    for date in (TODAY - dt.timedelta(days=2), TODAY - dt.timedelta(days=1), TODAY):
        day(date)
    with at(TODAY - dt.timedelta(days=2)):
        joined = services.challenge_join(date=TODAY - dt.timedelta(days=2), player=alice[0])[0]
        services.game_command(game_id=joined.game_id, actor=alice[0], command=WIN["actions"][0])

    with at(TODAY):
        mine = as_alice.get("/api/v1/challenges?month=2026-11").json()
        theirs = as_bob.get("/api/v1/challenges").json()  # the current month by default

    assert mine["month"] == theirs["month"] == "2026-11"
    assert [d["date"] for d in mine["results"]] == ["2026-11-28", "2026-11-29", "2026-11-30"]
    first = mine["results"][0]
    assert (first["status"], first["participants"], first["difficulty"]) == ("closed", 1, "medium")
    assert first["mine"] == {
        "game": str(joined.game_id),
        "status": "playing",
        "moves": 1,
        "score": first["mine"]["score"],
        "sequences": 0,
        "elapsed_ms": 0,
        "hints": 0,
    }
    assert mine["results"][2]["status"] == "open"
    assert mine["results"][2]["difficulty"] is None  # secret while the day runs
    assert [d["mine"] for d in theirs["results"]] == [None, None, None]


def test_the_archive_never_makes_a_day(api):
    with at(TODAY):
        body = api.get("/api/v1/challenges?month=2026-11").json()

    assert body == {"month": "2026-11", "results": []}
    assert not DailyChallenge.objects.exists()


@pytest.mark.parametrize("month", ["2026-13", "2026-1", "november", "2026-11-01"])
def test_a_bad_month_is_400(api, month):
    response = api.get(f"/api/v1/challenges?month={month}")

    assert response.status_code == 400 and "month" in response.json()["fields"]


def test_a_closed_days_solution_replays_step_by_step(api):
    yesterday = TODAY - dt.timedelta(days=1)
    day(yesterday)
    rules = engine.RULESETS["classic"]
    deal = [engine.card_code(card) for card in engine.seeded_deal(rules, WIN["seed"])]

    with at(TODAY):
        start = api.get(f"/api/v1/challenges/{yesterday}/solution/0").json()
        one = api.get(f"/api/v1/challenges/{yesterday}/solution/1").json()
        end = api.get(f"/api/v1/challenges/{yesterday}/solution/{len(WIN['actions'])}").json()
        beyond = api.get(f"/api/v1/challenges/{yesterday}/solution/{len(WIN['actions']) + 1}")

    assert (start["step"], start["steps"], start["action"]) == (0, len(WIN["actions"]), None)
    shown = [code for column in start["columns"] for code in column] + start["reserve_cards"]
    assert sorted(shown) == sorted(deal)  # every card shown: the day is over
    assert one["action"] == WIN["actions"][0] and one["moves"] == 1
    assert (end["status"], len(end["removed"])) == ("won", 4)
    assert beyond.status_code == 404


def test_an_open_days_solution_is_not_found(api):
    day(TODAY)

    with at(TODAY):
        response = api.get(f"/api/v1/challenges/{TODAY}/solution/0")
        nothing = api.get("/api/v1/challenges/2026-11-01/solution/0")

    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert nothing.status_code == 404


@pytest.mark.parametrize(
    ("month", "status"),
    [("0001-01", 200), ("9999-12", 200), ("0000-01", 400), ("2026-00", 400), ("2026-13", 400)],
)
def test_the_calendars_edges_are_answered_never_a_500(api, month: str, status: int) -> None:
    assert api.get(f"/api/v1/challenges?month={month}").status_code == status
