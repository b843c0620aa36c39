"""The puzzle paths through the API (every answer checked against the OpenAPI document):
a rated puzzle judged move by move, why a losing move loses, in four languages, the
puzzle of the day, Streak, the dashboard of themes, and what a caller may not do."""

from __future__ import annotations

from typing import Any

import pytest

from games import clock, engine
from games.engine import puzzles as found
from games.puzzles.models import PuzzleDay
from games.puzzles.positions import state_of
from games.writes import puzzles as writing
from tests.puzzle_helpers import make_puzzle

pytestmark = pytest.mark.django_db


def as_command(
    move: str, ply: int | None = None, state: engine.State | None = None
) -> dict[str, Any]:
    body = engine.action_to_command(found.decode(move))
    if state is not None and body["type"] == "move" and "from" in body:
        body["card"] = engine.card_code(state.columns[body["from"] - 1][body["index"]])
    if ply is not None:
        body["ply"] = ply
    return body


def test_a_rated_puzzle_judged_move_by_move(as_alice, as_bob):
    puzzle = make_puzzle("open_two_ways")
    rules = engine.RULESETS["classic"]
    start = as_alice.post("/api/v1/puzzles/next")
    assert start.status_code == 200, start.content
    attempt = start.json()
    assert attempt["status"] == "playing" and attempt["mode"] == "rated" and attempt["rated"]
    assert attempt["puzzle"]["id"] == puzzle.id and attempt["puzzle"]["length"] == 3
    assert attempt["puzzle"]["themes"] is None and attempt["puzzle"]["solution"] is None
    assert {(m["from"], m["index"], m["to"]) for m in attempt["legal"] if "from" in m} >= {
        (7, 1, 4),
        (7, 7, 3),
        (7, 0, 5),
    }
    url = f"/api/v1/puzzles/attempts/{attempt['id']}"
    # Another player's attempt does not exist for them.
    assert as_bob.get(url).status_code == 404
    assert as_bob.post(f"{url}/moves", as_command("7-1-4")).status_code == 404
    state = state_of(rules, puzzle.position)
    moved = as_alice.post(f"{url}/moves", as_command("7-1-4", 0, state))
    assert moved.status_code == 200, moved.content
    assert moved.json()["verdict"] == "right"
    assert moved.json()["event"]["data"] == {"from": 7, "index": 1, "to": 4}
    assert moved.json()["attempt"]["moves"][0]["card"] == engine.card_code(state.columns[6][1])
    # The same move sent again (its answer lost) is answered again; a stale ply is refused.
    again = as_alice.post(f"{url}/moves", as_command("7-1-4", 0))
    assert again.status_code == 200 and len(again.json()["attempt"]["moves"]) == 1
    stale = as_alice.post(f"{url}/moves", as_command("7-7-3", 0))
    assert stale.status_code == 409 and stale.json()["code"] == "puzzle_moved_on"
    assert stale.json()["played"] == 1
    # A stale card is the same: the board the client drew is not the attempt's.
    wrong_card = {"type": "move", "from": 3, "index": 0, "to": 1, "card": "AS", "ply": 1}
    refused = as_alice.post(f"{url}/moves", wrong_card)
    assert refused.status_code == 409 and refused.json()["code"] == "puzzle_moved_on"
    state = engine.apply(state, found.decode("7-1-4"))[0]
    body = moved.json()["attempt"]
    while body["status"] == "playing":
        move = puzzle.tree[found.key(state)]["w"][0]
        answer = as_alice.post(f"{url}/moves", as_command(move, len(body["moves"]), state))
        assert answer.status_code == 200 and answer.json()["verdict"] == "right"
        body = answer.json()["attempt"]
        state = engine.apply(state, found.decode(move))[0]
    assert body["status"] == "solved"
    rating = body["rating"]
    assert (
        rating["after"] > rating["before"]
        and rating["change"] == rating["after"] - rating["before"]
    )
    # Once it ended, everything: themes, the solution, where it was found.
    assert body["puzzle"]["solution"] is not None and len(body["puzzle"]["solution"]) == 3
    assert body["puzzle"]["themes"] == list(puzzle.themes)
    assert body["puzzle"]["game"] == str(puzzle.source_game)
    assert body["legal"] == []
    over = as_alice.post(f"{url}/moves", as_command("1-0-2"))
    assert over.status_code == 409 and over.json()["code"] == "puzzle_over"


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "stuck for good"),
        ("it", "bloccat"),
        ("es", "atascad"),
        ("pt", "pres"),
    ],
)
def test_a_losing_move_ends_the_attempt_with_why_it_loses(as_alice, language, words):
    make_puzzle("open_two_ways")
    attempt = as_alice.post("/api/v1/puzzles/next").json()
    url = f"/api/v1/puzzles/attempts/{attempt['id']}"
    lost = as_alice.in_language(language).post(f"{url}/moves", as_command("7-0-5"))
    assert lost.status_code == 200
    body = lost.json()
    assert body["verdict"] == "wrong" and body["attempt"]["status"] == "failed"
    reason = body["attempt"]["reason"]
    assert reason["code"] == "under_it" and reason["card"] == "QH" and reason["needs"] == "KH"
    assert "Q\u2665" in reason["detail"] and "K\u2665" in reason["detail"]
    assert words in reason["detail"].lower(), reason["detail"]
    assert body["attempt"]["wrong"]["to"] == 5
    assert body["attempt"]["rating"]["change"] < 0


def test_a_move_that_wins_only_by_luck_is_wrong_and_says_how_it_could_lose(as_alice):
    puzzle = make_puzzle("hidden_only_move")
    attempt = as_alice.post("/api/v1/puzzles/next").json()
    assert attempt["puzzle"]["id"] == puzzle.id
    # Six cards unseen: while it is played they are null, and the reserve a count.
    assert sum(code is None for column in attempt["position"]["columns"] for code in column) == sum(
        puzzle.position["down"]
    )
    assert "reserve_cards" not in attempt["position"]
    url = f"/api/v1/puzzles/attempts/{attempt['id']}"
    lost = as_alice.post(f"{url}/moves", as_command("1-1-6")).json()
    reason = lost["attempt"]["reason"]
    assert reason["hidden"] and "were the unseen cards" in reason["detail"]
    # Ended: every card is shown.
    assert lost["attempt"]["position"]["reserve_cards"] == puzzle.position["reserve"]
    assert lost["attempt"]["position"]["columns"] == puzzle.position["columns"]


def test_a_move_that_changes_nothing_or_breaks_a_rule_leaves_the_attempt_going(as_alice):
    puzzle = make_puzzle("open_two_ways")
    attempt = as_alice.post("/api/v1/puzzles/next").json()
    url = f"/api/v1/puzzles/attempts/{attempt['id']}"
    state = state_of(engine.RULESETS["classic"], puzzle.position)
    renumber = next(
        a
        for a in engine.legal_actions(state)
        if found.renumbers(state, a, engine.apply(state, a)[1])
    )
    refused = as_alice.post(f"{url}/moves", engine.action_to_command(renumber))
    assert refused.status_code == 422 and refused.json()["code"] == "puzzle_no_progress"
    illegal = as_alice.post(f"{url}/moves", {"type": "move", "from": 3, "index": 0, "to": 1})
    assert illegal.status_code == 422
    assert as_alice.post(f"{url}/moves", {"type": "undo"}).status_code == 400
    assert as_alice.post(f"{url}/moves", {"type": "move", "from": 1}).status_code == 400
    assert as_alice.get(url).json()["status"] == "playing"
    # Giving up ends it failed, rated, with the solution.
    gave_up = as_alice.post(f"{url}/give-up")
    assert gave_up.status_code == 200
    assert gave_up.json()["status"] == "failed" and gave_up.json()["reason"]["code"] == "gave_up"
    assert gave_up.json()["puzzle"]["solution"]


def test_signed_in_only_and_no_puzzle_left(api, as_alice):
    assert api.post("/api/v1/puzzles/next").status_code == 401
    assert api.post("/api/v1/puzzles/streak").status_code == 401
    assert (
        api.get("/api/v1/puzzles/attempts/00000000-0000-0000-0000-000000000000").status_code == 401
    )
    none = as_alice.post("/api/v1/puzzles/next")
    assert none.status_code == 404 and none.json()["code"] == "no_puzzle"
    assert as_alice.get("/api/v1/puzzles/attempts/not-a-uuid").status_code == 404


def test_the_puzzle_of_the_day_end_to_end(api, as_alice):
    today = clock.now().date()
    before = api.get("/api/v1/puzzles/daily")
    assert before.status_code == 503 and before.json()["code"] == "puzzle_day_not_ready"
    make_puzzle("hidden_only_move")
    assert writing.puzzle_days_prepare(today) == [today]
    day = PuzzleDay.objects.get(date=today)
    shown = api.get("/api/v1/puzzles/daily").json()
    assert shown["date"] == today.isoformat() and shown["attempt"] is None
    started = as_alice.post("/api/v1/puzzles/daily")
    assert started.status_code == 200 and started.json()["mode"] == "daily"
    assert started.json()["puzzle"]["id"] == day.puzzle_id
    url = f"/api/v1/puzzles/attempts/{started.json()['id']}"
    solved = as_alice.post(f"{url}/moves", as_command("1-16-7", 0)).json()
    assert solved["attempt"]["status"] == "solved" and solved["attempt"]["rating"]["change"] > 0
    mine = as_alice.get("/api/v1/puzzles/daily").json()
    assert mine["attempt"]["id"] == started.json()["id"] and mine["plays"] == 1
    # Playing it again gives the same attempt, ended.
    assert as_alice.post("/api/v1/puzzles/daily").json()["status"] == "solved"


def test_streak_end_to_end(as_alice):
    for name in ("open_two_ways", "hidden_only_move", "reveal_then_open"):
        make_puzzle(name)
    assert as_alice.get("/api/v1/puzzles/streak").json() == {"current": None, "best": 0}
    play = as_alice.post("/api/v1/puzzles/streak").json()
    assert play["streak"]["status"] == "running" and play["attempt"]["mode"] == "streak"
    assert not play["attempt"]["rated"]
    ratings_seen = [play["attempt"]["puzzle"]["rating"]]
    solved = 0
    while True:
        attempt = play["attempt"]
        puzzle_id = attempt["puzzle"]["id"]
        from games.puzzles.models import Puzzle

        puzzle = Puzzle.objects.get(id=puzzle_id)
        url = f"/api/v1/puzzles/attempts/{attempt['id']}"
        if solved == 1:
            move = puzzle.tree[puzzle.key]["l"][0][0]  # the second puzzle: a mistake
            lost = as_alice.post(f"{url}/moves", as_command(move)).json()
            assert lost["verdict"] == "wrong" and lost["attempt"]["rating"] is None
            assert lost["attempt"]["streak"]["status"] == "ended"
            assert lost["attempt"]["streak"]["solved"] == 1
            break
        state = state_of(engine.RULESETS[puzzle.rules], puzzle.position)
        body = attempt
        while body["status"] == "playing":
            move = puzzle.tree[found.key(state)]["w"][0]
            body = as_alice.post(f"{url}/moves", as_command(move)).json()["attempt"]
            state = engine.apply(state, found.decode(move))[0]
        solved += 1
        play = as_alice.post("/api/v1/puzzles/streak").json()
        assert play["streak"]["solved"] == solved
        ratings_seen.append(play["attempt"]["puzzle"]["rating"])
    assert ratings_seen == sorted(ratings_seen)
    record = as_alice.get("/api/v1/puzzles/streak").json()
    assert record == {"current": None, "best": 1}


def test_the_dashboard_shows_the_themes_failed_most_first(api, as_alice, alice):
    for name in ("open_two_ways", "hidden_only_move", "reveal_then_open"):
        make_puzzle(name)
    for _ in range(3):
        attempt = as_alice.post("/api/v1/puzzles/next").json()
        as_alice.post(f"/api/v1/puzzles/attempts/{attempt['id']}/give-up")
    board = api.get("/api/v1/players/alice/puzzles").json()
    assert board["player"] == "alice" and board["failed"] == 3 and board["solved"] == 0
    assert board["rated"] == 3 and board["rating"] < 1500
    assert board["themes"] and all(row["failure"] == 1.0 for row in board["themes"])
    assert api.get("/api/v1/players/nobody/puzzles").status_code == 404
    themes = api.in_language("it").get("/api/v1/puzzles/themes").json()["results"]
    assert [t["id"] for t in themes] == list(found.THEMES)
    assert next(t for t in themes if t["id"] == "only_move")["name"] != "Only move"


def test_a_guest_plays_streak_but_is_never_rated(api):
    for name in ("open_two_ways", "hidden_only_move"):  # one for the day, one for Streak
        make_puzzle(name)
    assert writing.puzzle_days_prepare(clock.now().date()) == [clock.now().date()]
    token = api.post("/api/v1/auth/guest").json()["token"]
    guest = api.as_user(token)

    refusals = [guest.post("/api/v1/puzzles/next"), guest.post("/api/v1/puzzles/daily")]

    assert [(r.status_code, r.json()["code"]) for r in refusals] == [(403, "account_required")] * 2
    play = guest.post("/api/v1/puzzles/streak")
    assert play.status_code == 200 and not play.json()["attempt"]["rated"]
