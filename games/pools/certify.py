"""Certifying a pool's deals: the secret sequence, the proof of a win, and the difficulty.

Candidate ``n`` of a ruleset's pool is the seeded deal of HMAC-SHA256(``DAILY_SECRET``,
``scorpion-pool-v1:<rules>:<n>``) (``games.dailies.secrets``, as every secret deal). It is
certified when the solver wins it within ``POOL_SOLVER_BUDGET`` nodes and the line it found
replays to a win through the engine. Its difficulty (docs/solvability.md#difficulty) comes
from the nodes that search took and, with ``POOL_FOLLOW_HINTS`` on, from whether a player
who sees only the face-up cards and always plays the hint wins it.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from games import engine
from games.dailies import secrets
from games.engine import hint
from games.engine.solver import solve

logger = logging.getLogger(__name__)

_SEED_LABEL = "scorpion-pool-v1"

#: The solver's effort counts on a logarithmic scale up to this many nodes (then it is 1).
EFFORT_NODES = 1_000_000

#: Difficulty bands: a band holds the difficulties below its bound (``expert`` the rest).
DIFFICULTY_BANDS: tuple[tuple[str, float], ...] = (
    ("easy", 0.25),
    ("medium", 0.5),
    ("hard", 0.75),
)
EXPERT = "expert"
DIFFICULTY_LABELS = (*(name for name, _ in DIFFICULTY_BANDS), EXPERT)

#: The hint follower gives up after this many actions, or on meeting a position this often.
FOLLOWER_MAX_ACTIONS = 300
FOLLOWER_LOOP = 3


def secret_seed(rules: str, index: int) -> int:
    """Candidate ``index`` of the pool sequence of ``rules``."""
    return secrets.seed(f"{_SEED_LABEL}:{rules}:{index}")


def effort(nodes: int) -> float:
    """The solver's effort in [0, 1]: ``log(1 + nodes) / log(1 + EFFORT_NODES)``, at most 1."""
    return min(1.0, math.log1p(max(0, nodes)) / math.log1p(EFFORT_NODES))


def difficulty(nodes: int, follower_won: bool | None) -> float:
    """A deal's difficulty in [0, 1]: the solver's :func:`effort` alone when the hint
    follower was not measured, else the mean of it and 0 (the follower won) or 1 (lost)."""
    if follower_won is None:
        return round(effort(nodes), 4)
    return round((effort(nodes) + (0.0 if follower_won else 1.0)) / 2, 4)


def label(value: float) -> str:
    """The band of a difficulty (:data:`DIFFICULTY_BANDS`)."""
    for name, bound in DIFFICULTY_BANDS:
        if value < bound:
            return name
    return EXPERT


@dataclass(frozen=True, slots=True)
class Certified:
    """A candidate proved winnable: its seed, a checked winning line (API commands), the
    nodes the proof took, whether the hint follower won it, and the difficulty."""

    rules: str
    index: int
    seed: int
    solution: tuple[dict[str, Any], ...]
    nodes: int
    follower_won: bool | None
    difficulty: float

    @property
    def difficulty_label(self) -> str:
        return label(self.difficulty)


def certify(
    rules: engine.Ruleset, index: int, *, follow: bool | None = None
) -> tuple[Certified | None, int]:
    """Candidate ``index`` of the pool of ``rules`` certified, or ``None`` when the solver
    did not win it (lost, or undecided within ``POOL_SOLVER_BUDGET``); and the nodes spent.
    With ``follow`` (``POOL_FOLLOW_HINTS`` if ``None``) the hint follower plays it too;
    without, its difficulty is the solver's effort until :func:`follow_up` measures it."""
    seed = secret_seed(rules.name, index)
    deal = engine.seeded_deal(rules, seed)
    solution = solve(rules, engine.new_game(rules, deal), settings.POOL_SOLVER_BUDGET)
    if solution.verdict != "won":
        return None, solution.nodes
    try:
        final = engine.replay(rules, deal, solution.line)
    except engine.RuleViolation as error:
        logger.error("pool %s candidate %d: the solver's line is refused: %s", rules, index, error)
        return None, solution.nodes
    if final.status != engine.WON:
        logger.error("pool %s candidate %d: the solver's line does not win", rules.name, index)
        return None, solution.nodes
    if follow is None:
        follow = settings.POOL_FOLLOW_HINTS
    follower_won = follows_to_win(rules, deal) if follow else None
    commands = tuple(engine.action_to_command(action) for action in solution.line)
    return (
        Certified(
            rules=rules.name,
            index=index,
            seed=seed,
            solution=commands,
            nodes=solution.nodes,
            follower_won=follower_won,
            difficulty=difficulty(solution.nodes, follower_won),
        ),
        solution.nodes,
    )


def follow_up(rules: engine.Ruleset, seed: int, nodes: int) -> tuple[bool, float]:
    """The hint follower's verdict on a certified deal of ``rules`` (``seed``, proved in
    ``nodes``), and the difficulty that it makes."""
    won = follows_to_win(rules, engine.seeded_deal(rules, seed))
    return won, difficulty(nodes, won)


def follows_to_win(rules: engine.Ruleset, deal: tuple[engine.Card, ...]) -> bool:
    """Whether a player who sees only the face-up cards and always plays the server's hint
    (``HINT_SAMPLES`` samples of ``HINT_SAMPLE_BUDGET`` nodes) wins ``deal``; a player with
    no hint left, going round in circles or past ``FOLLOWER_MAX_ACTIONS`` actions has not."""
    state = engine.new_game(rules, deal)
    seen: Counter[Hashable] = Counter()
    for _ in range(FOLLOWER_MAX_ACTIONS):
        if state.status == engine.WON:
            return True
        if state.status != engine.PLAYING:
            return False
        key = (state.columns, state.down, state.reserve, state.cells)
        seen[key] += 1
        if seen[key] >= FOLLOWER_LOOP:
            return False
        found = hint.hint(
            rules,
            engine.player_view(state),
            samples=settings.HINT_SAMPLES,
            budget=settings.HINT_SAMPLE_BUDGET,
        )
        if found.action is None:
            return False
        state = engine.apply(state, found.action)[0]
    return state.status == engine.WON
