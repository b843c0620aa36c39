"""A player's view hides face-down cards and the reserve; the hint sees only the view."""

import json

from games.engine import (
    RULESETS,
    Deal,
    Move,
    apply,
    heuristic,
    new_game,
    parse_cards,
    player_view,
    seeded_deal,
)
from games.engine.cards import CODE

from .helpers import board


def hidden_codes(state) -> set[str]:
    columns = zip(state.columns, state.down, strict=True)
    hidden = {CODE[card] for cards, down in columns for card in cards[:down]}
    return hidden | {CODE[c] for c in state.reserve}


def test_view_never_names_a_hidden_card() -> None:
    for name, rules in RULESETS.items():
        if rules.decks > 1:
            continue  # repeated codes: a hidden card may share its code with a visible one
        state = new_game(rules, seeded_deal(rules, 11))
        text = json.dumps(player_view(state))
        for code in hidden_codes(state):
            assert f'"{code}"' not in text, (name, code)


def test_reveal_shows_every_card() -> None:
    rules = RULESETS["classic"]
    state = new_game(rules, seeded_deal(rules, 11))
    view = player_view(state, reveal=True)
    assert all(code is not None for column in view["columns"] for code in column)
    assert len(view["reserve_cards"]) == 3
    assert "reserve_cards" not in player_view(state)


def test_hint_ignores_hidden_cards() -> None:
    # Same visible position, different face-down cards and reserve: same hint.
    one = board("classic", ["*2C *3C 9H", "*4C *5C 5S", "6S", "KD", "QC", "JC", "TC"], "7C 8C 9C")
    two = board("classic", ["*7C *8C 9H", "*9C *2C 5S", "6S", "KD", "QC", "JC", "TC"], "3C 4C 5C")
    assert player_view(one) == player_view(two)
    assert (
        heuristic.best(one.rules, player_view(one))
        == heuristic.best(two.rules, player_view(two))
        == Move(2, 2, 3)
    )


def test_hint_prefers_turning_up_a_card() -> None:
    state = board("classic", ["*2C 9H", "6S 5S", "6H", "*4C 5H", "QC", "JC", "TC"], "7C 8C 9C")
    # 5S onto 6S is not possible (same column); 5H onto 6H turns up a card: +5 +50.
    assert heuristic.best(state.rules, player_view(state)) == Move(4, 1, 3)


def test_hint_completes_a_run_first() -> None:
    state = board(
        "classic",
        ["*3D KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "AS", "*4D 6H", "5H", "QC", "JC", "TC"],
    )
    assert heuristic.best(state.rules, player_view(state)) == Move(2, 0, 1)


def test_hint_deals_when_nothing_else_and_is_none_when_over() -> None:
    state = board("classic", ["", "KH", "5C", "QD", "9C", "6H", "3S"], reserve="2C 3C 4C")
    assert heuristic.best(state.rules, player_view(state)) == Deal()
    blocked = board("classic", ["", "KH", "5C", "QD", "9C", "6H", "3S"])
    assert heuristic.best(blocked.rules, player_view(blocked)) is None


def test_hint_on_the_sample_deal_is_a_legal_move(sample_deal: list[str]) -> None:
    state = new_game(RULESETS["classic"], parse_cards(sample_deal))
    suggestion = heuristic.best(state.rules, player_view(state))
    assert suggestion is not None
    apply(state, suggestion)
