"""Every rejection code of docs/rules.md, provoked on purpose, and their precedence."""

import pytest

from games.engine import (
    RULESETS,
    CellMove,
    Deal,
    Move,
    Resign,
    Restart,
    RuleViolation,
    Undo,
    apply,
    new_game,
    parse_cards,
)
from games.engine.errors import REJECTIONS
from games.engine.state import State

from .helpers import board, run, snapshot


def refuse(state: State, action: object) -> str:
    before = snapshot(state)
    with pytest.raises(RuleViolation) as caught:
        apply(state, action)
    assert snapshot(state) == before, "a refused action changed the state"
    return caught.value.code


@pytest.fixture
def sample_state(sample_deal: list[str]) -> State:
    return new_game(RULESETS["classic"], parse_cards(sample_deal))


def test_game_over_after_resign_for_every_action(sample_state: State) -> None:
    over, _ = apply(sample_state, Resign())
    assert over.status == "resigned"
    for action in (Move(2, 5, 7), Deal(), Undo(), Restart(), Resign(), Move(9, 9, 9)):
        assert refuse(over, action) == "game_over"


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (Move(0, 3, 7), "bad_column"),
        (Move(8, 3, 7), "bad_column"),
        (Move(2, 5, 0), "bad_column"),
        (Move(2, 99, 8), "bad_column"),  # the column is checked before the index
        (Move(2, 7, 7), "bad_index"),
        (Move(2, -1, 7), "bad_index"),
        (Move(2, 5, 2), "same_column"),
        (Move(2, 99, 2), "bad_index"),
        (Move(2, 0, 7), "card_face_down"),
        (Move(2, 2, 2), "same_column"),  # same column before face-down
        (Move(1, 3, 2), "wrong_rank"),  # 3D onto 7S
        (Move(7, 6, 1), "wrong_rank"),  # 5H onto 3S
        (Move(5, 6, 3), "wrong_rank"),  # 5C onto 3H
        (Move(3, 3, 2), "wrong_rank"),  # AS onto 7S: nothing goes below an Ace's rank
    ],
)
def test_move_codes_on_the_sample_deal(sample_state: State, move: Move, code: str) -> None:
    assert refuse(sample_state, move) == code


def test_not_same_suit_right_rank_wrong_suit() -> None:
    state = board(
        "classic",
        ["8S", "7H", "KC", "QD", "JD", "TD", "9D"],
    )
    assert refuse(state, Move(2, 0, 1)) == "not_same_suit"
    assert refuse(state, Move(3, 0, 1)) == "wrong_rank"


def test_nothing_goes_onto_an_ace() -> None:
    state = board("easy", ["AS", "2H", "KC", "QD", "JD", "TD", "9D"])
    assert refuse(state, Move(2, 0, 1)) == "wrong_rank"


def test_only_king_on_empty_and_whole_column_king() -> None:
    columns = ["", "QH", "KS", "*3D KD QD", "JD", "TD", "9D"]
    classic = board("classic", columns)
    assert refuse(classic, Move(2, 0, 1)) == "only_king_on_empty"
    apply(classic, Move(3, 0, 1))  # classic allows the pointless whole-column move
    cards4 = board("cards4", columns)
    assert refuse(cards4, Move(2, 0, 1)) == "only_king_on_empty"
    assert refuse(cards4, Move(3, 0, 1)) == "whole_column_king"
    # A King over face-down cards leaves a card behind: allowed.
    after, effects = apply(cards4, Move(4, 1, 1))
    assert after.columns[0] == parse_cards(["KD", "QD"])
    assert effects.flipped == ((4, parse_cards(["3D"])[0]),)


def test_only_king_on_empty_comes_before_whole_column_king() -> None:
    state = board("cards4", ["", "QH", "KS", "KD", "JD", "TD", "9D"])
    assert refuse(state, Move(2, 0, 1)) == "only_king_on_empty"


def test_reserve_empty_and_reserve_locked() -> None:
    dealt = board("classic", ["8S", "7H", "KC", "QD", "JD", "TD", "9D"])
    assert refuse(dealt, Deal()) == "reserve_empty"
    locked = board("traditional", ["8S", "7S", "KC", "QD", "JD", "TD", "9D"], reserve="2C 3C 4C")
    assert refuse(locked, Deal()) == "reserve_locked"
    both = board("traditional", ["8S", "7S", "KC", "QD", "JD", "TD", "9D"])
    assert refuse(both, Deal()) == "reserve_empty"


def test_nothing_to_undo_and_undo_limit(sample_state: State) -> None:
    assert refuse(sample_state, Undo()) == "nothing_to_undo"
    traditional = new_game(RULESETS["traditional"], sample_state.deal)
    assert refuse(traditional, Undo()) == "nothing_to_undo"
    moved, _ = apply(traditional, Move(2, 5, 7))
    assert refuse(moved, Undo()) == "undo_limit"
    restarted, _ = apply(apply(sample_state, Move(2, 5, 7))[0], Restart())
    assert refuse(restarted, Undo()) == "nothing_to_undo"


def test_cell_codes() -> None:
    state = board(
        "three_blind_mice",
        ["8S", "7H", "KC", "QD", "JD", "TD", "9D", "", "5C", "2S"],
        cells=["QH", None],
    )
    assert refuse(state, CellMove(3, 1)) == "bad_column"
    assert refuse(state, CellMove(1, 11)) == "bad_column"
    assert refuse(state, CellMove(2, 1)) == "bad_index"
    assert refuse(state, CellMove(1, 8)) == "only_king_on_empty"
    assert refuse(state, CellMove(1, 1)) == "wrong_rank"
    assert refuse(state, Deal()) == "reserve_empty"


def test_every_code_is_provoked_somewhere() -> None:
    # Kept in step with REJECTIONS: a new code needs a test above.
    assert list(REJECTIONS) == [
        "game_over",
        "bad_column",
        "bad_index",
        "same_column",
        "card_face_down",
        "only_king_on_empty",
        "whole_column_king",
        "not_same_suit",
        "wrong_rank",
        "reserve_empty",
        "reserve_locked",
        "nothing_to_undo",
        "undo_limit",
    ]


def test_completed_run_is_not_a_code_source() -> None:
    # A run K..A with an extra card on top is not removed and is a legal group to move.
    state = board("classic", [run("S") + " 5H", "6H", "", "QD", "JD", "TD", "9D"])
    after, effects = apply(state, Move(1, 13, 2))
    assert effects.removed == () and effects.points == 5
    assert len(after.columns[0]) == 13
