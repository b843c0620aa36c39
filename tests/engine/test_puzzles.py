"""Puzzles in the engine: what counts as one, its tree, the judge and why a move loses.

The positions (``tests/fixtures/puzzle_positions.json``) come from games of classic
deals played by the hint with a few random moves: a position with every card face up and
two winning moves, one with a single card face down whose winning move reveals it, and
one with six cards unseen where one move wins however they lie.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from games import engine
from games.engine import puzzles
from games.engine.solver import solve
from games.engine.state import position

FIXTURES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "puzzle_positions.json").read_text()
)


def state_of(name: str) -> engine.State:
    data: dict[str, Any] = FIXTURES[name]
    rules = engine.RULESETS[data["rules"]]
    return position(
        rules,
        columns=[engine.parse_cards(column) for column in data["columns"]],
        down=data["down"],
        reserve=engine.parse_cards(data["reserve"]),
        cells=[None if code is None else engine.parse_card(code) for code in data["cells"]],
        removed=["SHDC".index(letter) for letter in data["removed"]],
    )


def judge(found: puzzles.Found, state: engine.State, move: str, played: int) -> puzzles.Judged:
    tree = {key: node.to_json() for key, node in found.nodes.items()}
    return puzzles.judge(state, puzzles.decode(move), tree=tree, length=found.length, played=played)


@pytest.fixture(scope="module")
def open_two_ways() -> tuple[engine.State, puzzles.Found]:
    state = state_of("open_two_ways")
    found = puzzles.examine(state.rules, state)
    assert found is not None
    return state, found


def test_a_position_with_every_card_up_and_two_winning_moves_is_a_puzzle(open_two_ways):
    state, found = open_two_ways
    root = found.nodes[puzzles.key(state)]
    assert set(root.wins) == {"7-1-4", "7-7-3"}
    assert [move for move, _ in root.losses] == ["7-0-5"]
    assert (found.winning, found.choices, found.unseen, found.length) == (2, 3, 0, 3)
    # The line is legal, each move is a winning one, and the solver still wins after it.
    after = state
    for action in found.line:
        assert puzzles.encode(action) in found.nodes[puzzles.key(after)].wins
        after = engine.apply(after, action)[0]
        assert solve(state.rules, after, 20_000).verdict == "won"
    assert 0 <= found.difficulty <= 1


def test_every_winning_move_is_right_not_only_the_lines(open_two_ways):
    state, found = open_two_ways
    for move in ("7-1-4", "7-7-3"):
        judged = judge(found, state, move, 0)
        assert judged.verdict == "right"
        assert not judged.end  # three moves to find, and the next position still has a trap
    wrong = judge(found, state, "7-0-5", 0)
    assert wrong.verdict == "wrong" and wrong.end
    assert wrong.reason == {"code": "under_it", "card": "QH", "needs": "KH", "column": 5}
    assert solve(state.rules, wrong.state, 20_000).verdict == "lost"


def test_the_tree_answers_every_path_of_winning_moves(open_two_ways):
    """Every sequence of winning moves within the puzzle's length is judged from the tree
    alone (no position is missing), and each ends solved at the latest at the length."""
    state, found = open_two_ways
    tree = {key: node.to_json() for key, node in found.nodes.items()}
    ended = 0

    def walk(here: engine.State, played: int) -> None:
        nonlocal ended
        node = puzzles.Node.from_json(tree[puzzles.key(here)])
        assert node.wins, "a position reached by winning moves has a winning move"
        for move in node.wins:
            judged = puzzles.judge(
                here, puzzles.decode(move), tree=tree, length=found.length, played=played
            )
            assert judged.verdict == "right"
            if judged.end:
                ended += 1
                assert played + 1 <= found.length
                assert solve(here.rules, judged.state, 20_000).verdict == "won"
            else:
                walk(judged.state, played + 1)

    walk(state, 0)
    assert ended >= 2


def test_a_move_that_only_renumbers_columns_is_neither_right_nor_wrong():
    rules = engine.RULESETS["classic"]
    deck = engine.new_deck(1)
    # Every card up, the reserve dealt: a whole column (a King and its Queen) into an empty one.
    king, queen = engine.parse_card("KS"), engine.parse_card("QS")
    rest = [card for card in deck if card not in (king, queen)]
    state = position(
        rules,
        columns=[[king, queen], [], rest[:12], rest[12:24], rest[24:36], rest[36:], []],
        down=[0] * 7,
    )
    action = engine.Move(source=1, index=0, to=2)
    judged = puzzles.judge(state, action, tree={}, length=1, played=0)
    assert judged.verdict == "no_progress" and not judged.end


def test_with_cards_unseen_a_move_must_win_however_they_lie():
    state = state_of("hidden_only_move")
    assert puzzles.unseen(state) == 6
    worlds = list(puzzles.arrangements(state))
    assert len(worlds) == math.factorial(6)
    assert worlds[0].columns == state.columns and worlds[0].reserve == state.reserve
    found = puzzles.examine(state.rules, state)
    assert found is not None
    assert found.length == 1 and "hidden_cards" in found.themes and "only_move" in found.themes
    root = found.nodes[puzzles.key(state)]
    assert root.wins == ("1-16-7",)
    (move, reason), *_ = root.losses
    # The losing move wins as the cards really lie: its reason shows a way they could lie
    # where it loses, which is not the real one.
    real = [
        engine.card_code(card)
        for cards, down in zip(state.columns, state.down, strict=True)
        for card in cards[:down]
    ] + [engine.card_code(card) for card in state.reserve]
    assert reason["hidden"] != real and sorted(reason["hidden"]) == sorted(real)
    assert solve(state.rules, engine.apply(state, puzzles.decode(move))[0], 20_000).verdict == "won"
    # The winning move wins in every arrangement that can be won at all.
    action = puzzles.decode("1-16-7")
    for world in worlds:
        if solve(state.rules, world, 20_000).verdict == "won":
            assert solve(state.rules, engine.apply(world, action)[0], 20_000).verdict == "won"
    # An attempt ends at once: what follows depends on cards still unseen.
    judged = judge(found, state, "1-16-7", 0)
    assert judged.verdict == "right" and judged.end


def test_a_winning_move_that_reveals_every_card_goes_on_with_full_information():
    state = state_of("reveal_then_open")
    found = puzzles.examine(state.rules, state)
    assert found is not None and found.unseen == 1 and found.length == 5
    judged = judge(found, state, puzzles.encode(found.line[0]), 0)
    assert judged.verdict == "right" and not judged.end
    assert puzzles.unseen(judged.state) == 0


def test_positions_that_teach_nothing_are_not_puzzles(open_two_ways):
    state, _ = open_two_ways
    assert puzzles.examine(state.rules, state, max_winning=1) is None
    assert puzzles.examine(state.rules, state, min_losing=2) is None
    assert puzzles.examine(state.rules, state, max_length=2) is None
    # A fresh deal hides too much; a lost position has no answer.
    rules = engine.RULESETS["classic"]
    assert puzzles.examine(rules, engine.new_game(rules, engine.seeded_deal(rules, 0))) is None
    wrong = engine.apply(state, puzzles.decode("7-0-5"))[0]
    assert puzzles.examine(rules, wrong) is None
    # Rulesets where a move can be undone by another are not mined.
    assert not puzzles.supported(engine.RULESETS["easy"])
    assert not puzzles.supported(engine.RULESETS["wasp"])
    assert not puzzles.supported(engine.RULESETS["double"])
    assert puzzles.supported(engine.RULESETS["three_blind_mice"])


def test_examining_is_deterministic(open_two_ways):
    state, found = open_two_ways
    again = puzzles.examine(state.rules, state)
    assert again == found


def test_a_move_that_leaves_nothing_to_play_is_said_to_block_the_game():
    rules = engine.RULESETS["classic"]
    deck = engine.new_deck(1)
    # Each suit from Ace up to King, bottom to top: every card lies under its successor, so
    # nothing can move, and there is no empty column.
    suits = [list(deck[13 * s : 13 * s + 13]) for s in range(4)]
    columns = [s[:6] for s in suits[:3]] + [s[6:] for s in suits[:3]] + [suits[3]]
    stuck = position(rules, columns=columns, down=[0] * 7)
    assert not engine.legal_actions(stuck) and engine.is_blocked(stuck)
    assert puzzles.explain(rules, stuck, engine.Deal(), stuck, 1) == {"code": "blocked"}


def test_a_card_stuck_for_good_is_named_with_what_holds_it():
    state = state_of("open_two_ways")
    action = puzzles.decode("7-0-5")
    after = engine.apply(state, action)[0]
    reason = puzzles.explain(state.rules, state, action, after, 3)
    # The move leaves the QH above its own KH, in column 5: it can never go onto it.
    assert reason == {"code": "under_it", "card": "QH", "needs": "KH", "column": 5}


def test_a_move_is_written_and_read_back():
    for action in (
        engine.Move(source=3, index=12, to=7),
        engine.CellMove(cell=2, to=9),
        engine.Deal(),
    ):
        assert puzzles.decode(puzzles.encode(action)) == action
    with pytest.raises(ValueError):
        puzzles.encode(engine.Undo())


def test_arrangements_of_two_copies_are_counted_once():
    rules = engine.RULESETS["double"]
    deck = list(engine.new_deck(2))
    # The two 2♠ face down in one column: swapping them is the same arrangement.
    two = engine.parse_card("2S")
    rest = [c for c in deck if c != two]
    columns = [[two, two, *rest[:8]]] + [rest[8 + 10 * i : 18 + 10 * i] for i in range(9)]
    leftover = rest[98:]
    state = position(rules, columns=columns, down=[2] + [0] * 9, reserve=leftover)
    worlds = list(puzzles.arrangements(state))
    hidden = 2 + len(leftover)
    assert len(worlds) == len(set(itertools.permutations([two, two, *leftover])))
    assert len(worlds) < math.factorial(hidden)
