"""Puzzles for tests: the fixtures' positions stored as mined puzzles, and the real game
they come from played through the services.

``tests/fixtures/puzzle_game.json`` is a classic game (seed 67) as the hint follower
played it, with a few random moves, to a win: positions 39 to 45 of it are puzzles.
``tests/fixtures/puzzle_positions.json`` holds three positions of such games.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from games import engine
from games.engine import puzzles as found
from games.puzzles import mining
from games.puzzles.models import Puzzle
from games.puzzles.positions import state_of
from games.store import log
from games.writes import services

FIXTURES = Path(__file__).resolve().parent / "fixtures"
POSITIONS: dict[str, dict[str, Any]] = json.loads((FIXTURES / "puzzle_positions.json").read_text())
GAME: dict[str, Any] = json.loads((FIXTURES / "puzzle_game.json").read_text())


def make_puzzle(name: str, *, game: uuid.UUID | None = None, version: int | None = None) -> Puzzle:
    """The fixture position ``name`` stored as the miner stores a puzzle."""
    data = POSITIONS[name]
    rules = engine.RULESETS[data["rules"]]
    state = state_of(rules, data)
    puzzle = found.examine(rules, state)
    assert puzzle is not None, name
    candidate = mining.Candidate(
        rules, state, puzzle, None, False, game=game or uuid.uuid4(), version=version or 1
    )
    assert mining._store([candidate], 1) == 1
    return Puzzle.objects.get(rules=rules.name, key=found.key(state))


def play_the_game(owner: Any) -> uuid.UUID:
    """The fixture game, played to its win by ``owner`` through the services: public, so
    that its finish enters it into the public log."""
    written = services.game_create(owner=owner, rules=GAME["rules"], seed=GAME["seed"])
    for command in GAME["line"]:
        services.game_command(game_id=written.game_id, actor=owner, command=command)
    return written.game_id


def settled(timeout: float = 120.0) -> None:
    """Wait until every transaction running now (anywhere in the cluster) has ended, so that
    what the test committed is below the public log's high-water mark, where the miner reads."""
    end = log.snapshot_end()
    deadline = time.monotonic() + timeout
    while log.horizon() < end:
        assert time.monotonic() < deadline, "a transaction stayed open for two minutes"
        time.sleep(0.05)
