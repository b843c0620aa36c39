"""The pure Scorpion rules engine: standard library only, no Django, no I/O.

``new_game(rules, deal)`` gives the initial state; ``apply(state, action)`` gives the next
state and its effects or raises :class:`RuleViolation`; ``legal_actions``, ``is_blocked``
and ``player_view`` read a state. Same actions in, same state out, on every machine.
"""

from .actions import (
    Action,
    CellMove,
    Deal,
    Move,
    Resign,
    Restart,
    Undo,
    action_from_command,
    action_to_command,
)
from .cards import Card, CardError, card_code, new_deck, parse_card, parse_cards
from .deals import MAX_SEED, DealError, check_deal, seeded_deal, shuffle
from .errors import REJECTIONS, RuleViolation
from .game import apply, can_deal, is_blocked, legal_actions, legal_moves, replay
from .playouts import legal_line
from .rules import DEFAULT_RULES, RULESETS, Ruleset
from .state import LOST, PLAYING, RESIGNED, STATUSES, WON, Effects, State, new_game
from .view import describe_action, player_view

#: Bumped whenever a change could make a recorded game replay differently.
ENGINE_VERSION = 1

__all__ = [
    "DEFAULT_RULES",
    "ENGINE_VERSION",
    "LOST",
    "MAX_SEED",
    "PLAYING",
    "REJECTIONS",
    "RESIGNED",
    "RULESETS",
    "STATUSES",
    "WON",
    "Action",
    "Card",
    "CardError",
    "CellMove",
    "Deal",
    "DealError",
    "Effects",
    "Move",
    "Resign",
    "Restart",
    "RuleViolation",
    "Ruleset",
    "State",
    "Undo",
    "action_from_command",
    "action_to_command",
    "apply",
    "can_deal",
    "card_code",
    "check_deal",
    "describe_action",
    "is_blocked",
    "legal_actions",
    "legal_line",
    "legal_moves",
    "new_deck",
    "new_game",
    "parse_card",
    "parse_cards",
    "player_view",
    "replay",
    "seeded_deal",
    "shuffle",
]
