"""The solver: every won line replays through ``apply`` to a won state, in every ruleset."""

import pytest

from games.engine import RULESETS, apply, new_game, seeded_deal
from games.engine.solver import Solution, solve
from games.engine.state import WON


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_won_lines_replay_to_a_won_state(name: str) -> None:
    rules = RULESETS[name]
    decided = 0
    for seed in range(6):
        state = new_game(rules, seeded_deal(rules, seed))
        solution = solve(rules, state, budget=3000)
        assert solution.verdict in ("won", "lost", "unknown")
        assert 1 <= solution.nodes <= 3000
        if solution.verdict != "won":
            assert solution.line == ()
            continue
        decided += 1
        for action in solution.line:
            state = apply(state, action)[0]
        assert state.status == WON


def test_a_won_state_needs_no_line() -> None:
    rules = RULESETS["classic"]
    state = new_game(rules, seeded_deal(rules, 0))
    solution = solve(rules, state)
    assert solution.verdict == "won"
    for action in solution.line:
        state = apply(state, action)[0]
    assert solve(rules, state) == Solution("won", (), 0)


def test_the_state_must_be_of_the_rules() -> None:
    state = new_game(RULESETS["classic"], seeded_deal(RULESETS["classic"], 0))
    with pytest.raises(ValueError):
        solve(RULESETS["easy"], state)
