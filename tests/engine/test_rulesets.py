"""Each ruleset's distinctive rules."""

import pytest

from games.engine import (
    RULESETS,
    CellMove,
    Deal,
    Move,
    RuleViolation,
    Undo,
    apply,
    is_blocked,
    legal_actions,
    parse_cards,
    player_view,
)

from .helpers import board, run

FILLER = ["QD", "9C", "6H", "3S"]  # tops that take nothing here and go nowhere


def cards(codes: str) -> tuple[int, ...]:
    return parse_cards(codes.split())


def test_classic_checks_only_the_destination_column() -> None:
    # Moving 5H away leaves a complete run of spades at the end of column 1.
    columns = [run("S") + " 5H", "6H", "", *FILLER]
    classic, effects = apply(board("classic", columns), Move(1, 13, 2))
    assert effects.removed == ()
    assert classic.columns[0] == cards(run("S"))
    # Every other ruleset checks every column.
    for name in ("cards4", "wasp", "scorpion2"):
        after, effects = apply(board(name, columns), Move(1, 13, 2))
        assert effects.removed == ((1, 0),), name
        assert after.columns[0] == () and after.removed == (0,)
        assert effects.points == 5 + 100


def test_classic_removes_a_run_completed_on_the_destination() -> None:
    state = board("classic", ["*3D *4D KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "AS", "", *FILLER])
    after, effects = apply(state, Move(2, 0, 1))
    assert effects.removed == ((1, 0),)
    assert effects.flipped == ((1, cards("4D")[0]),)
    assert effects.points == 5 + 100 + 5
    assert after.columns[0] == cards("3D 4D") and after.down[0] == 1
    assert after.removed == (0,) and after.score == 110


def test_traditional_and_open_leave_runs_on_the_tableau() -> None:
    for name in ("traditional", "open"):
        state = board(name, ["KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "AS", "", *FILLER])
        after, effects = apply(state, Move(2, 0, 1))
        assert effects.removed == () and effects.points == 5
        assert len(after.columns[0]) == 13 and after.status == "playing"


def test_traditional_wins_when_every_column_is_a_run_or_empty() -> None:
    state = board(
        "traditional",
        [run("S"), run("H"), run("D"), "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "AC", "", ""],
    )
    after, _ = apply(state, Move(5, 0, 4))
    assert after.status == "won"
    assert legal_actions(after) == []


def test_easy_builds_on_any_suit_without_points() -> None:
    columns = ["8S", "7H", "KC", *FILLER]
    with pytest.raises(RuleViolation, match="not_same_suit"):
        apply(board("classic", columns), Move(2, 0, 1))
    after, effects = apply(board("easy", columns), Move(2, 0, 1))
    assert after.columns[0] == cards("8S 7H") and effects.points == 0
    # Runs still need one suit.
    mixed = board("easy", ["KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "AH", "", *FILLER])
    _, effects = apply(mixed, Move(2, 0, 1))
    assert effects.removed == ()


def test_wasp_empty_columns_take_any_card() -> None:
    columns = ["", "5H 9C", "KC", *FILLER]
    with pytest.raises(RuleViolation, match="only_king_on_empty"):
        apply(board("classic", columns), Move(2, 0, 1))
    after, effects = apply(board("wasp", columns), Move(2, 0, 1))
    assert after.columns[0] == cards("5H 9C") and effects.points == 0


def test_cards4_refuses_a_whole_king_column_into_an_empty_one() -> None:
    columns = ["", "KH QH", "*2C KS", *FILLER]
    state = board("cards4", columns)
    with pytest.raises(RuleViolation, match="whole_column_king"):
        apply(state, Move(2, 0, 1))
    assert Move(2, 0, 1) not in legal_actions(state)
    assert Move(3, 1, 1) in legal_actions(state)
    assert Move(2, 0, 1) in legal_actions(board("classic", columns))


def test_deal_ignores_placement_and_fills_empty_columns() -> None:
    state = board("cards4", ["", "AS", "KH", *FILLER], reserve="5C 9H 2D")
    after, effects = apply(state, Deal())
    assert after.columns[:3] == (cards("5C"), cards("AS 9H"), cards("KH 2D"))
    assert after.reserve == () and effects.points == 0 and after.moves == 1


def test_deal_sequence_check_columns_differ_by_ruleset() -> None:
    # The deal completes nothing itself, but column 5 already ends in a complete run.
    columns = ["8S", "8H", "8C", "QD", run("S"), "JD", "TD"]
    classic, effects = apply(board("classic", columns, reserve="2C 3C 4C"), Deal())
    assert effects.removed == () and len(classic.columns[4]) == 13
    cards4, effects = apply(board("cards4", columns, reserve="2C 3C 4C"), Deal())
    assert effects.removed == ((5, 0),) and cards4.columns[4] == ()


def test_deal_can_complete_a_run() -> None:
    state = board(
        "classic", ["KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", "8S", "8C", *FILLER], reserve="AH 3C 4C"
    )
    after, effects = apply(state, Deal())
    assert effects.removed == ((1, 1),) and effects.points == 100
    assert after.columns[0] == () and after.removed == (1,)


def test_traditional_reserve_lock_and_loss() -> None:
    columns = ["8S", "7S", "KC", *FILLER]
    state = board("traditional", columns, reserve="2H 5D TH")
    assert Deal() not in legal_actions(state)
    with pytest.raises(RuleViolation, match="reserve_locked"):
        apply(state, Deal())
    stuck, _ = apply(state, Move(2, 0, 1))
    assert stuck.status == "playing" and not is_blocked(stuck)
    # Only the whole-column King move is left, and it does not count: the reserve unlocks.
    assert legal_actions(stuck) == [Move(3, 0, 2), Deal()]
    lost, _ = apply(stuck, Deal())
    assert lost.status == "lost"
    with pytest.raises(RuleViolation, match="game_over"):
        apply(lost, Undo())


def test_open_stays_playing_when_blocked_and_can_undo() -> None:
    state = board("open", ["8S", "7S", "KC", *FILLER], reserve="2H 5D TH")
    stuck, _ = apply(apply(state, Move(2, 0, 1))[0], Deal())
    assert stuck.status == "playing" and is_blocked(stuck)
    back, _ = apply(stuck, Undo())
    assert back.reserve and not is_blocked(back)


def test_blocked_ignores_whole_column_king_moves() -> None:
    state = board("classic", ["", "KH", "5C", *FILLER])
    assert legal_actions(state) == [Move(2, 0, 1)]
    assert is_blocked(state)
    assert player_view(state)["blocked"] is True
    assert state.status == "playing"
    with_reserve = board("classic", ["", "KH", "5C", *FILLER], reserve="2C 3C 4C")
    assert not is_blocked(with_reserve)


def test_repetition_rule_a_move_back_to_a_seen_position_is_not_progress() -> None:
    state = board("traditional", ["8S", "7S", "KC", *FILLER], reserve="2C 3C 4C")
    after_move = board("traditional", ["8S 7S", "", "KC", *FILLER], "2C 3C 4C")
    state.seen = state.seen | {after_move.position()}
    # The only move leads to a seen position, so the reserve may be dealt.
    assert Move(2, 0, 1) in legal_actions(state)
    assert Deal() in legal_actions(state)


def test_three_blind_mice_cells_play_onto_columns_and_are_never_played_onto() -> None:
    columns = ["8S", "7H", "", "QD", "JD", "TD", "9D", "*2C 5C", "*3C 4S", "*4C 2S"]
    state = board("three_blind_mice", columns, cells=["7S", "KH"])
    assert CellMove(1, 1) in legal_actions(state) and CellMove(2, 3) in legal_actions(state)
    after, effects = apply(state, CellMove(1, 1))
    assert after.columns[0] == cards("8S 7S") and effects.points == 5
    assert after.cells == (None, cards("KH")[0])
    assert player_view(after)["cells"] == [None, "KH"]
    after, effects = apply(after, CellMove(2, 3))
    assert after.columns[2] == cards("KH") and after.cells == (None, None)
    with pytest.raises(RuleViolation, match="bad_index"):
        apply(after, CellMove(2, 1))
    assert all(not isinstance(action, CellMove) for action in legal_actions(after))


def test_double_needs_eight_sequences_and_repeats_codes() -> None:
    columns = ["", run("S"), run("S"), run("H"), run("H"), run("D"), run("D"), run("C")]
    columns += ["KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "AC"]
    state = board("double", columns)
    assert state.columns[1] == state.columns[2]
    # Every other column is checked: six runs leave with the first move, the seventh too.
    after, effects = apply(state, Move(10, 0, 9))
    assert len(effects.removed) == 8 and after.status == "won"
    assert after.removed == (0, 0, 1, 1, 2, 2, 3, 3)
    seven = board("double", [*columns[:7], "", "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "AC"])
    after, effects = apply(seven, Move(10, 0, 9))
    assert len(after.removed) == 7 and after.status == "playing"


def test_double_deals_four_reserve_cards() -> None:
    rules = RULESETS["double"]
    assert rules.reserve_to == (0, 1, 2, 3)
    columns = ["9S", "9S", "9H", "9H", "QD", "JD", "TD", "9D", "8C", "8C"]
    after, _ = apply(board("double", columns, reserve="2C 2C 3C 3C"), Deal())
    assert [len(cards) for cards in after.columns[:5]] == [2, 2, 2, 2, 1]


def test_every_ruleset_is_described_for_the_api() -> None:
    described = {name: rules.describe() for name, rules in RULESETS.items()}
    assert described["classic"]["undo_depth"] == 100
    assert described["traditional"]["undo_depth"] == 0
    assert described["cards4"]["undo_depth"] is None
    assert described["double"]["sequences_to_win"] == 8
    assert described["three_blind_mice"]["cells"] == 2
    assert described["wasp"]["empty_column"] == "any"
    assert described["traditional"]["deal"] == "when_stuck"
