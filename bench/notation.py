"""Notation speed and size: writing and reading games, against baselines of the same run.

    .venv/bin/python bench/notation.py [--games N] [--length L]

Per ruleset, N random games of L events each (legal moves and deals, some undos, hints and
a moderator's void, every event with its time and author) are:

* replayed through the engine alone: the least that a writer (which names the cards a move
  takes) or a reader (which checks them) must do;
* dumped as JSON lines of the events as the API shows them (``type``, ``data``, ``at``,
  ``by``), with the standard library, no replay;
* written in the notation (``games.store.notation.write_all``) and read back (``read``).

The machine is shared and noisy: each figure is the median of several rounds, which take
turns among the four, and the headline numbers are ratios against the replay measured in
the same rounds. Sizes are bytes
a game, and the notation's size as a share of the JSON lines'.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import engine  # noqa: E402
from games.store import events  # noqa: E402
from games.store.notation import Entry, Transcript, read, write_all  # noqa: E402

START = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def random_game(rules: engine.Ruleset, length: int, seed: int) -> Transcript:
    """A game of ``length`` events: mostly legal moves and deals, some undos, a hint now and
    then, a restart where the game would end, and a moderator's void at the end."""
    rng = random.Random(seed)
    cards = engine.seeded_deal(rules, seed)
    state = engine.new_game(rules, cards)
    codes = tuple(engine.card_code(card) for card in cards)
    at = START + dt.timedelta(seconds=seed)
    created = events.Created(rules.name, seed, codes, True, None, engine.ENGINE_VERSION)
    entries = [Entry(created, at, "player")]
    while len(entries) < length - 1:
        at += dt.timedelta(milliseconds=rng.randrange(200, 20_000))
        legal = engine.legal_actions(state)
        fact: events.GameEvent
        if legal and rng.random() < 0.03:
            fact = events.Hinted(engine.action_to_command(rng.choice(legal)), "solver")
        else:
            action: engine.Action = engine.Restart()
            if legal and rng.random() > 0.06:
                action = rng.choice(legal)
            elif state.previous is not None and state.undo_budget:
                action = engine.Undo()
            after = engine.apply(state, action)[0]
            if after.status != engine.PLAYING:
                action, after = engine.Restart(), engine.apply(state, engine.Restart())[0]
            state = after
            fact = events.of_action(action)
        entries.append(Entry(fact, at, "player"))
    void = events.ResultVoided("a bench")
    entries.append(Entry(void, at + dt.timedelta(hours=1), "moderator"))
    return Transcript(tuple(entries), uuid.UUID(int=seed), "player")


def replay(games: list[Transcript]) -> None:
    """The baseline: every game's actions through the engine, nothing else."""
    for game in games:
        created = game.entries[0].event
        assert isinstance(created, events.Created)
        state = engine.new_game(engine.RULESETS[created.rules], engine.parse_cards(created.deal))
        for entry in game.entries[1:]:
            fact = entry.event
            if isinstance(fact, events.PlayerEvent):
                state = engine.apply(state, fact.action())[0]


def json_lines(games: list[Transcript]) -> str:
    """The games as JSON lines of their events, as the API shows them."""
    lines = []
    for game in games:
        for seq, entry in enumerate(game.entries, start=1):
            event = {
                "game": str(game.game_id),
                "seq": seq,
                "type": entry.event.TYPE,
                "data": entry.event.to_json(),
                "at": entry.at.isoformat() if entry.at else None,
                "by": entry.by,
            }
            lines.append(json.dumps(event))
    return "\n".join(lines)


def medians(runs: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """The median time of each run, over ``rounds`` rounds that take turns among them, so
    that the machine's drifting load falls on each alike."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    header = (
        f"{'ruleset':<17}{'replay':>9}{'write':>9}{'read':>9}{'json':>9}"
        f"{'write/replay':>14}{'read/replay':>13}{'bytes/game':>12}{'vs json':>9}"
    )
    print(f"{options.games} games of {options.length} events, median of {options.rounds}")
    print("rates in games a second; ratios of times against the replay's")
    print(header)
    for name, rules in engine.RULESETS.items():
        print(f"{name:<17}{measure(rules, options.games, options.length, options.rounds)}")


def measure(rules: engine.Ruleset, count: int, length: int, rounds: int) -> str:
    """One ruleset's row of figures."""
    games = [random_game(rules, length, seed) for seed in range(count)]
    text = "".join(write_all(games))
    assert list(read(io.StringIO(text))) == games
    size, json_size = len(text.encode()), len(json_lines(games).encode())
    times = medians(
        {
            "replay": lambda: replay(games),
            "write": lambda: "".join(write_all(games)),
            "read": lambda: list(read(io.StringIO(text))),
            "json": lambda: json_lines(games),
        },
        rounds,
    )
    base, writing, reading, dumping = (times[name] for name in ("replay", "write", "read", "json"))
    return (
        f"{count / base:>9.0f}{count / writing:>9.0f}{count / reading:>9.0f}"
        f"{count / dumping:>9.0f}{writing / base:>14.2f}{reading / base:>13.2f}"
        f"{size / count:>12.0f}{size / json_size:>9.2f}"
    )


if __name__ == "__main__":
    main()
