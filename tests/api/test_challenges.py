"""The daily challenge over HTTP: the day's race, joining, standings, the secrecy of an
open challenge, and the day's end (the clock is injected to cross midnight)."""

import datetime as dt
import json

import pytest

from games import clock, engine
from games.dailies import challenges as dailies
from games.dailies.models import DailyChallenge
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)


def at(day: dt.date, hour: int = 12, minute: int = 0):
    return clock.frozen(dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC))


def hidden_codes(deal: list[str]) -> set[str]:
    """The codes of the cards a classic deal keeps face-down or in the reserve."""
    state = engine.new_game(engine.RULESETS["classic"], engine.parse_cards(deal))
    face_down = [
        card for cards, down in zip(state.columns, state.down, strict=True) for card in cards[:down]
    ]
    return {engine.card_code(card) for card in [*face_down, *state.reserve]}


def test_today_is_not_ready_until_the_job_prepares_it(as_alice, api) -> None:
    with at(DAY):
        today = api.get("/api/v1/challenges/today")
        joined = as_alice.post("/api/v1/challenges/today/join")
    assert today.status_code == joined.status_code == 503
    assert today.json()["code"] == "challenge_not_ready" and int(today.headers["Retry-After"]) > 0
    assert not DailyChallenge.objects.exists()


def test_today_join_and_join_again(as_alice, api) -> None:
    dailies.prepare(DAY)  # as the scheduled job does
    with at(DAY):
        today = api.get("/api/v1/challenges/today")
        assert today.status_code == 200
        assert today.json()["date"] == "2026-11-30" and today.json()["seed"] is None
        first = as_alice.post("/api/v1/challenges/2026-11-30/join")
        again = as_alice.post("/api/v1/challenges/today/join")
        anonymous = api.post("/api/v1/challenges/today/join")
        counted = api.get("/api/v1/challenges/2026-11-30").json()["participants"]
    assert first.status_code == 201 and again.status_code == 200
    assert first.json()["id"] == again.json()["id"]
    assert first.json()["challenge"] == "2026-11-30" and first.json()["seed"] is None
    assert first.json()["rules"] == "classic" and first.json()["owner"] == "alice"
    assert anonymous.status_code == 401 and counted == 1


@pytest.mark.parametrize("date", ["2026-12-01", "2027-01-01", "yesterday", "2026-13-01", "1"])
def test_days_that_have_not_begun_or_are_not_dates_are_404(api, as_alice, date: str) -> None:
    with at(DAY):
        assert api.get(f"/api/v1/challenges/{date}").json()["code"] == "not_found"
        assert as_alice.post(f"/api/v1/challenges/{date}/join").status_code == 404
        assert api.get(f"/api/v1/challenges/{date}/standings").status_code == 404


@pytest.mark.parametrize("date", ["0001-01-01", "2026-11-29"])
def test_a_past_day_without_a_challenge_is_404_and_costs_no_search(api, as_alice, date) -> None:
    with at(DAY):
        assert api.get(f"/api/v1/challenges/{date}").json()["code"] == "not_found"
        assert as_alice.post(f"/api/v1/challenges/{date}/join").status_code == 404
        assert api.get(f"/api/v1/challenges/{date}/standings").status_code == 404
    assert not DailyChallenge.objects.filter(date=dt.date.fromisoformat(date)).exists()
    with at(DAY - dt.timedelta(days=1)):  # a day prepared while it ran stays readable
        dailies.prepare(DAY - dt.timedelta(days=1))
    with at(DAY):
        assert api.get("/api/v1/challenges/2026-11-29").status_code == 200


def test_another_players_open_daily_game_is_refused_everywhere(as_alice, as_bob, api) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        game = as_alice.post("/api/v1/challenges/today/join").json()["id"]
        base = f"/api/v1/games/{game}"
        for path in (base, f"{base}/events", f"{base}/moves", f"{base}/hint", f"{base}/states/1"):
            for client in (as_bob, api):
                response = client.get(path)
                assert response.status_code == 403, path
                assert response.json()["code"] == "challenge_in_progress"
            assert as_alice.get(path).status_code == (409 if path.endswith("/hint") else 200)
        assert as_bob.post(f"{base}/hints").json()["code"] == "challenge_in_progress"
        assert as_alice.post(f"{base}/hints").status_code == 201
        assert game not in [g["id"] for g in as_bob.get("/api/v1/games").json()["results"]]
        assert game in [g["id"] for g in as_alice.get("/api/v1/games").json()["results"]]
        assert as_bob.post(f"{base}/commands", {"type": "deal"}).json()["code"] == "not_owner"


def test_no_seed_deal_or_hidden_card_of_an_open_challenge_leaves_the_server(
    api, as_alice, as_bob
) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        deal = [
            engine.card_code(c)
            for c in engine.seeded_deal(engine.RULESETS["classic"], dailies.certify(DAY).seed)
        ]
        hidden = hidden_codes(deal)
        seed = str(dailies.certify(DAY).seed)
        bodies = []

        def keep(response) -> None:
            bodies.append(response.content.decode() + json.dumps(dict(response.headers)))

        keep(api.get("/api/v1/challenges/today"))
        keep(api.get("/api/v1/challenges/2026-11-30"))
        mine = as_alice.post("/api/v1/challenges/today/join")
        keep(mine)
        keep(as_bob.post("/api/v1/challenges/today/join"))
        game = mine.json()["id"]
        keep(
            as_alice.post(
                f"/api/v1/games/{game}/commands", {"type": "move", "from": 1, "index": 0, "to": 2}
            )
        )
        keep(as_alice.get(f"/api/v1/games/{game}"))
        keep(as_alice.get(f"/api/v1/games/{game}/events"))
        keep(as_alice.get(f"/api/v1/games/{game}/moves"))
        keep(as_alice.post(f"/api/v1/games/{game}/hints"))
        keep(as_alice.get(f"/api/v1/games/{game}/states/1"))
        keep(as_alice.get("/api/v1/games?owner=alice"))
        keep(api.get("/api/v1/challenges/today/standings"))
        keep(as_bob.get(f"/api/v1/games/{game}"))
        # Even a finished game of an open challenge stays masked for its owner.
        keep(as_alice.post(f"/api/v1/games/{game}/commands", {"type": "resign"}))
        keep(as_alice.get(f"/api/v1/games/{game}"))
        keep(as_alice.get(f"/api/v1/games/{game}/events"))
        keep(as_alice.get(f"/api/v1/games/{game}/states/1"))
    text = "\n".join(bodies)
    assert seed not in text
    assert json.dumps(deal) not in text
    for code in hidden:
        assert f'"{code}"' not in text, code


def test_after_the_day_the_seed_appears_and_every_game_is_public(as_alice, as_bob, api) -> None:
    dailies.prepare(DAY)
    dailies.prepare(DAY + dt.timedelta(days=1))
    with at(DAY):
        game = as_alice.post("/api/v1/challenges/today/join").json()["id"]
        as_alice.post(f"/api/v1/games/{game}/commands", {"type": "deal"})
    with at(DAY + dt.timedelta(days=1), 0, 0):
        closed = api.get("/api/v1/challenges/2026-11-30").json()
        today = api.get("/api/v1/challenges/today").json()
        full = api.get(f"/api/v1/games/{game}").json()
        events = api.get(f"/api/v1/games/{game}/events").json()["results"]
        late = as_bob.post("/api/v1/challenges/2026-11-30/join")
        listed = [g["id"] for g in api.get("/api/v1/games").json()["results"]]
    seed = dailies.certify(DAY).seed
    assert closed["status"] == "closed" and closed["seed"] == seed
    assert today["date"] == "2026-12-01" and today["status"] == "open" and today["seed"] is None
    assert engine.seeded_deal(engine.RULESETS["classic"], seed) != engine.seeded_deal(
        engine.RULESETS["classic"], dailies.certify(DAY + dt.timedelta(days=1)).seed
    )
    assert full["seed"] == seed and full["status"] == "playing"
    assert all(code is not None for column in full["columns"] for code in column)
    assert full["reserve_cards"] == []
    assert events[0]["data"]["seed"] == seed and len(events[0]["data"]["deal"]) == 52
    assert late.status_code == 403 and late.json()["code"] == "challenge_closed"
    assert game in listed


def test_standings_endpoint_ranks_the_race(as_alice, as_bob, api) -> None:
    DailyChallenge.objects.create(
        date=DAY,
        rules="classic",
        seed=WIN["seed"],
        created_at=dt.datetime(2026, 11, 30, tzinfo=dt.UTC),
    )
    with at(DAY, 8):
        alice_game = as_alice.post("/api/v1/challenges/today/join").json()["id"]
        bob_game = as_bob.post("/api/v1/challenges/today/join").json()["id"]
    with at(DAY, 8, 40):
        for command in WIN["actions"]:
            assert as_alice.post(f"/api/v1/games/{alice_game}/commands", command).status_code == 201
        as_bob.post(f"/api/v1/games/{bob_game}/commands", WIN["actions"][0])
        results = api.get("/api/v1/challenges/2026-11-30/standings").json()["results"]
        player = api.get("/api/v1/players/alice").json()
    assert [(r["rank"], r["player"], r["status"]) for r in results] == [
        (1, "alice", "won"),
        (2, "bob", "playing"),
    ]
    assert results[0]["elapsed_ms"] == 40 * 60 * 1000 and results[0]["sequences"] == 4
    assert results[0]["moves"] == len(WIN["actions"])
    assert results[0]["started_at"] == "2026-11-30T08:00:00.000Z"  # a playing clock runs from it
    assert player["streak"] == player["best_streak"] == 1
    # A record times a win as the leaderboards do, from the first action (every action here
    # came at 8:40), not from joining as the standings do.
    assert player["best_time_ms"] == player["daily"]["best_time_ms"] == 0
    assert player["daily"]["played"] == player["daily"]["won"] == 1


def test_standings_rows_name_the_games_their_reader_may_read(
    as_alice, as_bob, as_staff, api
) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        alices = as_alice.post("/api/v1/challenges/today/join").json()["id"]
        bobs = as_bob.post("/api/v1/challenges/today/join").json()["id"]
        path = "/api/v1/challenges/today/standings"
        seen = {
            name: {row["player"]: row["game"] for row in reader.get(path).json()["results"]}
            for name, reader in (("alice", as_alice), ("anyone", api), ("staff", as_staff))
        }
    # While the day runs: one's own game, and every game to staff; no one else's.
    assert seen["alice"] == {"alice": alices, "bob": None}
    assert seen["anyone"] == {"alice": None, "bob": None}
    assert seen["staff"] == {"alice": alices, "bob": bobs}
    with at(DAY + dt.timedelta(days=1), 0, 0):
        after = api.get("/api/v1/challenges/2026-11-30/standings").json()["results"]
        assert {row["player"]: row["game"] for row in after} == {"alice": alices, "bob": bobs}
        assert api.get(f"/api/v1/games/{bobs}").status_code == 200
