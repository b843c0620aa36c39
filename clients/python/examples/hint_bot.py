"""A bot that plays one game to its end by taking the server's hints.

    python examples/hint_bot.py http://127.0.0.1:8000 --user bot --password secret-pw-123

It signs in (registering the account the first time), starts a game, and plays the move
each hint suggests until the game is won or lost; with no suggestion left, or after
``--max-actions``, it resigns. It records its hints (``POST /games/{id}/hints``), as a
player racing others must; ``--peek`` asks ``GET /games/{id}/hint`` instead, which records
nothing. It prints the game's id, its final status and version, and how many hinted
actions it played.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from scorpion_client import ApiError, Client


def sign_in(client: Client, user: str, password: str) -> None:
    """Sign in as ``user``, making the account if there is none yet."""
    try:
        client.login(user, password)
    except ApiError as error:
        if error.code != "invalid_credentials":
            raise
        client.register(user, password)


def ask(client: Client, game_id: str, *, peek: bool) -> dict[str, Any]:
    """The hint now. A hint is solver work, which the server bounds per account (one at a
    time, a few a minute) and per process: past a bound it answers 429 or 503 with
    ``Retry-After``, which the client honours a few times; a bot asking for hints back to
    back waits as long as it says, however long."""
    while True:
        try:
            hint: dict[str, Any] = client.hint(game_id) if peek else client.take_hint(game_id)
            return hint
        except ApiError as error:
            if error.status not in (429, 503) or error.retry_after is None:
                raise
            time.sleep(error.retry_after)


def play(
    client: Client, game: dict[str, Any], *, peek: bool = False, max_actions: int = 500
) -> tuple[dict[str, Any], int]:
    """Play ``game`` to its end by hints: the finished game, and how many hints it played."""
    played = 0
    for _ in range(max_actions):
        if game["status"] != "playing":
            return game, played
        hint = ask(client, game["id"], peek=peek)
        move = hint["move"]
        if move is None:
            break
        # The move as /moves gives it, card named: a hint gone stale is a 409, not a mistake.
        command = dict(move)
        game = client.command(game["id"], command)["game"]
        played += 1
    if game["status"] == "playing":
        game = client.command(game["id"], {"type": "resign"})["game"]
    return game, played


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server")
    parser.add_argument("--user", default="hint-bot")
    parser.add_argument("--password", default="hint-bot-password-1")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--peek", action="store_true", help="GET /hint: record no hint")
    parser.add_argument("--max-actions", type=int, default=500)
    args = parser.parse_args(argv)
    with Client(args.server) as client:
        sign_in(client, args.user, args.password)
        game = client.create_game(rules=args.rules, seed=args.seed)
        final, played = play(client, game, peek=args.peek, max_actions=args.max_actions)
    print(final["id"], final["status"], final["version"], played, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
