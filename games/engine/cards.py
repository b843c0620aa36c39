"""Cards and their codes.

A card is a small int: ``suit * 13 + rank - 1`` with suits in the order S H D C and ranks
A (1) to K (13). Two decks simply repeat the same ints, so nothing here assumes a card is
unique. Codes are rank + suit (``AS``, ``TD``, ``KH``); ``10D`` is accepted on input.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

SUITS = "SHDC"
RANKS = "A23456789TJQK"
KING = 13
ACE = 1

#: ``RANK[card]`` is 1 (Ace) .. 13 (King); ``SUIT[card]`` is 0..3 (index into ``SUITS``).
RANK: tuple[int, ...] = tuple(card % 13 + 1 for card in range(52))
SUIT: tuple[int, ...] = tuple(card // 13 for card in range(52))
CODE: tuple[str, ...] = tuple(RANKS[card % 13] + SUITS[card // 13] for card in range(52))

#: The 13 cards K..A of each suit, bottom to top: the run that leaves the tableau.
RUNS: tuple[tuple[Card, ...], ...] = tuple(
    tuple(range(suit * 13 + 12, suit * 13 - 1, -1)) for suit in range(4)
)

_BY_CODE = {code: card for card, code in enumerate(CODE)}


class CardError(ValueError):
    """Raised for a string that is not a card code."""


def card_code(card: Card) -> str:
    """The two-character code of ``card`` (``TD`` for the ten of diamonds)."""
    return CODE[card]


def parse_card(code: str) -> Card:
    """The card named by ``code``: ``TD`` or ``10D``, any letter case."""
    if not isinstance(code, str):
        raise CardError(f"not a card code: {code!r}")
    text = code.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    try:
        return _BY_CODE[text]
    except KeyError:
        raise CardError(f"not a card code: {code!r}") from None


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """Parse every code of ``codes`` (see :func:`parse_card`)."""
    return tuple(parse_card(code) for code in codes)


def suit_code(suit: int) -> str:
    """The letter of suit index ``suit`` (0 = S, 1 = H, 2 = D, 3 = C)."""
    return SUITS[suit]


def new_deck(decks: int = 1) -> list[Card]:
    """``decks`` standard decks in deck order: spades, hearts, diamonds, clubs; A..K each."""
    return [card for _ in range(decks) for card in range(52)]
