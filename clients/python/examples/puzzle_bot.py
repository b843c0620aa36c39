"""A bot that solves rated puzzles from what it sees, with the project's own solver.

    python examples/puzzle_bot.py http://127.0.0.1:8000 --user bot --puzzles 5

Run it from a checkout of the repository: it imports the rules engine (``games.engine``,
pure Python, the standard library only) from the checkout's root. It signs in (registering
the account the first time), asks for a rated puzzle, and plays it to its end. Each move is
chosen as the server judges one (docs/puzzles.md): the cards it cannot see are dealt into
their places in one way, and ``games.engine.puzzles.classify`` tries every move in every
way they could lie that can be won at all; a move that wins in all of them is played. So a
puzzle's answer can be found from the player's view alone, which is what makes it a puzzle.
It prints, for each puzzle, its id, how the attempt ended and the rating change, then the
number solved.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from scorpion_client import ApiError, Client

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # the rules engine, from the repository's checkout
    sys.path.insert(0, str(ROOT))

from games import engine  # noqa: E402
from games.engine import puzzles  # noqa: E402
from games.engine.state import position  # noqa: E402


def sign_in(client: Client, user: str, password: str) -> None:
    """Sign in as ``user``, making the account if there is none yet."""
    try:
        client.login(user, password)
    except ApiError as error:
        if error.code != "invalid_credentials":
            raise
        client.register(user, password)


def completion(rules: engine.Ruleset, seen: dict[str, Any]) -> engine.State:
    """A position that agrees with what the attempt shows (``position`` of its body), the
    cards it does not show dealt into the face-down places and the reserve in deck order:
    one of the ways they could lie."""
    shown = Counter(code for column in seen["columns"] for code in column if code is not None)
    shown.update(code for code in seen.get("cells") or () if code is not None)
    for suit in seen["removed"]:
        shown.update(rank + suit for rank in "A23456789TJQK")
    remaining = Counter(engine.card_code(card) for card in engine.new_deck(rules.decks))
    remaining.subtract(shown)
    unseen = iter(sorted(engine.parse_card(code) for code in remaining.elements()))
    columns = [
        [next(unseen) if code is None else engine.parse_card(code) for code in column]
        for column in seen["columns"]
    ]
    return position(
        rules,
        columns=columns,
        down=seen["down"],
        reserve=[next(unseen) for _ in range(seen["reserve"])],
        cells=[
            None if code is None else engine.parse_card(code) for code in seen.get("cells") or ()
        ],
        removed=["SHDC".index(suit) for suit in seen["removed"]],
    )


def choose(rules: engine.Ruleset, seen: dict[str, Any]) -> dict[str, Any] | None:
    """A move that wins however the unseen cards lie (``None`` if the solver finds none)."""
    node, _ = puzzles.classify(rules, completion(rules, seen))
    if node is None or not node.wins:
        return None
    return engine.action_to_command(puzzles.decode(node.wins[0]))


def solve(client: Client, attempt: dict[str, Any], rules: engine.Ruleset) -> dict[str, Any]:
    """Play ``attempt`` to its end: the attempt as it ended."""
    while attempt["status"] == "playing":
        move = choose(rules, attempt["position"])
        if move is None:
            given_up: dict[str, Any] = client.give_up_puzzle(attempt["id"])
            return given_up
        attempt = client.puzzle_move(attempt["id"], move, ply=len(attempt["moves"]))["attempt"]
    return attempt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server")
    parser.add_argument("--user", default="puzzle-bot")
    parser.add_argument("--password", default="puzzle-bot-password-1")
    parser.add_argument("--puzzles", type=int, default=3)
    args = parser.parse_args(argv)
    solved = 0
    with Client(args.server) as client:
        sign_in(client, args.user, args.password)
        for _ in range(args.puzzles):
            try:
                attempt = client.next_puzzle()
            except ApiError as error:
                if error.code == "no_puzzle":
                    break
                raise
            rules = engine.RULESETS[attempt["puzzle"]["rules"]]
            ended = solve(client, attempt, rules)
            solved += ended["status"] == "solved"
            change = ended["rating"]["change"] if ended["rating"] else 0.0
            print(ended["puzzle"]["id"], ended["status"], f"{change:+.1f}", flush=True)
    print("solved", solved, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
