"""Rejections: every refused action carries one stable code (docs/rules.md#rejections)."""

from __future__ import annotations

#: Every rejection code, in the order of precedence of docs/rules.md#precedence, with its
#: English message. Messages never name a hidden card.
REJECTIONS: dict[str, str] = {
    "game_over": "The game is over.",
    "bad_column": "There is no such column or cell.",
    "bad_index": "There is no card at that position.",
    "same_column": "A group cannot move onto its own column.",
    "card_face_down": "A face-down card cannot be moved.",
    "only_king_on_empty": "Only a King can go onto an empty column.",
    "whole_column_king": "A King that heads a whole column cannot move to an empty column.",
    "not_same_suit": "Rule: cards must be of the same suit.",
    "wrong_rank": "The target card must be exactly one rank higher.",
    "reserve_empty": "The reserve has already been dealt.",
    "reserve_locked": "The reserve can be dealt only when no move is possible.",
    "nothing_to_undo": "There is nothing to undo.",
    "undo_limit": "Undo cannot reach further back under these rules.",
}


class RuleViolation(Exception):
    """An action the rules refuse; the state it was applied to is unchanged."""

    def __init__(self, code: str) -> None:
        if code not in REJECTIONS:
            raise ValueError(f"unknown rejection code {code!r}")
        super().__init__(code)
        self.code = code

    @property
    def message(self) -> str:
        """The English message for the code."""
        return REJECTIONS[self.code]

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
