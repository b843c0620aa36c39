"""No puzzle's answer and no unseen card leaves the server before the attempt ends.

For each kind of puzzle (every card face up; one card face down that the answer turns up;
six cards unseen), in each mode (rated, the puzzle of the day, Streak), a player plays
winning moves and provokes every refusal (a move the rules refuse, one that only
renumbers columns, a stale ply, a stale card, a bad body), while the player, another
player and an anonymous client read every puzzle path, and the browser's puzzle pages.
In every body and header collected before the attempt ends: no card that was unseen when
it was collected, no answer (the line, the themes, where the puzzle was found, the tree),
and neither the source game's id nor its daily challenge. Puzzles have no live feed: while
attempts are played a spectator of the source game (a public finished game) receives no
frame. Once the attempt has ended, the same scan finds the unseen cards: it can fail.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from games import clock, engine
from games.engine import puzzles as found
from games.puzzles.models import Puzzle
from games.puzzles.positions import state_of
from games.writes import puzzles as writing
from scorpion_server.asgi import application
from tests.api.test_hidden_information import carried, walk
from tests.puzzle_helpers import make_puzzle, play_the_game

pytestmark = pytest.mark.django_db(transaction=True)

KINDS = ("open_two_ways", "reveal_then_open", "hidden_only_move")
#: The daily last: a day's puzzle is never dealt as a rated or a streak one.
MODES = ("rated", "streak", "daily")


def unseen_codes(state: engine.State) -> set[str]:
    cards = [
        card for cards, down in zip(state.columns, state.down, strict=True) for card in cards[:down]
    ]
    return {engine.card_code(card) for card in (*cards, *state.reserve)}


class Scan:
    """Responses collected while an attempt is played, each with the cards unseen then."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.collected: list[tuple[Any, set[str]]] = []

    def add(self, response: Any, state: engine.State) -> Any:
        assert response.status_code != 500, response.content
        self.collected.append((response, unseen_codes(state)))
        return response

    def leaks(self) -> list[str]:
        """What each body or header collected shows that it should not (empty: nothing)."""
        puzzle = self.puzzle
        found_in = [str(puzzle.source_game)] if puzzle.source_game else []
        if puzzle.source_challenge:
            found_in.append(puzzle.source_challenge.isoformat())
        secrets = [*found_in, *puzzle.tree]
        leaks = []
        for response, unseen in self.collected:
            where = f"{response.wsgi_request.method} {response.wsgi_request.get_full_path()}"
            pattern = re.compile(r"\b(" + "|".join(sorted(unseen) or ["(?!)"]) + r")\b")
            for name, value in response.headers.items():
                if pattern.search(value) or any(secret in value for secret in secrets):
                    leaks.append(f"{where}: header {name}")
            if not response.content:
                continue
            text = response.content.decode()
            leaks.extend(f"{where}: {secret}" for secret in secrets if secret in text)
            html = response["Content-Type"].startswith("text/html")
            body = carried(text) if html else json.loads(text)
            for value in walk(body):
                if isinstance(value, str) and value in unseen:
                    leaks.append(f"{where}: {value}")
                if isinstance(value, dict) and "position" in value and "puzzle" in value:
                    info = value["puzzle"]
                    for key in ("themes", "solution", "game", "version", "challenge", "played"):
                        if info.get(key) is not None:
                            leaks.append(f"{where}: puzzle.{key}")
                    if "reserve_cards" in value["position"]:
                        leaks.append(f"{where}: reserve_cards")
                if isinstance(value, dict) and ({"tree", "line", "key"} & set(value)):
                    leaks.append(f"{where}: {sorted(value)}")
        return leaks


def start(mode: str, owner: Any) -> dict[str, Any]:
    if mode == "rated":
        return owner.post("/api/v1/puzzles/next").json()
    if mode == "daily":
        return owner.post("/api/v1/puzzles/daily").json()
    return owner.post("/api/v1/puzzles/streak").json()["attempt"]


def read_everything(
    scan: Scan, state: engine.State, attempt: str, owner: Any, others: list[Any]
) -> None:
    url = f"/api/v1/puzzles/attempts/{attempt}"
    for reader in (owner, *others):
        scan.add(reader.get(url), state)
        scan.add(reader.get("/api/v1/puzzles/daily"), state)
        scan.add(reader.get("/api/v1/puzzles/streak"), state)
        scan.add(reader.get("/api/v1/players/alice/puzzles"), state)
        scan.add(reader.get("/api/v1/puzzles/themes"), state)
        scan.add(reader.get("/api/v1/puzzles/exports"), state)
        scan.add(reader.post(f"{url}/moves", {"type": "deal"}), state)
        for page in ("/puzzles", "/puzzles/daily", "/puzzles/streak", "/puzzles/dashboard"):
            scan.add(reader.client.get(page), state)


def provoke(scan: Scan, state: engine.State, attempt: str, owner: Any, played: int) -> None:
    url = f"/api/v1/puzzles/attempts/{attempt}/moves"
    renumbering = [
        a
        for a in engine.legal_actions(state)
        if found.renumbers(state, a, engine.apply(state, a)[1])
    ]
    for action in renumbering[:1]:
        scan.add(owner.post(url, engine.action_to_command(action)), state)  # 422 no progress
    scan.add(owner.post(url, {"type": "move", "from": 1, "index": 40, "to": 2}), state)  # 422
    for column, down in enumerate(state.down, 1):
        if down:  # a face-down card, whatever one guesses it is: the rules' refusal
            for guess in ("AS", "KH", "7C"):
                body = {"type": "move", "from": column, "index": 0, "to": 1, "card": guess}
                scan.add(owner.post(url, body), state)
    scan.add(
        owner.post(url, {"type": "move", "from": 1, "index": 0, "to": 2, "ply": played + 5}), state
    )
    scan.add(owner.post(url, {"type": "restart"}), state)  # 400
    scan.add(owner.post(url, "not an object"), state)  # 400


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_of_a_puzzle_leaves_before_the_attempt_ends(api, player, kind):
    alice, alice_key = player("alice")
    _, bob_key = player("bob")
    stranger = api.as_user(bob_key)
    source = play_the_game(alice)  # a real public game, so a spectator can watch its feed
    puzzle = make_puzzle(kind, game=source, version=7)

    async def watched() -> None:
        spectator = WebsocketCommunicator(application, f"/ws/games/{source}/")
        assert (await spectator.connect())[0]
        assert (await spectator.receive_json_from(timeout=5))["type"] == "snapshot"
        await sync_to_async(play_every_mode)(api, player, stranger, puzzle)
        assert await spectator.receive_nothing(timeout=0.5)
        await spectator.disconnect()

    async_to_sync(watched)()


def play_every_mode(api: Any, player: Any, stranger: Any, puzzle: Puzzle) -> None:
    rules = engine.RULESETS[puzzle.rules]
    for mode in MODES:
        scan = Scan(puzzle)
        if mode == "daily":
            writing.puzzle_days_prepare(clock.now().date())
        # Each mode needs a player who has not seen the puzzle.
        _, fresh_key = player(f"p-{mode}")
        owner = api.as_user(fresh_key)
        attempt = start(mode, owner)
        assert attempt["puzzle"]["id"] == puzzle.id, (mode, attempt)
        state = state_of(rules, puzzle.position)
        played = 0
        while True:
            read_everything(scan, state, attempt["id"], owner, [stranger, api])
            provoke(scan, state, attempt["id"], owner, played)
            node = puzzle.tree[found.key(state)]
            move = found.decode(node["w"][0])
            after = engine.apply(state, move)[0]
            answer = owner.post(
                f"/api/v1/puzzles/attempts/{attempt['id']}/moves",
                {**engine.action_to_command(move), "ply": played},
            )
            body = answer.json()
            assert body["verdict"] == "right"
            played += 1
            if body["attempt"]["status"] != "playing":
                break
            # Before the end: the answer shows what the move turned up, nothing more.
            scan.add(answer, after)
            state = after
        assert scan.leaks() == [], (puzzle.id, mode)
        # Ended: the attempt shows everything, and the scan would say so.
        ended = Scan(puzzle)
        first = state_of(rules, puzzle.position)
        ended.add(owner.get(f"/api/v1/puzzles/attempts/{attempt['id']}"), first)
        assert ended.leaks(), "the scan must find the answer once it may be shown"
