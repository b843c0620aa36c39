"""Undo restores everything an action caused; depth limits per ruleset; restart."""

import pytest

from games.engine import (
    RULESETS,
    Deal,
    Move,
    Restart,
    RuleViolation,
    Undo,
    apply,
    new_game,
    parse_cards,
    player_view,
)

from .helpers import board, snapshot


def board_of(state):
    return (state.columns, state.down, state.reserve, state.cells, state.removed, state.score)


def test_undo_restores_flip_removed_run_and_points() -> None:
    state = board(
        "classic",
        ["*3D *4D KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "*9H AS", "", "QD", "9C", "6H", "3S"],
    )
    after, effects = apply(state, Move(2, 1, 1))
    assert effects.points == 5 + 100 + 5 + 5  # same suit, run, two flips
    assert len(effects.flipped) == 2 and effects.removed == ((1, 0),)
    back, undo = apply(after, Undo())
    assert board_of(back) == board_of(state)
    assert undo.points == -effects.points and undo.undid == after.ply
    assert (back.moves, back.undos, back.ply) == (1, 1, 2)
    assert player_view(back)["columns"] == player_view(state)["columns"]


def test_undo_reverts_a_deal() -> None:
    state = board("classic", ["8S", "7H", "KC", "QD", "9C", "6H", "3S"], reserve="2C 3C 4C")
    dealt, _ = apply(state, Deal())
    back, effects = apply(dealt, Undo())
    assert board_of(back) == board_of(state) and back.reserve
    assert effects.points == 0


def test_undo_walks_back_several_actions_in_order(sample_deal: list[str]) -> None:
    start = new_game(RULESETS["classic"], parse_cards(sample_deal))
    one, _ = apply(start, Move(2, 5, 7))
    two, _ = apply(one, Deal())
    back_one, first = apply(two, Undo())
    back_start, second = apply(back_one, Undo())
    assert board_of(back_one) == board_of(one) and board_of(back_start) == board_of(start)
    assert (first.undid, second.undid) == (2, 1)
    with pytest.raises(RuleViolation, match="nothing_to_undo"):
        apply(back_start, Undo())
    assert back_start.moves == 2 and back_start.undos == 2


def shuttle(rules: str, count: int):
    """``count`` legal moves of a lone King between two empty columns."""
    state = board(rules, ["KH", "", "", "QD", "9C", "6H", "3S"])
    for step in range(count):
        source = 1 + step % 2
        state, _ = apply(state, Move(source, 0, 3 - source))
    return state


def test_classic_undo_reaches_back_exactly_100_actions() -> None:
    state = shuttle("classic", 150)
    for _ in range(100):
        state, _ = apply(state, Undo())
    assert state.undos == 100
    before = snapshot(state)
    with pytest.raises(RuleViolation, match="undo_limit"):
        apply(state, Undo())
    assert snapshot(state) == before
    # New actions earn undo depth again.
    state, _ = apply(state, Move(2, 0, 1) if state.columns[1] else Move(1, 0, 2))
    state, _ = apply(state, Undo())


def test_unlimited_undo_goes_back_to_the_deal() -> None:
    start = shuttle("wasp", 0)
    state = shuttle("wasp", 300)
    for _ in range(300):
        state, _ = apply(state, Undo())
    assert board_of(state) == board_of(start)
    with pytest.raises(RuleViolation, match="nothing_to_undo"):
        apply(state, Undo())


def test_restart_returns_to_the_deal_and_clears_undo(sample_deal: list[str]) -> None:
    start = new_game(RULESETS["classic"], parse_cards(sample_deal))
    moved, _ = apply(start, Move(2, 5, 7))
    restarted, effects = apply(moved, Restart())
    assert effects.points == -5 and restarted.score == 0
    assert board_of(restarted) == board_of(start)
    assert (restarted.moves, restarted.undos, restarted.ply) == (1, 0, 2)
    with pytest.raises(RuleViolation, match="nothing_to_undo"):
        apply(restarted, Undo())


def test_traditional_restart_is_allowed_undo_never(sample_deal: list[str]) -> None:
    state = new_game(RULESETS["traditional"], parse_cards(sample_deal))
    moved, _ = apply(state, Move(2, 5, 7))
    with pytest.raises(RuleViolation, match="undo_limit"):
        apply(moved, Undo())
    restarted, _ = apply(moved, Restart())
    assert board_of(restarted) == board_of(state)
