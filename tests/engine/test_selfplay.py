"""Random self-play over thousands of actions per ruleset, checking invariants.

Every listed action applies and every refused one changes nothing; the legal list is
exactly what ``apply`` accepts; cards are never created or lost; the score is the sum of
the effects; undo after any move or deal gives back the previous position; replaying
the recorded actions from the deal gives the same state.
"""

import random
from collections import Counter

import pytest

from games.engine import (
    RULESETS,
    CellMove,
    Deal,
    Move,
    Restart,
    RuleViolation,
    Undo,
    apply,
    is_blocked,
    legal_actions,
    new_game,
    player_view,
    replay,
    seeded_deal,
)
from games.engine.state import PLAYING, State

from .helpers import card_census, snapshot

ACTIONS_PER_RULESET = 2500
ACTIONS_PER_GAME = 400


def position(state: State) -> tuple[object, ...]:
    return (state.columns, state.down, state.reserve, state.cells, state.removed, state.score)


def accepted_moves(state: State) -> set[object]:
    """Every move ``apply`` accepts, found by trying all of them (and a few beyond)."""
    count = len(state.columns)
    found: set[object] = set()
    candidates: list[object] = [
        Move(source, index, to)
        for source in range(0, count + 2)
        for index in range(-1, max(len(c) for c in state.columns) + 1)
        for to in range(0, count + 2)
    ]
    candidates += [CellMove(cell, to) for cell in range(0, 4) for to in range(0, count + 2)]
    for action in candidates:
        before = snapshot(state)
        try:
            apply(state, action)
        except RuleViolation:
            assert snapshot(state) == before
            continue
        found.add(action)
    return found


def choose(rng: random.Random, state: State, legal: list[object]) -> object:
    roll = rng.random()
    if roll < 0.06:
        return Undo()
    if roll < 0.065:
        return Restart()
    if not legal:
        return Undo()
    moves = [action for action in legal if not isinstance(action, Deal)]
    if Deal() in legal and (not moves or rng.random() < 0.05):
        return Deal()
    return rng.choice(moves or legal)


@pytest.mark.parametrize("rules_name", list(RULESETS))
def test_random_self_play_keeps_every_invariant(rules_name: str) -> None:
    rules = RULESETS[rules_name]
    rng = random.Random(f"selfplay:{rules_name}")
    total_actions = 0
    for game in range(100):
        if total_actions >= ACTIONS_PER_RULESET:
            break
        deal = seeded_deal(rules, 1000 + game)
        state = new_game(rules, deal)
        dealt = Counter(deal)
        actions: list[object] = []
        points = 0
        for step in range(ACTIONS_PER_GAME):
            if state.status != PLAYING:
                break
            legal = legal_actions(state)
            if step % 25 == 0:
                moves = {action for action in legal if not isinstance(action, Deal)}
                assert accepted_moves(state) == moves
            if is_blocked(state):
                assert not state.reserve
                assert Deal() not in legal
            for action in legal:
                apply(state, action)  # every listed action applies
            action = choose(rng, state, legal)
            before = snapshot(state)
            try:
                after, effects = apply(state, action)
            except RuleViolation as refused:
                assert isinstance(action, Undo), refused
                assert snapshot(state) == before
                continue
            actions.append(action)
            points += effects.points
            assert after.score == points
            assert after.ply == state.ply + 1
            assert card_census(after) == dealt
            assert sum(after.down) <= sum(state.down) or isinstance(action, (Undo, Restart))
            undoable = after.status == PLAYING and rules.undo_depth != 0
            if isinstance(action, (Move, CellMove, Deal)) and undoable:
                undone, undo_effects = apply(after, Undo())
                assert position(undone) == position(state)
                assert undo_effects.points == -effects.points
            view = player_view(after)
            assert sum(code is None for column in view["columns"] for code in column) == sum(
                after.down
            )
            state = after
        total_actions += len(actions)
        replayed = replay(rules, deal, actions)
        assert replayed.same_as(state)
        assert player_view(replayed) == player_view(state)
    assert total_actions >= ACTIONS_PER_RULESET


def test_self_play_reaches_wins_and_losses() -> None:
    """Games do end: a greedy player wins some deals and loses some traditional ones."""
    outcomes: Counter[str] = Counter()
    for name in ("classic", "traditional"):
        rules = RULESETS[name]
        for seed in range(40):
            state = new_game(rules, seeded_deal(rules, seed))
            for _ in range(300):
                legal = legal_actions(state)
                if state.status != PLAYING or not legal:
                    break
                state = apply(state, greedy(state, legal))[0]
            outcomes[f"{name}:{state.status}"] += 1
    assert outcomes["traditional:lost"] > 0
    assert outcomes["traditional:won"] > 0
    assert outcomes["classic:won"] > 0


def greedy(state: State, legal: list[object]) -> object:
    def value(action: object) -> tuple[int, int]:
        after, effects = apply(state, action)
        whole = isinstance(action, Move) and action.index == 0 and not state.down[action.source - 1]
        return (effects.points - (50 if whole else 0), -len(after.columns[0]))

    return max(legal, key=value)
