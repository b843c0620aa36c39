"""Self-played games as notation transcripts, for the round trip of the notation.

Each game is random but fixed by its ruleset and number: a seed or an explicit deal, public
or private, a daily challenge's or a contest's (whose player asks for hints), played with
legal moves and deals, undos, restarts and resignations; one game in fifty follows a
winning line of the solver, so every ending occurs. Moderators void and restore results,
some events carry comments, and times step on by random amounts (backwards too, as a
clock may), or are left out.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import random
import uuid

from games import engine
from games.engine.solver import solve
from games.store import events
from games.store.notation import Entry, Transcript

PLAYERS = ("grace", "José", "a.b+c@d-e_f", "玩家")
MODERATORS = ("mod", "Zoë")
REASONS = (
    "a bot: every move 0.2 s apart",
    'said "gg" then {left}; see \\ the log',
    "revisado: fue un error\u2028 de verdad",
    "x",
)
COMMENTS = ("a fine move", "", "two\nlines", "é ✓ ; [not a tag]", '"quoted"')
#: Times of the games: somewhere in 2026, to the millisecond.
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def self_played(rules_name: str, number: int) -> Transcript:
    """Game ``number`` of ``rules_name``: always the same one."""
    rng = random.Random(f"notation:{rules_name}:{number}")
    rules = engine.RULESETS[rules_name]
    winner = winning_line(rules_name) if number % 50 == 0 else None
    created, cards = _created(rng, rules, None if winner is None else winner[0])
    race = created.challenge is not None or created.contest is not None
    player = rng.choice(PLAYERS) if rng.random() < 0.9 else None
    times = rng.choices(("all", "created", "none"), (8, 1, 1))[0]
    clock = Clock(rng, START + dt.timedelta(milliseconds=rng.randrange(365 * 86_400_000)))
    entries = [Entry(created, clock.now if times != "none" else None, player)]
    state = engine.new_game(rules, cards)
    script = None if winner is None else Script(rng, winner[1])
    voided = False
    length = 1_000 if script is not None else min(400, int(rng.expovariate(1 / 30)))
    while len(entries) <= length:
        roll = rng.random()
        event: events.GameEvent
        if roll < 0.02 or (state.status != engine.PLAYING and roll < 0.3):
            voided = not voided
            reason = rng.choice(REASONS)
            event = events.ResultVoided(reason) if voided else events.ResultRestored(reason)
            by = rng.choice(MODERATORS) if rng.random() < 0.8 else None
        elif state.status != engine.PLAYING:
            break
        elif race and roll < 0.08:
            event, by = _hint(rng, state), player
        else:
            action = script.next(state) if script is not None else _action(rng, state)
            state = engine.apply(state, action)[0]
            event, by = events.of_action(action), player
        at = clock.tick() if times == "all" else None
        notes = (rng.choice(COMMENTS),) if rng.random() < 0.03 else ()
        entries.append(Entry(event, at, by, notes))
    game_id = uuid.UUID(int=rng.getrandbits(128)) if rng.random() < 0.9 else None
    return Transcript(tuple(entries), game_id, player)


@functools.cache
def winning_line(rules_name: str) -> tuple[int, tuple[engine.Action, ...]]:
    """The first seed the solver wins within a small budget, and its winning line."""
    rules = engine.RULESETS[rules_name]
    for seed in itertools.count():
        found = solve(rules, engine.new_game(rules, engine.seeded_deal(rules, seed)), 20_000)
        if found.verdict == "won":
            return seed, found.line
    raise AssertionError("not reached")


class Script:
    """A winning line, played with a detour now and then: an undo, and the action again."""

    def __init__(self, rng: random.Random, line: tuple[engine.Action, ...]) -> None:
        self.rng = rng
        self.line = iter(line)
        self.redo: engine.Action | None = None
        self.last: engine.Action | None = None

    def next(self, state: engine.State) -> engine.Action:
        if self.redo is not None:
            action, self.redo = self.redo, None
            return action
        if self.last is not None and state.undo_budget > 0 and self.rng.random() < 0.05:
            self.redo = self.last
            return engine.Undo()
        self.last = next(self.line)
        return self.last


def _created(
    rng: random.Random, rules: engine.Ruleset, seed: int | None
) -> tuple[events.Created, list[int]]:
    """A created event: of ``seed`` if given, else of a random seed or a shuffled deck."""
    if seed is not None or rng.random() < 0.85:
        seed = rng.randrange(engine.MAX_SEED + 1) if seed is None else seed
        cards = list(engine.seeded_deal(rules, seed))
    else:
        cards = engine.new_deck(rules.decks)
        rng.shuffle(cards)
    kind = rng.choices(("casual", "challenge", "contest"), (7, 2, 1))[0]
    created = events.Created(
        rules=rules.name,
        seed=seed,
        deal=tuple(engine.card_code(card) for card in cards),
        public=kind != "casual" or rng.random() < 0.8,
        challenge=f"2026-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
        if kind == "challenge"
        else None,
        engine=engine.ENGINE_VERSION,
        contest=str(uuid.UUID(int=rng.getrandbits(128))) if kind == "contest" else None,
        round=rng.randint(1, 9) if kind == "contest" else None,
    )
    return created, cards


def _action(rng: random.Random, state: engine.State) -> engine.Action:
    """A random action the rules accept: mostly a legal move or deal."""
    roll = rng.random()
    can_undo = state.previous is not None and state.undo_budget > 0
    if roll < 0.06 and can_undo:
        return engine.Undo()
    if roll < 0.07:
        return engine.Restart()
    if roll < 0.075:
        return engine.Resign()
    legal = engine.legal_actions(state)
    if legal:
        return rng.choice(legal)
    return engine.Undo() if can_undo else engine.Resign()


def _hint(rng: random.Random, state: engine.State) -> events.Hinted:
    """A hint as a race records it: one of the legal actions, or none."""
    legal = engine.legal_actions(state)
    if not legal or rng.random() < 0.1:
        return events.Hinted(move=None, source="none")
    command = engine.action_to_command(rng.choice(legal))
    return events.Hinted(move=command, source=rng.choice(("solver", "heuristic")))


class Clock:
    """Event times: random steps, now and then none, backwards or a day long."""

    def __init__(self, rng: random.Random, start: dt.datetime) -> None:
        self.rng = rng
        self.now = start

    def tick(self) -> dt.datetime:
        roll = self.rng.random()
        if roll < 0.05:
            step = 0
        elif roll < 0.07:
            step = -self.rng.randrange(1, 5_000)
        elif roll < 0.09:
            step = self.rng.randrange(86_400_000)
        else:
            step = self.rng.randrange(100, 30_000)
        self.now += dt.timedelta(milliseconds=step)
        return self.now
