"""The sampled hint (games.engine.hint) on hand-made and dealt positions."""

from __future__ import annotations

import random

from games import engine
from games.engine import heuristic
from games.engine import hint as hints
from games.engine.actions import Move
from games.engine.solver import solve

from .helpers import board, run

CLASSIC = engine.RULESETS["classic"]

# Classic seed 139 after 33 hinted actions, the reserve dealt: the King of hearts' column
# and an empty one. Before the hint skipped moves that only renumber columns, it moved that
# column to the empty one and back (every won sample stays won after such a move, so it tied
# the best real move) until the position came back a third time.
AFTER_THE_DEAL = [
    "*9S *3C 9D 8D QH JH 9H 8H 7H 6D 5D 4D KC 8C 7C",
    "*5S *6C KD QD JD TD 3D 2D AD 5C 2C AC",
    "*TH *4C *TS 4S 3S 2S AS",
    "*7D QC JC TC 9C 8S 7S 6S",
    "KH 6H 5H 4H 3H 2H AH",
    "",
    "KS QS JS",
]


def renumbers(state: engine.State, action: object) -> bool:
    """Whether ``action`` moves a whole column into an empty one."""
    return (
        isinstance(action, Move)
        and action.index == 0
        and not state.down[action.source - 1]
        and not state.columns[action.to - 1]
    )


def follow_without_repeats(state: engine.State, steps: int) -> int:
    """Play up to ``steps`` hints from ``state`` (fewer when the game ends or no hint is
    left), asserting that no position comes back; how many positions were met."""
    seen = set()
    while state.status == engine.PLAYING and len(seen) < steps:
        key = (state.columns, state.down, state.reserve)
        assert key not in seen
        seen.add(key)
        action = hints.hint(CLASSIC, engine.player_view(state)).action
        if action is None:
            break
        state = engine.apply(state, action)[0]
    return len(seen)


def test_the_hint_does_not_shuffle_a_column_between_empty_places() -> None:
    state = board("classic", AFTER_THE_DEAL)
    idle = [action for action in engine.legal_actions(state) if renumbers(state, action)]
    assert idle, "the position offers a move that only renumbers columns"
    found = hints.hint(CLASSIC, engine.player_view(state))
    assert found.source == "solver" and found.action is not None
    assert not renumbers(state, found.action)
    # Followed from here (with the deal's real hidden cards), the hints never come back to
    # a position: in classic only such moves can be undone by another move.
    assert follow_without_repeats(state, 200) > 3


def test_which_whole_column_moves_into_an_empty_one_are_left_out() -> None:
    columns = ["KD QD", "", "KC", "2C", "KS QS", "", run("H")]
    before = board("classic", columns, reserve="5S 9S TS")
    after = board("classic", columns)
    left_out, moves = hints.left_out, engine.Move
    # After the deal, a whole column into an empty one changes nothing.
    assert left_out(CLASSIC, after, moves(source=5, index=0, to=6))
    assert left_out(CLASSIC, after, moves(source=1, index=0, to=2))
    # Before it, the reserve lands on columns 1-3, in that order: one direction is kept,
    # out of a column it reaches into one it reaches later or not at all.
    assert left_out(CLASSIC, before, moves(source=5, index=0, to=6))
    assert not left_out(CLASSIC, before, moves(source=1, index=0, to=6))
    assert left_out(CLASSIC, before, moves(source=5, index=0, to=2))
    assert not left_out(CLASSIC, before, moves(source=1, index=0, to=2))
    assert left_out(CLASSIC, before, moves(source=3, index=0, to=2))
    # A column that is one whole run leaves the table when it moves (classic checks the
    # destination); part of a column, or a move onto a card, is never left out.
    assert not left_out(CLASSIC, after, moves(source=7, index=0, to=6))
    assert not left_out(CLASSIC, after, moves(source=5, index=1, to=1))
    assert not left_out(CLASSIC, after, engine.Deal())


TO_AND_FRO = [
    "KC",
    "*JH *9C 8H 7H AS 7C 6C 8C 8D 7D 6D",
    "*TH *2H *4H QH",
    "*4S *AH *5D 5C 7S JC TC",
    "",
    "9H 3H KD 6S 5S QD 4C JD TD 6H 5H 2D AD",
    "KS QS JS TS 9S 8S 4D 3D 3C 2C AC 9D 3S",
]
TO_AND_FRO_RESERVE = "QC KH 2S"


def test_the_hint_does_not_move_a_column_to_and_fro_before_the_deal() -> None:
    # Classic seed 869 after 20 hinted actions: the King of clubs alone in column 1, which
    # the reserve reaches, and column 5 empty. The hint moved it to column 5 and back.
    state = board("classic", TO_AND_FRO, reserve=TO_AND_FRO_RESERVE)
    assert follow_without_repeats(state, 6) == 6


DOUBLE = engine.RULESETS["double"]

# Double seed 8 after 53 hinted actions, the reserve dealt. Before the hint knew the game's
# line of play, it moved QD and its pile from column 8 onto the KD of column 3, and three
# moves later the board was as before, again and again: each of those moves, made between
# two copies of a card, kept every won sample won. Told the line, it goes on and wins.
TWO_COPIES = [
    "*9S *9H *QH 4D 3D JC TC 9C 9H 8H 7H",
    "*8S *TS *2C *AS 5S 4S 3S 2S AS 8C",
    "*TH *KH *QC 5H KD",
    "*AC *4H TD JH",
    "*QH 2D AD 7C 6C 5C 9D 8D 7D 6D 5D 4D 3D 6S 8H 7H 6H 5H 4H 3H 2H AH JS",
    "KS QD JD KS QS JS 8S QS 2D AD",
    "KC QC JC TC 9C 8C 7C 6C 5C KC JD TD 9D 8D 7D KH",
    "KD QD 6D 5D JH TH 9S 4C 3C",
    "7S AH 3S 2S 4C 3C 6H 6S 5S 3H 2C AC",
    "TS 2H 7S 4S",
]


def hinted_boards(state: engine.State, steps: int, *, line: bool) -> list[object]:
    """The boards met following ``steps`` hints from ``state`` (fewer if the game ends or no
    hint is left), the hint told the game's line of play when ``line``."""
    met = []
    for _ in range(steps):
        met.append(hints.board_key(state))
        been = hints.line_boards(state) if line else ()
        action = hints.hint(DOUBLE, engine.player_view(state), been=been).action
        if state.status != engine.PLAYING or action is None:
            break
        state = engine.apply(state, action)[0]
    return met


def test_the_hint_does_not_lead_back_to_a_board_the_line_of_play_has_shown() -> None:
    state = board("double", TWO_COPIES)
    # Without the line of play, the hints bring the board back in four actions.
    blind = hinted_boards(state, 5, line=False)
    assert blind[4] == blind[0]
    # With it, no board comes back.
    met = hinted_boards(state, 8, line=True)
    assert len(met) == 8 and len(set(met)) == len(met)


def test_the_line_of_play_leaves_out_undone_moves_and_what_came_before_a_restart() -> None:
    state = engine.new_game(CLASSIC, engine.seeded_deal(CLASSIC, 0))
    first = [action for action in engine.legal_actions(state) if isinstance(action, Move)]
    moved = engine.apply(state, first[0])[0]
    assert hints.line_boards(state) == {hints.board_key(state)}
    assert hints.line_boards(moved) == {hints.board_key(state), hints.board_key(moved)}
    undone = engine.apply(moved, engine.Undo())[0]
    assert hints.line_boards(undone) == {hints.board_key(state)}
    again = engine.apply(engine.apply(moved, engine.Deal())[0], engine.Restart())[0]
    assert hints.line_boards(again) == {hints.board_key(state)}


def test_every_action_leading_back_leaves_the_hint_as_it_was() -> None:
    state = board("double", TWO_COPIES)
    view = engine.player_view(state)
    everywhere = {
        hints.board_key(engine.apply(state, action)[0]) for action in engine.legal_actions(state)
    }
    assert hints.hint(DOUBLE, view, been=everywhere) == hints.hint(DOUBLE, view)


# Classic seed 115 after three hinted actions. No sample of its view is won within the
# budget when the hint draws 32 of them (a few of 128 are); with every card known, the
# heuristic's move (5D and its pile onto 6D) loses the deal and 9S's move onto TS keeps it
# won.
NONE_WON = [
    "*QC *6C *7C 3C 8C QD JD 4C 2H TD",
    "*KH *9C *QS KD 6S 8H 2S AS JS 4S 3D 7S 5H",
    "*7H *8S *9H TH QH 5D 8D 7D",
    "*6H *9D *KC 3H AD 2D TC",
    "4D AC AH",
    "KS",
    "9S 3S 5C JH 4H TS 6D",
]


FEW = 32


def proved_lost_after(state: engine.State, action: object) -> int:
    """In how many of the hint's samples of ``state``'s view ``action`` is proved lost."""
    view = engine.player_view(state)
    return sum(
        solve(CLASSIC, engine.apply(sample, action)[0], hints.SAMPLE_BUDGET).verdict == "lost"
        for sample in hints.completions(CLASSIC, view, FEW)
    )


def test_with_no_sample_won_the_hint_keeps_the_most_samples_alive() -> None:
    state = board("classic", NONE_WON, reserve="5S JC 2C")
    view = engine.player_view(state)
    found = hints.hint(CLASSIC, view, samples=FEW)
    assert found.source == "heuristic" and found.wins == 0
    preferred = heuristic.best(CLASSIC, view)
    assert found.action != preferred
    assert proved_lost_after(state, found.action) < proved_lost_after(state, preferred)
    assert solve(CLASSIC, engine.apply(state, found.action)[0]).verdict == "won"
    assert solve(CLASSIC, engine.apply(state, preferred)[0]).verdict == "lost"


def vote_on_a_random_table(rng: random.Random) -> tuple[int, int]:
    """hints._vote on random actions and trials, checked against trying every action on
    every trial: how many tries it made, and how many that is."""
    actions = [Move(source=1, index=i, to=2) for i in range(rng.randint(1, 12))]
    trials = list(range(rng.randint(1, 20)))
    odds = rng.random()
    table = {(a, t): rng.random() < odds for a in actions for t in trials}
    preference = {a: rng.randrange(5) for a in actions}
    tries: list[tuple[Move, int]] = []

    def passes(action: Move, trial: int) -> bool:
        tries.append((action, trial))
        return table[action, trial]

    def rank(action: Move, n: int) -> tuple[int, int, int]:
        return (-n, preference[action], action.index)

    best, count = hints._vote(actions, trials, passes, rank)
    full = {a: sum(table[a, t] for t in trials) for a in actions}
    expected = min(actions, key=lambda a: rank(a, full[a]))
    assert (best, count) == (expected, full[expected])
    return len(tries), len(actions) * len(trials)


def test_the_vote_tries_fewer_actions_and_picks_the_same_one() -> None:
    """hints._vote stops trying an action once it cannot beat the best one: on random
    tables of which action passes which trial it picks what trying every action on every
    trial picks, with the same count, in fewer tries; and when the action it tries first
    passes every trial, it tries no other."""
    rng = random.Random("vote")
    tried = everything = 0
    for _ in range(400):
        made, all_of_them = vote_on_a_random_table(rng)
        tried += made
        everything += all_of_them
    assert tried < 0.8 * everything, (tried, everything)
    actions = [Move(source=1, index=i, to=2) for i in range(10)]
    tries: list[Move] = []

    def passes(action: Move, trial: int) -> bool:
        tries.append(action)
        return True

    best, count = hints._vote(actions, range(20), passes, lambda a, n: (-n, a.index))
    assert (best, count) == (actions[0], 20)
    assert tries == [actions[0]] * 20


def test_past_its_time_limit_the_hint_answers_with_what_it_has() -> None:
    state = engine.new_game(CLASSIC, engine.seeded_deal(CLASSIC, 0))
    view = engine.player_view(state)
    legal = engine.legal_actions(state)
    # No time at all: no sample is solved, and the one-move heuristic answers.
    found = hints.hint(CLASSIC, view, time_limit=0.0)
    assert found == hints.Hint(heuristic.best(CLASSIC, view), 0, 0, "heuristic")
    # Without a limit every sample is solved, and the hint is the solver's.
    full = hints.hint(CLASSIC, view, time_limit=None)
    assert full.samples == hints.SAMPLES and full.source == "solver" and full.action in legal


def test_an_action_that_shows_nothing_is_worth_what_one_plan_wins() -> None:
    # Classic seed 22 after two hints. Alone, the five of diamonds' move (1 to 4, showing no
    # card) wins in the most samples, but each sample's solver then goes on its own way
    # before the next card shows; no one plan starting with it wins in as many samples as
    # the King of hearts' move, which turns up column 3's card, does.
    state = engine.new_game(CLASSIC, engine.seeded_deal(CLASSIC, 22))
    for _ in range(2):
        action = hints.hint(CLASSIC, engine.player_view(state), samples=FEW).action
        assert action is not None
        state = engine.apply(state, action)[0]
    view = engine.player_view(state)
    planned = hints.hint(CLASSIC, view, samples=FEW, time_limit=None)
    alone = hints.hint(CLASSIC, view, samples=FEW, plans=False, time_limit=None)
    assert alone.action == Move(source=1, index=9, to=4)
    assert planned.action == Move(source=3, index=3, to=6)
    assert state.down[2] == 3, "column 3's move turns up a card"
    assert planned.wins < alone.wins


def test_a_choice_cut_short_says_so() -> None:
    state = engine.new_game(CLASSIC, engine.seeded_deal(CLASSIC, 0))
    view = engine.player_view(state)
    won = [
        (sample, solution.line)
        for sample in hints.completions(CLASSIC, view, FEW)
        if (solution := solve(CLASSIC, sample, hints.SAMPLE_BUDGET)).verdict == "won"
    ]
    legal = engine.legal_actions(state)

    def rank(action: object, wins: int) -> tuple[int, int]:
        return (-wins, legal.index(action))  # type: ignore[arg-type]

    assert won
    best, worth, complete = hints._choose(
        CLASSIC, legal, won, rank, hints.SAMPLE_BUDGET, True, hints._Clock(None)
    )
    assert complete and best in legal and 0 < worth <= len(won)
    cut = hints._choose(CLASSIC, legal, won, rank, hints.SAMPLE_BUDGET, True, hints._Clock(-1.0))
    assert cut == (None, 0, False)
