"""Auto-finish in the engine: a position with nothing hidden is decided from the player's
view alone, and a won verdict's line wins the game when played."""

import pytest

from games import engine
from games.engine.finish import finish, ready
from tests.golden import WIN

RULES = engine.RULESETS["classic"]


def after(count: int) -> engine.State:
    state = engine.new_game(RULES, engine.seeded_deal(RULES, WIN["seed"]))
    for command in WIN["actions"][:count]:
        state, _ = engine.apply(state, engine.action_from_command(command))
    return state


def test_a_view_with_nothing_hidden_finishes_with_a_line_that_wins():
    state = after(47)
    view = engine.player_view(state)
    assert ready(view)
    found = finish(RULES, view)
    assert found.verdict == "won" and found.line
    for action in found.line:
        state, _ = engine.apply(state, action)
    assert state.status == engine.WON


def test_a_view_that_hides_a_card_is_not_ready():
    view = engine.player_view(after(46))
    assert not ready(view)
    with pytest.raises(ValueError):
        finish(RULES, view)


def test_a_position_with_no_win_is_lost_with_no_line():
    # Every card face up and each suit's King under its own Queen: nothing can ever move
    # a King, so no run completes.
    columns = [
        [engine.parse_card(code) for code in column]
        for column in (
            ["QS", "KS"], ["QH", "KH"], ["QD", "KD"], ["QC", "KC"],
            ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS"],
            ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"],
            ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD",
             "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC"],
        )
    ]  # fmt: skip
    state = engine.state.position(RULES, columns=columns, down=[0] * 7)
    found = finish(RULES, engine.player_view(state))
    assert found.verdict == "lost" and found.line == ()
