"""Seeded deals: a documented shuffle that gives the same deal for a seed forever.

``random.shuffle`` is not used: its algorithm is not a compatibility promise. Instead:

* The random stream is SHA-256 in counter mode. Block ``k`` (k = 0, 1, 2, ...) is
  ``sha256(b"scorpion-deal-v1:<seed>:<k>")`` with ``seed`` and ``k`` written in decimal
  ASCII; each block gives four 64-bit big-endian words, read in order.
* ``below(n)`` draws words until one is under ``2**64 - 2**64 % n`` (rejection, no modulo
  bias) and returns it modulo ``n``.
* The deck starts in deck order (spades, hearts, diamonds, clubs; A..K each; a second deck
  follows the first) and is shuffled by Fisher-Yates from the top:
  ``for i = n-1 down to 1: j = below(i + 1); swap(deck[i], deck[j])``.
* The shuffled deck is the deal in layout order (columns bottom to top, then the reserve
  or the cells).

Golden vectors in the tests pin this for several seeds of every layout.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence

from .cards import Card, card_code, new_deck
from .rules import Ruleset

SHUFFLE_NAME = "scorpion-deal-v1"
#: Seeds are non-negative and at most this, so that every JSON client (JavaScript
#: numbers included) reads them exactly.
MAX_SEED = 2**53 - 1

_WORD = 2**64


class DealError(ValueError):
    """Raised for a deal that is not a complete deck for its ruleset."""


def _words(seed: int) -> Iterator[int]:
    block = 0
    while True:
        digest = hashlib.sha256(f"{SHUFFLE_NAME}:{seed}:{block}".encode("ascii")).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(digest[offset : offset + 8], "big")
        block += 1


def shuffle(cards: Sequence[Card], seed: int) -> list[Card]:
    """``cards`` shuffled by the documented Fisher-Yates above for ``seed``."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is an integer from 0 to {MAX_SEED}")
    deck = list(cards)
    words = _words(seed)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def seeded_deal(rules: Ruleset, seed: int) -> tuple[Card, ...]:
    """The deal of ``seed`` for ``rules``, in layout order."""
    return tuple(shuffle(new_deck(rules.decks), seed))


def check_deal(rules: Ruleset, deal: Sequence[Card]) -> tuple[Card, ...]:
    """``deal`` as a tuple if it is exactly the ruleset's decks, each card as often as dealt.

    Raises :class:`DealError` naming what is missing or repeated.
    """
    cards = tuple(deal)
    if len(cards) != rules.card_count:
        raise DealError(f"a {rules.name} deal has {rules.card_count} cards, not {len(cards)}")
    counts = Counter(cards)
    wrong = sorted(card for card in set(range(52)) | set(counts) if counts[card] != rules.decks)
    if wrong:
        names = ", ".join(card_code(card) if 0 <= card < 52 else str(card) for card in wrong)
        raise DealError(f"every card must appear {rules.decks} time(s); wrong count: {names}")
    return cards
