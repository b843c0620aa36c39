"""Write the golden event streams of ``tests/games/test_golden_replays.py``.

Run only when a change to replay is intended (and bump ``ENGINE_VERSION``):

    .venv/bin/python tests/games/golden/generate.py

Each file holds a game's events (type and data, as stored) and what replaying them must
give: the final state, every event's effects, and the score.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from games import engine  # noqa: E402
from games.store import events as vocabulary  # noqa: E402

# A winning line for classic seed 0, found by a full-information search.
CLASSIC_WIN = json.loads((HERE / "classic_seed0_win.json").read_text())


def random_commands(
    rules: engine.Ruleset, deal: tuple[int, ...], count: int, seed: int, finish: str | None = None
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    state = engine.new_game(rules, deal)
    commands: list[dict[str, Any]] = []
    while len(commands) < count and state.status == engine.PLAYING:
        legal = engine.legal_actions(state)
        roll = rng.random()
        action: engine.Action
        if roll < 0.08 and state.previous is not None and state.undo_budget:
            action = engine.Undo()
        elif roll < 0.09 or not legal:
            action = engine.Restart()
        else:
            action = rng.choice(legal)
        state = engine.apply(state, action)[0]
        commands.append(engine.action_to_command(action))
    if finish and state.status == engine.PLAYING:
        commands.append({"type": finish})
    return commands


def golden(name: str, rules_name: str, seed: int, commands: list[dict[str, Any]]) -> None:
    rules = engine.RULESETS[rules_name]
    deal = engine.seeded_deal(rules, seed)
    state = engine.new_game(rules, deal)
    events = [
        {
            "type": "created",
            "data": {
                "rules": rules.name,
                "seed": seed,
                "deal": [engine.card_code(c) for c in deal],
                "public": True,
                "challenge": None,
                "engine": engine.ENGINE_VERSION,
            },
        }
    ]
    effects: list[dict[str, Any]] = [{"points": 0, "flipped": [], "removed": []}]
    seqs: list[int] = []
    for command in commands:
        action = engine.action_from_command(command)
        state, effect = engine.apply(state, action)
        fact = vocabulary.of_action(action)
        events.append({"type": fact.TYPE, "data": fact.to_json()})
        as_json = effect.to_json()
        if effect.undid is not None:
            as_json["undid"] = seqs[effect.undid - 1]
        effects.append(as_json)
        seqs.append(len(events))
    view = engine.player_view(state, reveal=True)
    document = {
        "description": f"{rules.name} seed {seed}: {len(commands)} actions, ends {state.status}",
        "events": events,
        "expected": {**view, "version": len(events), "effects": effects},
    }
    (HERE / f"{name}.json").write_text(json.dumps(document, indent=1) + "\n")
    print(f"{name}: {document['description']}")


def main() -> None:
    win = list(CLASSIC_WIN["actions"])
    # Take back and replay the 10th action, so undo is part of the winning stream.
    win = [*win[:10], {"type": "undo"}, win[9], *win[10:]]
    golden("classic_win", "classic", CLASSIC_WIN["seed"], win)
    for name, seed, count, finish in [
        ("easy", 3, 150, None),
        ("cards4", 4, 200, "resign"),
        ("traditional", 5, 300, None),
        ("open", 6, 200, None),
        ("wasp", 7, 250, None),
        ("scorpion2", 8, 150, None),
        ("three_blind_mice", 9, 200, None),
        ("double", 10, 300, "resign"),
    ]:
        rules = engine.RULESETS[name]
        deal = engine.seeded_deal(rules, seed)
        golden(name, name, seed, random_commands(rules, deal, count, seed, finish))


if __name__ == "__main__":
    main()
