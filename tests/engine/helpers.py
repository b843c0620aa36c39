"""Builders for hand-made positions in engine tests.

A column is written bottom to top as card codes separated by spaces; a face-down card is
prefixed with ``*`` (``"*2S *4S 3D JH"``).
"""

from __future__ import annotations

from collections import Counter

from games.engine import RULESETS, State, parse_card
from games.engine.cards import RUNS, Card
from games.engine.state import position


def board(
    rules: str,
    columns: list[str],
    reserve: str = "",
    cells: list[str | None] | None = None,
    removed: str = "",
) -> State:
    """A playing state with exactly these columns, reserve (dealing order) and cells."""
    ruleset = RULESETS[rules]
    assert len(columns) == ruleset.column_count
    cards: list[tuple[Card, ...]] = []
    down: list[int] = []
    for text in columns:
        codes = text.split()
        hidden = [code.startswith("*") for code in codes]
        assert hidden == sorted(hidden, reverse=True), "face-down cards lie at the bottom"
        down.append(sum(hidden))
        cards.append(tuple(parse_card(code.lstrip("*")) for code in codes))
    return position(
        ruleset,
        columns=cards,
        down=down,
        reserve=[parse_card(code) for code in reserve.split()],
        cells=[None if code is None else parse_card(code) for code in (cells or [])],
        removed=["SHDC".index(suit) for suit in removed],
    )


def run(suit: str) -> str:
    """The 13 codes K..A of ``suit``, bottom to top, face-up."""
    return " ".join(f"{rank}{suit}" for rank in "KQJT98765432A")


def card_census(state: State) -> Counter[Card]:
    """Every card the state still knows about: tableau, reserve, cells and removed runs."""
    census: Counter[Card] = Counter()
    for cards in state.columns:
        census.update(cards)
    census.update(state.reserve)
    census.update(card for card in state.cells if card is not None)
    for suit in state.removed:
        census.update(RUNS[suit])
    return census


def snapshot(state: State) -> tuple[object, ...]:
    """Every field a player or the rules can observe, for "nothing changed" checks."""
    return (
        state.columns,
        state.down,
        state.reserve,
        state.cells,
        state.removed,
        state.score,
        state.moves,
        state.undos,
        state.status,
        state.ply,
        state.undo_budget,
        state.previous,
        state.seen,
    )
