import pytest

from games.engine import CardError, card_code, new_deck, parse_card, parse_cards
from games.engine.cards import RANK, SUIT


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [("AS", 1, "S"), ("TD", 10, "D"), ("10D", 10, "D"), ("kh", 13, "H"), ("2C", 2, "C")],
)
def test_codes_parse_to_rank_and_suit(code: str, rank: int, suit: str) -> None:
    card = parse_card(code)
    assert RANK[card] == rank
    assert "SHDC"[SUIT[card]] == suit


def test_ten_is_written_t() -> None:
    assert card_code(parse_card("10D")) == "TD"


@pytest.mark.parametrize("code", ["", "1S", "11S", "ZS", "AX", "A", "10", "KHH", 12, None])
def test_bad_codes_are_refused(code: object) -> None:
    with pytest.raises(CardError):
        parse_card(code)


def test_every_code_round_trips() -> None:
    codes = [card_code(card) for card in range(52)]
    assert len(set(codes)) == 52
    assert list(parse_cards(codes)) == list(range(52))


def test_deck_order_is_spades_hearts_diamonds_clubs_ace_to_king() -> None:
    deck = [card_code(card) for card in new_deck()]
    assert deck[:3] == ["AS", "2S", "3S"]
    assert deck[12:14] == ["KS", "AH"]
    assert deck[-1] == "KC"
    assert len(new_deck(2)) == 104
    assert new_deck(2)[52:] == new_deck(1)
