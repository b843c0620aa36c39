"""The sampled hint (games.engine.advice) on hand-made and dealt positions."""

from __future__ import annotations

from games import engine
from games.engine import advice
from games.engine.actions import Move

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


def test_the_hint_does_not_shuffle_a_column_between_empty_places() -> None:
    state = board("classic", AFTER_THE_DEAL)
    idle = [action for action in engine.legal_actions(state) if renumbers(state, action)]
    assert idle, "the position offers a move that only renumbers columns"
    found = advice.advise(CLASSIC, engine.player_view(state))
    assert found.source == "solver" and found.action is not None
    assert not renumbers(state, found.action)
    # Followed from here (with the deal's real hidden cards), the hints never come back to
    # a position: in classic only such moves can be undone by another move.
    seen = set()
    while state.status == engine.PLAYING:
        key = (state.columns, state.down)
        assert key not in seen
        seen.add(key)
        action = advice.advise(CLASSIC, engine.player_view(state)).action
        if action is None:
            break
        state = engine.apply(state, action)[0]
    assert len(seen) > 3


def test_which_moves_only_renumber_columns() -> None:
    empty = ["KD QD", "", "", "2C", "KS QS", "", run("H")]
    before = board("classic", empty, reserve="5S 9S TS")
    after = board("classic", empty)
    idle, moves = advice.idle, engine.Move
    # After the deal, a whole column into an empty one changes nothing.
    assert idle(CLASSIC, after, moves(source=5, index=0, to=6))
    assert idle(CLASSIC, after, moves(source=1, index=0, to=2))
    # Before it, the reserve lands on columns 1-3: moving into or out of them matters.
    assert idle(CLASSIC, before, moves(source=5, index=0, to=6))
    assert not idle(CLASSIC, before, moves(source=5, index=0, to=2))
    assert not idle(CLASSIC, before, moves(source=1, index=0, to=6))
    # A column that is one whole run leaves the table when it moves (classic checks the
    # destination); part of a column, or a move onto a card, is never idle.
    assert not idle(CLASSIC, after, moves(source=7, index=0, to=6))
    assert not idle(CLASSIC, after, moves(source=5, index=1, to=1))
    assert not idle(CLASSIC, after, engine.Deal())
