"""Puzzles end to end, through a real server (``manage.py serve``: daphne and its job
workers on procrastinate) on real PostgreSQL: a game played to its end through the API is
mined by the server's job, its puzzle of the day chosen by the scheduled job; players solve
the day's puzzle, run a streak until its end and its best is kept, play rated puzzles with
winning moves that are not the solver's and with losing moves (refused with why they
lose), several finishing at the same moment; then ``rebuild_projections`` gives back
exactly the ratings the server served. Every body read before an attempt ends is checked
for its unseen cards and its answer, and the source game's feed gets no frame."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from typing import Any

import httpx
import pytest
from django.core.management import call_command
from websockets.sync.client import connect

from games import clock, engine
from games.engine import puzzles as found
from games.puzzles.models import (
    Puzzle,
    PuzzleDay,
    PuzzlePlayer,
    PuzzleRating,
    PuzzleRatingChange,
    PuzzleResult,
)
from games.puzzles.positions import state_of
from tests.e2e.players import register
from tests.e2e.test_jobs import _alive, _workers_of
from tests.puzzle_helpers import GAME

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def command(move: str, ply: int) -> dict[str, Any]:
    return {**engine.action_to_command(found.decode(move)), "ply": ply}


def sealed(text: str, state: engine.State, puzzle: Puzzle) -> None:
    """A body sent while an attempt is played: no card unseen in ``state`` (the attempt's
    position), nothing of the answer, not where it was found."""
    unseen = [
        engine.card_code(card)
        for cards, down in zip(state.columns, state.down, strict=True)
        for card in cards[:down]
    ] + [engine.card_code(card) for card in state.reserve]
    for code in unseen:
        assert not re.search(rf'"{code}"', text), code
    assert str(puzzle.source_game) not in text and puzzle.key not in text
    body = json.loads(text)
    attempt = body.get("attempt", body) or {}
    if "puzzle" in attempt and attempt.get("status") == "playing":
        answer = {key: attempt["puzzle"][key] for key in ("themes", "solution", "game", "played")}
        assert set(answer.values()) == {None}, answer


def solve(
    client: httpx.Client, attempt: dict[str, Any], puzzle: Puzzle, first: str | None = None
) -> dict[str, Any]:
    """Play ``attempt`` to its end with winning moves (``first`` the first of them); every
    body read or answered before the end is :func:`sealed`."""
    state = state_of(engine.RULESETS[puzzle.rules], puzzle.position)
    while attempt["status"] == "playing":
        sealed(client.get(f"/api/v1/puzzles/attempts/{attempt['id']}").text, state, puzzle)
        move = first or puzzle.tree[found.key(state)]["w"][0]
        first = None
        answer = client.post(
            f"/api/v1/puzzles/attempts/{attempt['id']}/moves",
            json=command(move, len(attempt["moves"])),
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["verdict"] == "right"
        attempt = answer.json()["attempt"]
        state = engine.apply(state, found.decode(move))[0]
        if attempt["status"] == "playing":
            sealed(answer.text, state, puzzle)
    return attempt


def snapshot() -> dict[str, list[tuple[Any, ...]]]:
    """Every puzzle rating row, every column, floats compared exactly."""
    return {
        "players": list(PuzzlePlayer.objects.order_by("player_id").values_list()),
        "puzzles": list(PuzzleRating.objects.order_by("puzzle_id").values_list()),
        "changes": list(PuzzleRatingChange.objects.order_by("result_id").values_list()),
    }


def test_puzzles_from_a_real_game_to_a_rebuild_through_a_real_server(live_server_factory) -> None:
    server = live_server_factory(
        serve=True,
        JOBS_WORKER="local",
        POOL_TARGET="0",  # no pool to fill: the solver's worker mines puzzles
        PUZZLE_MINE_SECONDS="30",
    )
    feeds = contextlib.ExitStack()
    try:
        # --- a real game, played to its win through the API -----------------------------
        owner = register(server.http, "source")
        game = owner.post("/api/v1/games", json={"rules": GAME["rules"], "seed": GAME["seed"]})
        assert game.status_code == 201, game.text
        game_id = game.json()["id"]
        for step in GAME["line"]:
            assert owner.post(f"/api/v1/games/{game_id}/commands", json=step).status_code == 201
        assert owner.get(f"/api/v1/games/{game_id}").json()["status"] == "won"

        # --- the server's jobs mine it, then choose today's puzzle ----------------------
        today = clock.now().date()
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if (
                Puzzle.objects.filter(source_game=game_id).count() == 2
                and PuzzleDay.objects.filter(date=today).exists()
            ):
                break
            time.sleep(1)
        else:
            pytest.fail(f"no puzzle mined or no day chosen:\n{server.log_text()}")
        day = PuzzleDay.objects.select_related("puzzle").get(date=today)
        other = Puzzle.objects.filter(source_game=game_id).exclude(id=day.puzzle_id).get()
        # The source game is public and finished: its feed shows every card. Puzzles have no
        # feed of their own, and playing them sends nothing on the game's.
        spectator = feeds.enter_context(connect(f"{server.ws}/ws/games/{game_id}/"))
        assert json.loads(spectator.recv(timeout=30))["type"] == "snapshot"

        # --- the puzzle of the day, end to end -------------------------------------------
        solver = register(server.http, "dayplayer")
        start = state_of(engine.RULESETS[day.puzzle.rules], day.puzzle.position)
        sealed(solver.get("/api/v1/puzzles/daily").text, start, day.puzzle)
        shown = solver.get("/api/v1/puzzles/daily").json()
        assert shown["date"] == today.isoformat() and shown["attempt"] is None
        started = solver.post("/api/v1/puzzles/daily")
        sealed(started.text, start, day.puzzle)
        attempt = started.json()
        assert attempt["mode"] == "daily" and attempt["puzzle"]["id"] == day.puzzle_id
        assert attempt["puzzle"]["game"] is None  # where it was found: not before the end
        ended = solve(solver, attempt, day.puzzle)
        assert ended["status"] == "solved" and ended["rating"]["change"] > 0
        assert ended["puzzle"]["game"] == game_id

        # --- Streak: the puzzle that is not the day's, then it ends complete ------------
        runner = register(server.http, "streaker")
        play = runner.post("/api/v1/puzzles/streak").json()
        assert play["attempt"]["puzzle"]["id"] == other.id and not play["attempt"]["rated"]
        solve(runner, play["attempt"], other)
        done = runner.post("/api/v1/puzzles/streak").json()
        assert done["attempt"] is None and done["streak"]["status"] == "ended"
        assert done["streak"]["solved"] == 1
        assert runner.get("/api/v1/puzzles/streak").json() == {"current": None, "best": 1}
        loser = register(server.http, "streakloser")
        play = loser.post("/api/v1/puzzles/streak").json()
        wrong = other.tree[other.key]["l"][0][0]
        lost = loser.post(
            f"/api/v1/puzzles/attempts/{play['attempt']['id']}/moves", json=command(wrong, 0)
        ).json()
        assert lost["verdict"] == "wrong" and lost["attempt"]["streak"]["status"] == "ended"
        assert lost["attempt"]["reason"]["detail"] and lost["attempt"]["rating"] is None

        # --- rated: eight players at once, right and wrong moves -------------------------
        players = [register(server.http, f"rated{n}") for n in range(8)]
        attempts = [p.post("/api/v1/puzzles/next").json() for p in players]
        assert {a["puzzle"]["id"] for a in attempts} == {other.id}
        root = other.tree[other.key]
        start = threading.Barrier(len(players))
        answers: list[Any] = [None] * len(players)

        def play_one(n: int) -> None:
            start.wait()
            if n % 3 == 0:  # a losing move: refused with why it loses
                move = root["l"][n % len(root["l"])][0]
                answers[n] = (
                    players[n]
                    .post(
                        f"/api/v1/puzzles/attempts/{attempts[n]['id']}/moves", json=command(move, 0)
                    )
                    .json()
                )
            else:  # any winning move, not only the solver's
                answers[n] = solve(
                    players[n], attempts[n], other, first=root["w"][n % len(root["w"])]
                )

        threads = [threading.Thread(target=play_one, args=(n,)) for n in range(len(players))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for n, answer in enumerate(answers):
            if n % 3 == 0:
                assert answer["verdict"] == "wrong", answer
                assert answer["attempt"]["reason"]["code"] in {
                    reason["code"] for _, reason in root["l"]
                }
                assert answer["attempt"]["rating"]["change"] < 0
            else:
                assert answer["status"] == "solved" and answer["rating"]["change"] > 0
        assert PuzzleResult.objects.filter(rated=True).count() == 9

        with pytest.raises(TimeoutError):
            spectator.recv(timeout=1)

        # --- the rebuild gives back the same bits ----------------------------------------
        served = snapshot()
        assert PuzzleRating.objects.get(puzzle=other).rated == 8
        call_command("rebuild_projections")
        assert snapshot() == served
        board = httpx.get(f"{server.http}/api/v1/players/rated1/puzzles", timeout=30).json()
        mine = PuzzlePlayer.objects.get(player__username="rated1")
        assert board["rating"] == mine.rating and board["solved"] == 1
    finally:
        feeds.close()
        workers = _workers_of(server.process.pid)
        server.process.terminate()  # no worker left to write after this test's cleanup
        server.process.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.2)
