"""The solver over HTTP: hints that see only the player's view (the leak test), hints as a
fact of a race, a day's solution once it closes, a day not ready yet, and the post-game
analysis that never speaks while a game is played."""

import asyncio
import datetime as dt
import random

import pytest
from channels.testing import WebsocketCommunicator

from games import clock, engine
from games.dailies import challenges as dailies
from games.dailies.models import DailyChallenge
from games.engine import hint as hints
from games.writes import services
from scorpion_server.asgi import application
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
CLASSIC = engine.RULESETS["classic"]


def at(day: dt.date, hour: int = 12, minute: int = 0):
    return clock.frozen(dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC))


def bottom_places(rules: engine.Ruleset) -> list[int]:
    """The bottom face-down card of each column that has some, and the reserve: cards that a
    few moves cannot turn up."""
    places, at_index = [], 0
    for down, up in rules.layout:
        if down:
            places.append(at_index)
        at_index += down + up
    places.extend(range(at_index, at_index + rules.reserve_size))
    return places


def test_leak_games_with_one_view_and_other_hidden_cards_get_one_hint(
    as_alice, alice, settings
) -> None:
    """Over many seeds, and a few moves into each game: two games whose player views are
    identical but whose hidden cards differ get identical hints, whole bodies compared."""
    # Every sample searched to its budget: a time limit would cut the two games' hints at
    # different samples on a busy machine, a difference that says nothing of hidden cards.
    settings.HINT_TIME_LIMIT = 0
    compared = 0
    for seed in range(12):
        deal = [engine.card_code(card) for card in engine.seeded_deal(CLASSIC, seed)]
        shuffled = random.Random(seed).sample(bottom_places(CLASSIC), k=len(bottom_places(CLASSIC)))
        other = list(deal)
        for place, source in zip(bottom_places(CLASSIC), shuffled, strict=True):
            other[place] = deal[source]
        assert other != deal
        games = [
            services.game_create(owner=alice[0], deal=cards).game_id for cards in (deal, other)
        ]
        state = engine.new_game(CLASSIC, engine.parse_cards(deal))
        for step in range(3):
            views = [as_alice.get(f"/api/v1/games/{game}").json() for game in games]
            for view in views:
                for key in ("id", "created_at"):
                    view.pop(key)
            assert views[0] == views[1], (seed, step)
            hints = [as_alice.get(f"/api/v1/games/{game}/hint").json() for game in games]
            assert hints[0] == hints[1], (seed, step)
            compared += 1
            moves = [a for a in engine.legal_actions(state) if not isinstance(a, engine.Deal)]
            if not moves:
                break
            action = moves[step % len(moves)]
            state = engine.apply(state, action)[0]
            for game in games:
                command = engine.action_to_command(action)
                assert as_alice.post(f"/api/v1/games/{game}/commands", command).status_code == 201
    assert compared >= 30


def every_card(state: engine.State) -> list[int]:
    """Every card still in play, wherever it lies."""
    cells = [card for card in state.cells if card is not None]
    return sorted([*(card for column in state.columns for card in column), *state.reserve, *cells])


@pytest.mark.parametrize("rules", ["classic", "double", "three_blind_mice", "traditional"])
def test_samples_agree_with_everything_the_view_shows(rules: str) -> None:
    ruleset = engine.RULESETS[rules]
    for seed in range(5):
        state = engine.new_game(ruleset, engine.seeded_deal(ruleset, seed))
        for action in engine.legal_actions(state)[:1]:  # a position after a move, too
            state = engine.apply(state, action)[0]
        view = engine.player_view(state)
        samples = hints.completions(ruleset, view, 8)
        assert len({sample.columns for sample in samples}) > 1  # really sampled
        for sample in samples:
            seen = engine.player_view(sample)
            for key in ("columns", "reserve", "removed", "status"):
                assert seen[key] == view[key], key
            assert seen.get("cells") == view.get("cells")
            assert every_card(sample) == every_card(state)  # the same cards, placed anew
        assert hints.completions(ruleset, view, 8)[3].columns == samples[3].columns


def test_the_hint_body_and_the_heuristic_fallback(api, alice, settings) -> None:
    # Seed 0's deal is won by the solver in many samples of its opening view.
    settings.HINT_TIME_LIMIT = 0  # every sample solved, whatever the machine's load
    game = services.game_create(owner=alice[0], seed=0).game_id
    body = api.get(f"/api/v1/games/{game}/hint").json()
    assert set(body) == {"move", "wins", "samples", "source", "version", "recorded"}
    assert body["samples"] == settings.HINT_SAMPLES and body["version"] == 1
    assert body["recorded"] is False
    assert body["source"] in ("solver", "heuristic")
    assert (body["wins"] > 0) == (body["source"] == "solver")
    assert body["move"] in api.get(f"/api/v1/games/{game}/moves").json()["moves"]


def test_a_hint_is_computed_once_per_game_and_version(api, alice, monkeypatch) -> None:
    game = services.game_create(owner=alice[0], seed=0).game_id
    first = api.get(f"/api/v1/games/{game}/hint").json()

    def again(*args, **kwargs):
        raise AssertionError("the hint of this version is cached")

    monkeypatch.setattr(hints, "hint", again)
    assert api.get(f"/api/v1/games/{game}/hint").json() == first
    monkeypatch.undo()
    services.game_command(game_id=game, actor=alice[0], command={"type": "resign"})
    assert api.get(f"/api/v1/games/{game}/hint").json()["move"] is None  # a new version


def test_the_heuristic_answers_when_no_sample_is_won(settings, api, alice) -> None:
    settings.HINT_SAMPLE_BUDGET = 1  # no search can finish: every sample is unknown
    game = services.game_create(owner=alice[0], seed=0).game_id
    body = api.get(f"/api/v1/games/{game}/hint").json()
    assert body["source"] == "heuristic" and body["wins"] == 0 and body["move"] is not None


def test_a_race_hint_is_a_recorded_event_counted_in_the_standings(as_alice, api) -> None:
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    with at(DAY, 9):
        game = as_alice.post("/api/v1/challenges/today/join").json()["id"]
        refused = as_alice.get(f"/api/v1/games/{game}/hint")
        taken = as_alice.post(f"/api/v1/games/{game}/hints")
        again = as_alice.post(f"/api/v1/games/{game}/hints")
        hint, replayed = taken.json(), again.json()
        events = as_alice.get(f"/api/v1/games/{game}/events").json()["results"]
        standings = api.get("/api/v1/challenges/today/standings").json()["results"]
        stale = as_alice.post(
            f"/api/v1/games/{game}/commands", {"type": "deal", "expected_version": 1}
        )
    assert refused.status_code == 409 and refused.json()["code"] == "hint_needs_post"
    assert taken.status_code == 201 and hint["recorded"] is True and hint["version"] == 2
    assert again.status_code == 200 and replayed["recorded"] is False
    assert replayed["version"] == 2 and replayed["move"] == hint["move"]
    assert [event["type"] for event in events] == ["created", "hinted"]
    assert events[1]["data"]["source"] == hint["source"]
    assert events[1]["effects"] == {"points": 0, "flipped": [], "removed": []}
    assert standings[0]["hints"] == 1
    assert stale.status_code == 409  # the hint moved the game on: clients follow `version`


def test_a_closed_day_shows_its_solution_and_difficulty(api) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        today = api.get("/api/v1/challenges/today").json()
    assert today["solution"] is None and today["difficulty"] is None
    with at(DAY + dt.timedelta(days=1)):
        closed = api.get("/api/v1/challenges/2026-11-30").json()
    assert closed["difficulty"] in ("easy", "medium", "hard", "expert")
    actions = [engine.action_from_command(command) for command in closed["solution"]]
    final = engine.replay(CLASSIC, engine.seeded_deal(CLASSIC, closed["seed"]), actions)
    assert final.status == engine.WON


def test_a_day_not_ready_is_503_with_retry_after(api) -> None:
    with at(DAY):
        response = api.get("/api/v1/challenges/today")
    assert response.status_code == 503
    assert response.json()["code"] == "challenge_not_ready"
    assert int(response.headers["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_watching_a_day_not_ready_closes_with_4503() -> None:
    async def scenario() -> int:
        communicator = WebsocketCommunicator(application, "/ws/challenges/today/")
        connected, _ = await communicator.connect(timeout=10)
        assert connected
        closed = await communicator.receive_output(timeout=10)
        await communicator.disconnect()
        return int(closed["code"])

    with at(DAY):
        assert asyncio.run(scenario()) == 4503


def test_analysis_is_refused_while_a_game_is_played_by_anyone(api, as_alice, as_staff) -> None:
    game = as_alice.post("/api/v1/games", {"seed": 0}).json()["id"]
    for client in (api, as_alice, as_staff):
        response = client.get(f"/api/v1/games/{game}/analysis")
        assert response.status_code == 409
        assert response.json()["code"] == "game_not_finished"
    assert api.get(f"/api/v1/games/{'0' * 32}/analysis").status_code == 404


def test_analysis_of_a_finished_game(api, as_alice) -> None:
    game = as_alice.post("/api/v1/games", {"seed": 0}).json()["id"]
    for command in ({"type": "deal"}, {"type": "resign"}):
        as_alice.post(f"/api/v1/games/{game}/commands", command)
    body = api.get(f"/api/v1/games/{game}/analysis").json()
    assert body["game"] == game and body["version"] == 3
    assert body["winnable"] is True and body["decided"] is True
    assert body["lost_at"] == 2 and body["last_winnable"] == 1
    actions = [engine.action_from_command(command) for command in body["line"]]
    assert engine.replay(CLASSIC, engine.seeded_deal(CLASSIC, 0), actions).status == engine.WON
    assert api.get(f"/api/v1/games/{game}/analysis").json() == body  # stored, not recomputed


def test_analysis_of_a_finished_daily_game_waits_for_the_day_to_end(as_alice, api) -> None:
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    with at(DAY):
        game = as_alice.post("/api/v1/challenges/today/join").json()["id"]
        as_alice.post(f"/api/v1/games/{game}/commands", {"type": "resign"})
        refused = as_alice.get(f"/api/v1/games/{game}/analysis")
        stranger = api.get(f"/api/v1/games/{game}/analysis")
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "analysis_not_yet",
        "detail": "The analysis of a game of a daily challenge, race or arena is available "
        "once it is over.",
    }
    assert stranger.status_code == 403 and stranger.json()["code"] == "challenge_in_progress"
    with at(DAY + dt.timedelta(days=1)):
        assert api.get(f"/api/v1/games/{game}/analysis").json()["winnable"] is True


def test_analysis_of_ones_own_race_game_waits_for_the_race_to_end(as_alice, as_bob) -> None:
    with at(DAY, 9):
        race = as_alice.post("/api/v1/races", {"countdown": 60, "time_limit": 600}).json()
        as_bob.post(f"/api/v1/races/{race['code']}/join")
    with at(DAY, 9, 2):  # bob still plays: the race runs
        game = as_alice.post(f"/api/v1/races/{race['id']}/games").json()["results"][0]["id"]
        as_alice.post(f"/api/v1/games/{game}/commands", {"type": "resign"})
        refused = as_alice.get(f"/api/v1/games/{game}/analysis")

    assert refused.status_code == 403 and refused.json()["code"] == "analysis_not_yet"
    assert "race" in refused.json()["detail"]
