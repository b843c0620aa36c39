"""Golden vectors: these deals must never change, on any platform or Python version."""

import json
from collections import Counter
from pathlib import Path

import pytest

from games.engine import (
    MAX_SEED,
    RULESETS,
    DealError,
    card_code,
    check_deal,
    new_deck,
    new_game,
    parse_cards,
    seeded_deal,
    shuffle,
)
from games.engine.state import State

SHUFFLED = {
    0: "AD 6D 8C 5H 4C 4D 2D 8S 5D KC 9C 8H 2H QD AS JH 6S 4H 2C 8D KH 4S 7C 6H 7H 7S TS "
    "3D KS 3S 5C 9S QS JC QH 7D 9H AC 3C JD 2S QC 6C AH TH 9D TD 5S KD JS TC 3H",
    1: "JC 6H 8S TS 2S 5C KH AD 8H 2H QC AC TC JH 5S 9D AH 4C 5D TD KS JS 8D KD AS QH 6D JD "
    "7S 4H 3D QD 7H 3H 2D TH 8C 6S KC 7C 6C 3C QS 9S 9H 4D 3S 4S 9C 2C 5H 7D",
    2026: "6S AH 9S TD 9H TH AC 8D 9C KD 4H 3D 7H 3H 6D QH 8C 5H 2C 4C KS KH 9D 6C JD 4S QS "
    "AS 2H JC TS 5C 7D JS 7C 8S 4D AD 5D 5S KC 2D 3C TC 7S 3S QD QC JH 8H 6H 2S",
    MAX_SEED: "6D 9D 2C 5S 5D 7C KH AH AS TS JH 3C JD 4S AD 7D QH 4C 8S KS KC QS 8C TD 9C 7S "
    "9H 2H 8D 5C AC JS 4D 3S TH 6C QC QD 2S 8H 3H 4H 9S KD JC 5H 6S 3D 6H TC 7H 2D",
}

DOUBLE_SEED_7 = (
    "6S 8H 6D QS 9S 5S KC 7C 9H 3D 6S JH KS AH AS AD 9S 4D TS 2C 3D 2C 3C 3S JD 8S 7S 5H "
    "JH 4S 4C 3C 8C 2S 7H TC TD 8C 9H 2D AD KD 5H JS 9D KD 9D TC 2H QH 4D KC 5C QD 5C 8D 3S "
    "AC AC JS KH 8D AH 3H 2H TS 5D 2D QC 7D 6C QS 7C 6H 9C AS 8H 6D QD 9C KS 7D JC 4C 2S JC "
    "7S QH 6H 4H JD KH 7H TH 8S TD 5D 6C 3H TH 4H 5S QC 4S"
)

LAYOUTS = json.loads((Path(__file__).parent / "golden_layouts.json").read_text())["layouts"]


def render(state: State) -> dict[str, object]:
    columns = [
        " ".join(("*" if i < down else "") + card_code(card) for i, card in enumerate(cards))
        for cards, down in zip(state.columns, state.down, strict=True)
    ]
    extra = " ".join(card_code(card) for card in (state.reserve or state.cells))
    return {"columns": columns, "reserve_or_cells": extra}


@pytest.mark.parametrize(("seed", "expected"), SHUFFLED.items())
def test_single_deck_shuffle_is_pinned(seed: int, expected: str) -> None:
    deal = seeded_deal(RULESETS["classic"], seed)
    assert " ".join(card_code(card) for card in deal) == expected


def test_double_deck_shuffle_is_pinned() -> None:
    deal = seeded_deal(RULESETS["double"], 7)
    assert " ".join(card_code(card) for card in deal) == DOUBLE_SEED_7


@pytest.mark.parametrize("golden", LAYOUTS, ids=lambda g: f"{g['rules']}-{g['seed']}")
def test_every_layout_is_pinned(golden: dict[str, object]) -> None:
    ruleset = RULESETS[str(golden["rules"])]
    expected = {"columns": golden["columns"], "reserve_or_cells": golden["reserve_or_cells"]}
    assert render(new_game(ruleset, seeded_deal(ruleset, int(golden["seed"])))) == expected


def test_every_ruleset_has_golden_layouts() -> None:
    assert {golden["rules"] for golden in LAYOUTS} == set(RULESETS)


def test_layouts_deal_the_documented_counts() -> None:
    counts = {}
    for name, rules in RULESETS.items():
        state = new_game(rules, seeded_deal(rules, 5))
        down = sum(state.down)
        up = sum(len(cards) for cards in state.columns) - down
        counts[name] = (len(state.columns), down, up, len(state.reserve), len(state.cells))
    assert counts["classic"] == (7, 12, 37, 3, 0)
    assert counts["scorpion2"] == (7, 9, 40, 3, 0)
    assert counts["three_blind_mice"] == (10, 9, 41, 0, 2)
    assert counts["double"] == (10, 20, 80, 4, 0)


def test_a_shuffle_is_a_permutation_and_seeds_differ() -> None:
    deals = {seeded_deal(RULESETS["classic"], seed) for seed in range(200)}
    assert len(deals) == 200
    for deal in list(deals)[:20]:
        assert sorted(deal) == new_deck()
    double = seeded_deal(RULESETS["double"], 3)
    assert Counter(double) == Counter(new_deck(2))


def test_shuffle_positions_are_not_biased() -> None:
    # Where the ace of spades lands over 2,600 seeds: each of 52 places about 50 times.
    places = Counter(shuffle(new_deck(), seed).index(0) for seed in range(2600))
    assert len(places) == 52
    assert max(places.values()) < 90 and min(places.values()) > 20


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.5, True, "3"])
def test_bad_seeds_are_refused(seed: object) -> None:
    with pytest.raises(ValueError):
        shuffle(new_deck(), seed)


def test_check_deal_refuses_short_long_and_repeated_decks() -> None:
    classic = RULESETS["classic"]
    deck = new_deck()
    assert check_deal(classic, deck) == tuple(deck)
    with pytest.raises(DealError, match="52 cards"):
        check_deal(classic, deck[:-1])
    with pytest.raises(DealError, match="AS"):
        check_deal(classic, [0, *deck[:-1]])
    with pytest.raises(DealError):
        check_deal(RULESETS["double"], deck + deck[:-1] + [0])
    assert len(check_deal(RULESETS["double"], deck + deck)) == 104


def test_sample_deal_from_the_rules_is_accepted(sample_deal: list[str]) -> None:
    assert len(check_deal(RULESETS["classic"], parse_cards(sample_deal))) == 52
