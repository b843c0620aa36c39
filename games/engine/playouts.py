"""Long legal games without a player: for load generators, benchmarks and tests."""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Action, Restart
from .cards import Card
from .game import apply, legal_actions
from .rules import Ruleset
from .state import PLAYING, new_game


def legal_line(
    rules: Ruleset, deal: Sequence[Card], count: int, *, offset: int = 0
) -> list[Action]:
    """``count`` actions that are legal in turn from ``deal``.

    At step ``n`` it takes the ``(n + offset)``-th legal action (cycling), and a restart
    when none is legal or when that action would end the game, so the line never stops.
    """
    state = new_game(rules, deal)
    line: list[Action] = []
    for step in range(count):
        legal = legal_actions(state)
        action: Action = legal[(step + offset) % len(legal)] if legal else Restart()
        after = apply(state, action)[0]
        if after.status != PLAYING:
            action = Restart()
            after = apply(state, action)[0]
        state = after
        line.append(action)
    return line
