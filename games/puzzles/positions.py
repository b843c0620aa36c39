"""A puzzle's position as stored (every card where it lies), and as a state to play on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games import engine
from games.engine import puzzles
from games.engine.state import position


def position_json(state: engine.State) -> dict[str, Any]:
    """Every card of ``state`` where it lies, as a puzzle stores it."""
    return {
        "columns": [[engine.card_code(card) for card in cards] for cards in state.columns],
        "down": list(state.down),
        "reserve": [engine.card_code(card) for card in state.reserve],
        "cells": [None if card is None else engine.card_code(card) for card in state.cells],
        "removed": "".join("SHDC"[suit] for suit in state.removed),
    }


def state_of(rules: engine.Ruleset, data: Mapping[str, Any]) -> engine.State:
    """The position a puzzle stores (:func:`position_json`), as a state to play from."""
    return position(
        rules,
        columns=[engine.parse_cards(column) for column in data["columns"]],
        down=data["down"],
        reserve=engine.parse_cards(data["reserve"]),
        cells=[None if code is None else engine.parse_card(code) for code in data["cells"]],
        removed=["SHDC".index(letter) for letter in data["removed"]],
    )


def after(rules: engine.Ruleset, data: Mapping[str, Any], moves: Sequence[str]) -> engine.State:
    """The position ``data`` after ``moves`` (``games.engine.puzzles.encode``)."""
    state = state_of(rules, data)
    for move in moves:
        state = engine.apply(state, puzzles.decode(move))[0]
    return state
