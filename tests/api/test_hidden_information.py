"""Hidden information never leaves the server while a game is playing.

For games of every ruleset, seeded and from a deal, the owner plays a few commands (moves,
a deal, an undo) and provokes errors (stale_card, card_face_down, a rule refusal, a version
conflict); then every endpoint is read as the owner, as a stranger and anonymously. In
every response body and header collected, no card that was never face-up, no reserve card,
and neither the seed nor the deal of an unfinished game may appear; its notation, which
names the deal, is refused. Where codes repeat (``double``) each Game is also checked
position by position. Staff do see the hidden cards, and a finished game shows everyone
everything.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games import engine, pools
from games.store import notation, streams
from games.store.models import Game

pytestmark = pytest.mark.django_db

#: Seeds large enough that their digits cannot turn up by chance in a body.
SEED_BASE = 7_354_091_826_417


def walk(value: Any) -> Iterator[Any]:
    """Every value inside a JSON document, dict keys included."""
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def games_in(body: Any) -> Iterator[dict[str, Any]]:
    """Every Game object inside a response body."""
    for value in walk(body):
        if isinstance(value, dict) and {"id", "columns", "version", "reserve"} <= set(value):
            yield value


class Scan:
    """Responses collected about one game, and the facts to check them against."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.responses: list[Any] = []

    def add(self, response: Any) -> Any:
        assert response.status_code < 500, response.content
        self.responses.append(response)
        return response

    def check(self) -> None:
        """Nothing hidden in any body or header collected so far."""
        stream = streams.load(self.game_id)
        assert not stream.finished
        states = {
            v: streams.at_version(self.game_id, v).state for v in range(1, stream.version + 1)
        }
        revealed: set[str] = set()
        for state in states.values():
            for cards, down in zip(state.columns, state.down, strict=True):
                revealed.update(engine.card_code(card) for card in cards[down:])
            revealed.update(engine.card_code(card) for card in state.cells if card is not None)
        deal = [engine.card_code(card) for card in stream.state.deal]
        # Codes no copy of which was ever face-up (with two decks, often none: there the
        # Games are checked position by position below).
        never_seen = set(deal) - revealed
        assert never_seen or stream.rules.decks == 2, "the scan must look for hidden cards"
        header_pattern = re.compile(r"\b(" + "|".join(sorted(never_seen) or ["(?!)"]) + r")\b")
        seed = str(stream.seed) if stream.seed is not None else None
        games_checked = 0

        for response in self.responses:
            where = f"{response.wsgi_request.method} {response.wsgi_request.get_full_path()}"
            for name, value in response.headers.items():
                assert not header_pattern.search(value), (where, name, value)
                assert seed is None or seed not in value, (where, name)
            if not response.content:
                continue
            text = response.content.decode()
            assert seed is None or seed not in text, where
            body = carried(text) if response["Content-Type"].startswith("text/html") else None
            body = json.loads(text) if body is None else body
            for value in walk(body):
                assert not (isinstance(value, str) and value in never_seen), (where, value)
                assert not (isinstance(value, list) and len(value) == len(deal)), where
            for game in games_in(body):
                if game["id"] == self.game_id:
                    self.check_game(game, states[game["version"]], where)
                    games_checked += 1
        assert games_checked > 20

    @staticmethod
    def check_game(game: dict[str, Any], state: engine.State, where: str) -> None:
        """A Game shows exactly the face-up cards of the state of its version."""
        assert game["seed"] is None, where
        assert "reserve_cards" not in game, where
        view = engine.player_view(state)
        assert game["columns"] == view["columns"], where
        for shown, down in zip(game["columns"], state.down, strict=True):
            assert shown[:down] == [None] * down, where


def carried(html: str) -> Any:
    """The API answers the browser's page for a game carries inline (``web/views.py``):
    ``{}`` when it carries none."""
    found = re.search(
        r'<script id="scorpion-answers" type="application/json">(.*?)</script>', html, re.S
    )
    return json.loads(found.group(1)) if found else {}


def first_move(moves: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((entry for entry in moves if entry["type"] == "move"), None)


def face_down_position(game: dict[str, Any]) -> tuple[int, int] | None:
    for number, column in enumerate(game["columns"], 1):
        if column and column[0] is None:
            return number, 0
    return None


def play_and_read(scan: Scan, owner: Any, stranger: Any, anonymous: Any) -> None:
    """Play a few commands as ``owner``, provoke errors, and read every endpoint as each
    viewer; every response goes into ``scan``."""
    base = f"/api/v1/games/{scan.game_id}"
    commands = f"{base}/commands"
    readers = (owner, stranger, anonymous)

    moves = scan.add(owner.get(f"{base}/moves")).json()["moves"]
    scan.add(owner.get(f"{base}/hint"))
    move = first_move(moves)
    if move is not None:
        stale = {**move, "card": "KS" if move["card"] != "KS" else "QS"}
        scan.add(owner.post(commands, stale))  # 409 stale_card (or 422)
        scan.add(owner.post(commands, move, headers={"Idempotency-Key": "m1"}))
        scan.add(owner.post(commands, move, headers={"Idempotency-Key": "m1"}))  # replayed
        scan.add(owner.post(commands, {**move, "expected_version": 1}))  # 409 version_conflict
    if {"type": "deal"} in scan.add(owner.get(f"{base}/moves")).json()["moves"]:
        scan.add(owner.post(commands, {"type": "deal"}))
    hinted = scan.add(owner.get(f"{base}/hint")).json()["move"]
    if hinted is not None:
        scan.add(owner.post(commands, hinted))
    scan.add(owner.post(commands, {"type": "undo"}))  # 201, or 422 undo_limit
    game = scan.add(owner.get(base)).json()
    hidden = face_down_position(game)
    if hidden is not None:
        column, index = hidden
        target = 1 if column != 1 else 2
        for guess in ("AS", "KH"):
            scan.add(
                owner.post(
                    commands,
                    {"type": "move", "from": column, "index": index, "to": target, "card": guess},
                )
            )  # 422 card_face_down, whatever the guess
    scan.add(owner.post(commands, {"type": "move", "from": 1, "index": 99, "to": 2}))
    for reader in (stranger, anonymous):
        scan.add(reader.post(commands, {"type": "resign"}))  # 403 / 401

    version = scan.add(owner.get(base)).json()["version"]
    for reader in readers:
        scan.add(reader.get(base))
        scan.add(reader.get(base, headers={"If-None-Match": f'"{version}"'}))
        scan.add(reader.get("/api/v1/games"))
        scan.add(reader.get("/api/v1/games?owner=alice&status=playing"))
        # The browser's page for the game carries the game inline, as the API answers an
        # anonymous reader (the page's request carries no token, whoever opens it).
        page = scan.add(reader.get(f"/games/{scan.game_id}"))
        game_shown = carried(page.content.decode()).get(f"/games/{scan.game_id}")
        assert game_shown is None or game_shown == scan.add(anonymous.get(base)).json()
        scan.add(reader.get(f"{base}/events"))
        scan.add(reader.get(f"{base}/events?after=1"))
        scan.add(reader.get(f"{base}/moves"))
        scan.add(reader.get(f"{base}/hint"))
        scan.add(reader.get(f"{base}/analysis"))  # 409 game_not_finished: no job, no search
        for asked in (f"{base}?format=scorpion", f"{base}?format=json"):
            scan.add(reader.get(asked))
        refused = scan.add(reader.get(base, headers={"Accept": "text/x-scorpion"}))
        assert refused.json()["code"] == "game_not_finished"
        for seq in range(1, version + 1):
            scan.add(reader.get(f"{base}/states/{seq}"))
        scan.add(reader.get(f"{base}/states/{version + 1}"))
        scan.add(reader.get("/api/v1/players/alice"))
        # The browser's lobby, TV and archive pages read these: the game is live on them.
        scan.add(reader.get("/api/v1/games/live"))
        scan.add(reader.get("/api/v1/tv"))
        scan.add(reader.get("/api/v1/challenges"))
        # The public log and its exports: a game in play is in neither.
        scan.add(reader.get("/api/v1/log"))
        scan.add(reader.get("/api/v1/log?format=json&limit=500"))
        scan.add(reader.get("/api/v1/exports"))
        # The end screen and the replay read the solver's analysis: never of a game in play.
        assert scan.add(reader.get(f"{base}/analysis")).json()["code"] == "game_not_finished"


RULESETS = list(engine.RULESETS)


@pytest.mark.parametrize("source", ["seed", "deal"])
@pytest.mark.parametrize("rules", RULESETS)
def test_no_hidden_card_seed_or_deal_leaves_the_server(
    api, alice, bob, staff, rules, source
) -> None:
    owner, stranger = api.as_user(alice[1]), api.as_user(bob[1])
    offset = RULESETS.index(rules)
    if source == "seed":
        body: dict[str, Any] = {"rules": rules, "seed": SEED_BASE + offset}
    else:
        cards = engine.seeded_deal(engine.RULESETS[rules], SEED_BASE + 100 + offset)
        body = {"rules": rules, "deal": [engine.card_code(card) for card in cards]}
    scan = Scan("")
    created = scan.add(owner.post("/api/v1/games", body))
    assert created.status_code == 201
    scan.game_id = created.json()["id"]

    play_and_read(scan, owner, stranger, api)
    scan.check()

    # Staff do see everything of the playing game.
    stream = streams.load(scan.game_id)
    seen_by_staff = api.as_user(staff[1]).get(f"/api/v1/games/{scan.game_id}").json()
    full = engine.player_view(stream.state, reveal=True)
    assert seen_by_staff["columns"] == full["columns"]
    assert seen_by_staff["reserve_cards"] == full["reserve_cards"]
    assert seen_by_staff["seed"] == stream.seed
    text = api.as_user(staff[1]).get(f"/api/v1/games/{scan.game_id}?format=scorpion")
    (written,) = notation.read(io.StringIO(text.content.decode()))
    assert written.entries[0].event.deal == tuple(engine.card_code(c) for c in stream.state.deal)
    assert any(None in column for column in engine.player_view(stream.state)["columns"]) or (
        stream.state.reserve
    )


@pytest.mark.parametrize("rules", ["classic", "three_blind_mice", "double"])
def test_a_game_of_a_winnable_pool_leaks_nothing(api, alice, bob, settings, rules) -> None:
    """A pool's deal is a secret seed: neither it nor a hidden card shows while the game is
    played; the body names the deal's difficulty only."""
    settings.POOL_FOLLOW_HINTS = False
    (deal,) = pools.fill(rules, 1)
    owner, stranger = api.as_user(alice[1]), api.as_user(bob[1])
    scan = Scan("")
    created = scan.add(owner.post("/api/v1/games", {"rules": rules, "winnable": True}))
    assert created.status_code == 201
    assert created.json()["certified"] == {
        "difficulty": deal.difficulty,
        "label": deal.difficulty_label,
    }
    scan.game_id = created.json()["id"]
    assert streams.load(scan.game_id).seed == deal.seed

    play_and_read(scan, owner, stranger, api)
    scan.check()
    assert str(deal.seed) not in json.dumps([r.content.decode() for r in scan.responses])


@pytest.mark.parametrize("rules", RULESETS)
def test_a_finished_game_reveals_everything(api, alice, bob, rules) -> None:
    owner = api.as_user(alice[1])
    seed = SEED_BASE + 500 + RULESETS.index(rules)
    game_id = owner.post("/api/v1/games", {"rules": rules, "seed": seed}).json()["id"]
    owner.post(f"/api/v1/games/{game_id}/commands", {"type": "resign"})
    state = streams.load(game_id).state

    for reader in (api, api.as_user(bob[1]), owner):
        game = reader.get(f"/api/v1/games/{game_id}").json()
        assert game["seed"] == seed
        assert game["columns"] == engine.player_view(state, reveal=True)["columns"]
        assert game["reserve_cards"] == [engine.card_code(card) for card in state.reserve]
        created = reader.get(f"/api/v1/games/{game_id}/events").json()["results"][0]["data"]
        assert created["seed"] == seed
        assert created["deal"] == [engine.card_code(card) for card in state.deal]
        first = reader.get(f"/api/v1/games/{game_id}/states/1").json()
        assert None not in [card for column in first["columns"] for card in column]
        text = reader.get(f"/api/v1/games/{game_id}?format=scorpion").content.decode()
        assert f'[Seed "{seed}"]' in text
        (written,) = notation.read(io.StringIO(text))
        assert written.entries[0].event.seed == seed
    assert Game.objects.get(id=game_id).status == "resigned"


def test_a_private_game_leaks_nothing_to_strangers(api, alice, bob) -> None:
    owner, stranger = api.as_user(alice[1]), api.as_user(bob[1])
    game = owner.post("/api/v1/games", {"seed": SEED_BASE + 999, "public": False}).json()
    base = f"/api/v1/games/{game['id']}"

    for reader in (stranger, api):
        for path in (base, f"{base}/events", f"{base}/moves", f"{base}/hint", f"{base}/states/1"):
            response = reader.get(path)
            assert response.status_code == 403
            assert response.json() == {"code": "private_game", "detail": "This game is private."}
        listed = reader.get("/api/v1/games").json()["results"]
        assert game["id"] not in [entry["id"] for entry in listed]
