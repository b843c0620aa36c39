"""The solver: every won line replays through ``apply`` to a won state, in every ruleset."""

import random

import pytest

from games.engine import RULESETS, apply, new_game, seeded_deal, solver
from games.engine.solver import PROBE_NODES, Solution, solve, systematic
from games.engine.solver.search import Search
from games.engine.state import WON, position


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


def test_lost_never_contradicts_a_search_without_safe_joins() -> None:
    """On whole deals: every deal proved lost stays unwon for a second search that makes
    no safe join (bounded, so some of those end unknown, never won); and traditional and
    open, which differ only in what happens once stuck, win the same deals."""
    traditional, open_ = RULESETS["traditional"], RULESETS["open"]
    lost = 0
    for seed in range(20):
        state = new_game(traditional, seeded_deal(traditional, seed))
        solution = solve(traditional, state)
        other = solve(open_, new_game(open_, seeded_deal(open_, seed)))
        assert other.verdict == solution.verdict
        if solution.verdict == "lost":
            lost += 1
            verdict, _, _ = Search(traditional, state, safe_joins=False).run(5_000)
            assert verdict != "won"
    assert lost >= 10


def test_a_run_completed_in_place_leaves_by_a_whole_column_move() -> None:
    """Found by a two-suit cross-check: hearts end as one run at the bottom of a column
    (completed there by a pile that carried more cards, later moved away). Where runs
    leave from the destination, only moving that whole column into an empty one takes
    it off the table; the solver once never tried it and called this won deal lost."""
    classic = RULESETS["classic"]
    state = position(
        classic,
        columns=[
            [5, 4],
            [],
            [12, 0, 14, 10, 9, 13],
            [],
            [],
            [25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 8, 7, 6, 1],
            [],
        ],
        down=[0, 0, 3, 0, 0, 0, 0],
        reserve=[11, 2, 3],
        cells=[],
        removed=[2, 3],
    )
    solution = solve(classic, state, budget=10**6)
    assert solution.verdict == "won"
    after = state
    for action in solution.line:
        after = apply(after, action)[0]
    assert after.status == WON


@pytest.mark.parametrize(
    "name", sorted(n for n, r in RULESETS.items() if r.decks == 1 and r.same_suit)
)
def test_one_target_moves_are_the_general_moves(name: str) -> None:
    """With one deck and same-suit building the moves are found from each column's top
    (through where each card is): the same moves as the general scan of every face-up card,
    and in wasp (any card into an empty column) in the same order, so both search alike."""
    rules = RULESETS[name]
    rng = random.Random(name)
    compared = 0
    for seed in range(30):
        fast = Search(rules, new_game(rules, seeded_deal(rules, seed)))
        general = Search(rules, new_game(rules, seeded_deal(rules, seed)))
        general.one_target = False
        node = fast.root
        for _ in range(60):
            steps, progress = fast.moves(node)
            expected, expected_progress = general.moves(node)
            assert progress == expected_progress
            if rules.king_only_on_empty:
                assert sorted(steps) == sorted(expected)
            else:
                assert steps == expected
            compared += 1
            kids = fast.children(node)
            if not kids:
                break
            node = rng.choice(kids)
    assert compared >= 400


def test_any_suit_building_searches_the_same_suit_game_first() -> None:
    """easy is classic with building on any suit: a classic won line is an easy won line
    (replayed here under easy), found by the smaller search; the any-suit search follows
    only a classic proof of loss, with the budget that is left. Within the first turn of
    the systematic search (PROBE_NODES) nothing else runs."""
    easy, classic = RULESETS["easy"], RULESETS["classic"]
    budget = PROBE_NODES
    cases = {"won": 0, "lost": 0}
    for seed in range(30):
        state = new_game(easy, seeded_deal(easy, seed))
        same_suit = solve(classic, new_game(classic, seeded_deal(classic, seed)), budget)
        solution = solve(easy, state, budget)
        if same_suit.verdict == "won":
            cases["won"] += 1
            assert solution == same_suit
            for action in solution.line:
                state = apply(state, action)[0]
            assert state.status == WON
        elif same_suit.verdict == "lost":
            cases["lost"] += 1
            verdict, line, nodes = Search(easy, state).run(budget - same_suit.nodes)
            assert solution == Solution(verdict, line, same_suit.nodes + nodes)
        else:
            assert solution == Solution("unknown", (), budget)
    assert cases["won"] >= 3 and cases["lost"] >= 3


@pytest.mark.parametrize(("name", "seed"), [("double", 15), ("double", 18), ("easy", 9)])
def test_probes_win_deals_that_one_search_does_not(name: str, seed: int) -> None:
    """Past its first turn the systematic search shares the budget with probes (moves in a
    random order seeded from the position): these deals are won within 20,000 nodes, and
    the systematic search alone, as solve was before the probes, does not win them with
    as many."""
    rules = RULESETS[name]
    state = new_game(rules, seeded_deal(rules, seed))
    solution = solve(rules, state, budget=20_000)
    assert solution.verdict == "won" and solution.nodes > PROBE_NODES
    assert systematic(rules, state, 20_000).verdict == "unknown"
    for action in solution.line:
        state = apply(state, action)[0]
    assert state.status == WON
    # The probes' order comes from the position alone: the same answer again.
    assert solve(rules, new_game(rules, seeded_deal(rules, seed)), budget=20_000) == solution


def test_a_search_goes_on_where_it_stopped() -> None:
    """Search.run again with a larger budget searches what one call with it would."""
    rules = RULESETS["classic"]
    for seed in range(6):
        state = new_game(rules, seeded_deal(rules, seed))
        once = Search(rules, state).run(4000)
        twice = Search(rules, state)
        first = twice.run(700)
        if first[0] != "unknown":
            assert first == once
            continue
        assert first[2] == 700
        assert twice.run(4000) == once
        assert twice.run(9000) == (once if once[0] != "unknown" else twice.run(9000))


def test_a_focused_probe_never_proves_a_deal_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """easy's probes are focused (a card goes onto another suit only for a reason), so the
    end of one proves nothing. Here they leave out every move but the deal, and end after
    two positions, long before the systematic search finds the win: solve still wins."""
    monkeypatch.setattr(solver, "PROBE_NODES", 3)
    monkeypatch.setattr(Search, "focused", lambda self, columns, steps: [])
    easy = RULESETS["easy"]
    state = new_game(easy, seeded_deal(easy, 0))
    probe = Search(easy, state, jitter=random.Random(0), focus=True)
    assert probe.run(10) == ("lost", (), 2)
    solution = solve(easy, state, budget=10_000)
    assert solution.verdict == "won" and solution.nodes > 300
    for action in solution.line:
        state = apply(state, action)[0]
    assert state.status == WON


def test_focused_moves_are_some_of_the_moves() -> None:
    """A focused probe only leaves moves out, and in easy it does leave some out."""
    easy = RULESETS["easy"]
    left_out = 0
    for seed in range(5):
        state = new_game(easy, seeded_deal(easy, seed))
        search = Search(easy, state)
        focused = Search(easy, state, focus=True)
        for child in search.children(search.root)[:8]:
            steps = search.moves(child)[0]
            kept = focused.moves(child)[0]
            assert set(kept) <= set(steps)
            left_out += len(steps) - len(kept)
    assert left_out > 0


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_won_lines_never_hold_a_lost_position(name: str) -> None:
    """No position along a won line is one that stranded cards or two copies with one place
    call lost as it stands.
    The lines come from a search that checks neither (safe joins off), so the check is
    not judging positions it chose itself (docs/solvability.md has the same on the won
    lines of 1,938 double deals)."""
    rules = RULESETS[name]
    lines = 0
    for seed in range(30):
        state = new_game(rules, seeded_deal(rules, seed))
        verdict, line, _ = Search(rules, state, safe_joins=False).run(3000)
        if verdict != "won":
            continue
        lines += 1
        for action in line:
            search = Search(rules, state)
            assert not search.stranded(search.root.columns, search.free(search.root)), seed
            state = apply(state, action)[0]
    assert lines >= 3, lines
