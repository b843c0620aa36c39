"""Every ruleset of docs/rules.md#rulesets as data: a frozen record of parameters, nothing else.

The engine reads these fields; no code elsewhere branches on a ruleset's name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

#: Which columns the sequence check looks at: only where cards were just put
#: (``destination``), every column (``all``), or none, because runs stay on the tableau
#: and the game is won by columns holding one run each (``stay``).
SequenceCheck = Literal["destination", "all", "stay"]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The parameters of one ruleset."""

    name: str
    title: str
    decks: int
    #: ``(face_down, face_up)`` per column, column 1 first.
    layout: tuple[tuple[int, int], ...]
    #: The columns (0-based) that receive the reserve, in dealing order; its length is
    #: the reserve's size.
    reserve_to: tuple[int, ...]
    #: Cards dealt face-up into cells, playable onto columns, never played onto.
    cells: int
    #: Build on the same suit only (else any suit).
    same_suit: bool
    #: An empty column accepts only a King (else any card).
    king_only_on_empty: bool
    #: A whole column (nothing left behind, face-down included) may move into an empty one.
    whole_column_to_empty: bool
    sequences: SequenceCheck
    #: The reserve may be dealt at any time (else only when no move is possible).
    deal_any_time: bool
    #: How many actions undo reaches back: ``None`` without limit, ``0`` no undo at all.
    undo_depth: int | None
    #: ``blocked`` ends the game as ``lost``.
    lose_when_blocked: bool
    #: A move back to a position already seen on this line of play is not progress.
    repeats_are_not_moves: bool

    @property
    def column_count(self) -> int:
        """How many tableau columns the layout has."""
        return len(self.layout)

    @property
    def card_count(self) -> int:
        """How many cards a deal holds (every deck)."""
        return 52 * self.decks

    @property
    def reserve_size(self) -> int:
        """How many cards the reserve holds at the start."""
        return len(self.reserve_to)

    @property
    def sequences_to_win(self) -> int:
        """Complete runs needed to win: one per suit of every deck."""
        return 4 * self.decks

    def describe(self) -> dict[str, Any]:
        """The public parameters, JSON-ready (columns 1-based, as the API numbers them)."""
        return {
            "name": self.name,
            "title": self.title,
            "decks": self.decks,
            "columns": self.column_count,
            "layout": [{"face_down": down, "face_up": up} for down, up in self.layout],
            "reserve": self.reserve_size,
            "reserve_to": [column + 1 for column in self.reserve_to],
            "cells": self.cells,
            "build": "same_suit" if self.same_suit else "any_suit",
            "empty_column": "king" if self.king_only_on_empty else "any",
            "whole_column_to_empty": self.whole_column_to_empty,
            "sequences": self.sequences,
            "sequences_to_win": self.sequences_to_win,
            "deal": "any_time" if self.deal_any_time else "when_stuck",
            "undo_depth": self.undo_depth,
            "lose_when_blocked": self.lose_when_blocked,
        }


_STANDARD = ((3, 4),) * 4 + ((0, 7),) * 3

CLASSIC = Ruleset(
    name="classic",
    title="Classic",
    decks=1,
    layout=_STANDARD,
    reserve_to=(0, 1, 2),
    cells=0,
    same_suit=True,
    king_only_on_empty=True,
    whole_column_to_empty=True,
    sequences="destination",
    deal_any_time=True,
    undo_depth=100,
    lose_when_blocked=False,
    repeats_are_not_moves=False,
)

EASY = replace(CLASSIC, name="easy", title="Easy", same_suit=False)

CARDS4 = replace(
    CLASSIC,
    name="cards4",
    title="Cards4",
    whole_column_to_empty=False,
    sequences="all",
    undo_depth=None,
)

TRADITIONAL = replace(
    CLASSIC,
    name="traditional",
    title="Traditional",
    sequences="stay",
    deal_any_time=False,
    undo_depth=0,
    lose_when_blocked=True,
    repeats_are_not_moves=True,
)

OPEN = replace(
    TRADITIONAL, name="open", title="Open Scorpion", undo_depth=None, lose_when_blocked=False
)

WASP = replace(
    CLASSIC,
    name="wasp",
    title="Wasp",
    king_only_on_empty=False,
    sequences="all",
    undo_depth=None,
)

# The variants behave as cards4 except where docs/rules.md#ruleset-parameters says otherwise.
SCORPION2 = replace(
    CARDS4, name="scorpion2", title="Scorpion II", layout=((3, 4),) * 3 + ((0, 7),) * 4
)

THREE_BLIND_MICE = replace(
    CARDS4,
    name="three_blind_mice",
    title="Three Blind Mice",
    layout=((0, 5),) * 7 + ((3, 2),) * 3,
    reserve_to=(),
    cells=2,
)

DOUBLE = replace(
    CARDS4,
    name="double",
    title="Double Scorpion",
    decks=2,
    layout=((4, 6),) * 5 + ((0, 10),) * 5,
    reserve_to=(0, 1, 2, 3),
)

#: Every ruleset by its API name; ``classic`` is the default.
RULESETS: dict[str, Ruleset] = {
    rules.name: rules
    for rules in (
        CLASSIC,
        EASY,
        CARDS4,
        TRADITIONAL,
        OPEN,
        WASP,
        SCORPION2,
        THREE_BLIND_MICE,
        DOUBLE,
    )
}

DEFAULT_RULES = CLASSIC


def _check(rules: Ruleset) -> None:
    dealt = sum(down + up for down, up in rules.layout) + rules.reserve_size + rules.cells
    assert dealt == rules.card_count, rules.name
    assert all(0 <= column < rules.column_count for column in rules.reserve_to), rules.name


for _rules in RULESETS.values():
    _check(_rules)
