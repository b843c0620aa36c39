"""The native solver core against the Python one: the same answers, strictly.

On the same deals of every ruleset both cores must give the same verdict, the same line
and the same node count (``Solution`` equality), and every won line must replay to a won
state through ``apply``; so must their searches one by one (safe joins off, probes with
their random order, a search resumed with a larger budget) and on positions reached by
random play. The suite compares them on a sample: a few deals a ruleset, each kind of
search; ``bench/solver_differential.py`` compares them on thousands of deals
(docs/architecture.md, "The native core", quotes such a run).

Where the extension is not built these tests are skipped, unless a C compiler is there:
then the build should have made it, and its absence fails them.
"""

from __future__ import annotations

import os
import random
import shutil
import sysconfig

import pytest

from games.engine import RULESETS, State, apply, legal_actions, new_game, seeded_deal
from games.engine.solver import Solution, native, solve, systematic
from games.engine.solver.search import Decided, Search
from games.engine.state import PLAYING, WON, position


def _compiler() -> bool:
    command = (sysconfig.get_config_var("CC") or "cc").split()
    return bool(command) and shutil.which(command[0]) is not None


if not native.AVAILABLE:
    if _compiler() and not os.environ.get("SOLVER_NATIVE_OPTIONAL"):
        pytest.fail(
            "the native solver core is not built, though a C compiler is here: "
            "reinstall (pip install -e .) and read the build's warnings",
            pytrace=False,
        )
    pytest.skip("the native solver core is not built (no C compiler)", allow_module_level=True)

#: Deals per ruleset: fewer where the Python core takes longest.
QUICK = {"double": 12, "easy": 12, "wasp": 12, "scorpion2": 20}
#: Past PROBE_NODES (1,000), so that the probes of easy and double run too.
BUDGET = 3000


def deals(name: str) -> range:
    return range(QUICK.get(name, 30))


def replays_to_a_win(state: State, solution: Solution) -> bool:
    for action in solution.line:
        state = apply(state, action)[0]
    return state.status == WON


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_both_cores_solve_every_deal_alike(name: str) -> None:
    rules = RULESETS[name]
    verdicts = {"won": 0, "lost": 0, "unknown": 0}
    for seed in deals(name):
        state = new_game(rules, seeded_deal(rules, seed))
        python = solve(rules, state, BUDGET, core="python")
        assert solve(rules, state, BUDGET, core="native") == python, (name, seed)
        verdicts[python.verdict] += 1
        if python.verdict == "won":
            assert replays_to_a_win(state, python), (name, seed)
    assert verdicts["won"] + verdicts["lost"] > 0


@pytest.mark.parametrize("name", ["easy", "double"])
def test_the_systematic_search_alone_agrees(name: str) -> None:
    rules = RULESETS[name]
    for seed in range(6):
        state = new_game(rules, seeded_deal(rules, seed))
        assert systematic(rules, state, BUDGET, core="native") == systematic(
            rules, state, BUDGET, core="python"
        )


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_searches_without_safe_joins_agree(name: str) -> None:
    rules = RULESETS[name]
    for seed in range(8):
        state = new_game(rules, seeded_deal(rules, seed))
        python = Search(rules, state, safe_joins=False).run(2000)
        assert native.native_search(rules, state, safe_joins=False).run(2000) == python


@pytest.mark.parametrize("name", ["easy", "double", "wasp", "classic"])
def test_probes_draw_the_same_random_order(name: str) -> None:
    """A probe's moves come in a random order: both cores draw the same numbers from the
    same source, in the same order, and leave it in the same state."""
    rules = RULESETS[name]
    for seed in range(6):
        state = new_game(rules, seeded_deal(rules, seed))
        ours, theirs = random.Random(seed), random.Random(seed)
        for _ in range(3):
            python = Search(rules, state, jitter=theirs, focus=True).run(500)
            probe = native.native_search(rules, state, jitter=ours, focus=True)
            assert isinstance(probe, native.NativeSearch)
            assert probe.run(500) == python
            assert ours.getstate() == theirs.getstate()


def test_a_search_goes_on_where_it_stopped() -> None:
    rules = RULESETS["classic"]
    resumed = 0
    for seed in range(12):
        state = new_game(rules, seeded_deal(rules, seed))
        once = Search(rules, state).run(4000)
        twice = native.NativeSearch(rules, state)
        first = twice.run(200)
        if first[0] == "unknown":
            resumed += 1
            assert first == Search(rules, state).run(200)
        assert twice.run(4000) == once
    assert resumed >= 1


def _stopped_after_every_node(search: native.Searcher, limit: int) -> list[Decided]:
    """The answers of ``search`` run with budgets 1, 2, 3, ... ``limit`` (each call going on
    from where the last one stopped), to the first that decides."""
    answers: list[Decided] = []
    for budget in range(1, limit + 1):
        answers.append(search.run(budget))
        if answers[-1][0] != "unknown":
            break
    return answers


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_search_stopped_after_every_node_searches_as_one_run(name: str) -> None:
    """A search stopped on its budget at every node and resumed each time gives, at each
    budget, what the Python search gives, and in the end what one uninterrupted run gives.
    A stop leaves the child it stopped at to be looked at again; the C core once spliced
    that child's key a second time from its parent's, though its columns were no longer in
    its parent's order, and read a key of negative length (a crash in a full test run)."""
    rules = RULESETS[name]
    limit = 600
    for seed in range(3):
        state = new_game(rules, seeded_deal(rules, seed))
        python = _stopped_after_every_node(Search(rules, state), limit)
        ours = _stopped_after_every_node(native.NativeSearch(rules, state), limit)
        assert ours == python, (name, seed)
        assert ours[-1] == Search(rules, state).run(limit), (name, seed)
        # A probe, with its random order, stopped and resumed alike.
        theirs_rng, ours_rng = random.Random(seed), random.Random(seed)
        python = _stopped_after_every_node(Search(rules, state, jitter=theirs_rng, focus=True), 300)
        probe = native.NativeSearch(rules, state, jitter=ours_rng, focus=True)
        assert _stopped_after_every_node(probe, 300) == python, (name, seed)
        assert ours_rng.getstate() == theirs_rng.getstate()


def test_a_search_searched_again_from_scratch_at_every_budget_agrees() -> None:
    """New searches one after another, each with one node more, on one thread: each starts
    from the last one's memory (the core keeps a freed search for the next) and must not
    see any of it."""
    for name in ("easy", "classic", "double"):
        rules = RULESETS[name]
        state = new_game(rules, seeded_deal(rules, 1))
        for budget in range(1, 120):
            python = Search(rules, state).run(budget)
            assert native.NativeSearch(rules, state).run(budget) == python, (name, budget)
            assert solve(rules, state, budget, core="native") == solve(
                rules, state, budget, core="python"
            ), (name, budget)


def test_small_searches_after_a_large_one_see_none_of_it() -> None:
    """A thread keeps a large search's table for the next search (up to 65,536 slots) and
    empties it slot by slot when that search filled little of it: small searches after a
    large one, each reusing the last one's table, must each give the Python core's
    answer, and so must a large one after them."""
    mice = RULESETS["three_blind_mice"]
    large = new_game(mice, seeded_deal(mice, 1))
    expected = Search(mice, large).run(20_000)
    assert expected[0] == "unknown" and expected[2] == 20_000  # it fills the table
    assert native.NativeSearch(mice, large).run(20_000) == expected
    for name in ("classic", "double", "three_blind_mice"):
        rules = RULESETS[name]
        state = new_game(rules, seeded_deal(rules, 1))
        for budget in (1, 2, 5, 40, 300, 2000):
            python = Search(rules, state).run(budget)
            assert native.NativeSearch(rules, state).run(budget) == python, (name, budget)
        assert native.NativeSearch(mice, large).run(20_000) == expected, name


def test_a_core_not_initialised_raises() -> None:
    """A Core made without __init__, or whose __init__ failed, raises: it does not crash."""
    from games.engine.solver import _native

    bare = _native.Core.__new__(_native.Core)
    with pytest.raises(RuntimeError):
        bare.run(10)
    rules = RULESETS["classic"]
    state = new_game(rules, seeded_deal(rules, 0))
    core = native.NativeSearch(rules, state).core
    with pytest.raises((TypeError, ValueError)):
        core.__init__((), (), (), (), (), 0, 1, 0, 0)
    with pytest.raises(RuntimeError):
        core.run(10)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_positions_of_random_play_agree(name: str) -> None:
    """Positions in the middle of games (cards turned up, runs gone, the reserve dealt,
    cells emptied), reached by random legal play."""
    rules = RULESETS[name]
    rng = random.Random(name)
    compared = 0
    for seed in range(4 if name in QUICK else 10):
        state = new_game(rules, seeded_deal(rules, seed))
        for ply in range(48):
            actions = legal_actions(state)
            if state.status != PLAYING or not actions:
                break
            state = apply(state, rng.choice(actions))[0]
            if ply % 6 == 5:
                python = solve(rules, state, 1500, core="python")
                assert solve(rules, state, 1500, core="native") == python, (seed, ply)
                if python.verdict == "won":
                    assert replays_to_a_win(state, python)
                compared += 1
    assert compared >= 8


def test_what_the_c_core_does_not_take_goes_to_the_python_one() -> None:
    """A position outside the C core's limits (here a card twice in a one-deck game)
    gets the Python search, and the same answer from either core."""
    classic = RULESETS["classic"]
    state = position(
        classic,
        columns=[[12, 11], [11], [], [], [], [], []],
        down=[0, 0, 0, 0, 0, 0, 0],
        removed=[1, 2, 3],
    )
    assert isinstance(native.native_search(classic, state), Search)
    assert solve(classic, state, 100, core="native") == solve(classic, state, 100, core="python")
