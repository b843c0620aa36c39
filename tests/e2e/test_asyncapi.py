"""The AsyncAPI document against real frames: a daphne server serves it beside the OpenAPI
document, and every frame its four feeds send in a game, a daily challenge, a race and an
arena, from first frame to finish, is valid against the schema of its message (jsonschema).
The document, the OpenAPI document and docs/api.md name the same frames."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from games import clock
from games.dailies import challenges as dailies
from games.writes import accounts, contests

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


@pytest.fixture
def document(server) -> dict[str, Any]:
    response = httpx.get(f"{server.http}/api/asyncapi.json", timeout=30)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    return response.json()


class Frames:
    """Frames captured from one feed, each checked against the document as it arrives."""

    def __init__(self, document: dict[str, Any], feed: str) -> None:
        self.document = document
        self.feed = feed
        self.seen: list[dict[str, Any]] = []

    def check(self, frame: dict[str, Any]) -> dict[str, Any]:
        name = f"{self.feed}.{frame['type']}"
        channel = self.document["channels"][self.feed]["messages"]
        assert name in channel, f"{name} is not a message of the {self.feed} channel"
        schema = {**self.document, "$ref": f"#/components/messages/{name}/payload"}
        errors = list(Draft202012Validator(schema).iter_errors(frame))
        assert not errors, (name, [error.message for error in errors][:5], frame)
        self.seen.append(frame)
        return frame

    def next(self, ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
        return self.check(json.loads(ws.recv(timeout=timeout)))

    def until(self, ws: ClientConnection, kind: str, timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            frame = self.next(ws, timeout=max(0.1, deadline - time.monotonic()))
            if frame["type"] == kind:
                return frame

    def types(self) -> set[str]:
        return {frame["type"] for frame in self.seen}


def player(django_user_model, name: str) -> httpx.Client:
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    return httpx.Client(headers={"Authorization": f"Token {accounts.key_issue(user=user)}"})


def test_game_feed_frames_match_the_document(server, document, django_user_model) -> None:
    alice = player(django_user_model, "alice")
    game = alice.post(f"{server.http}/api/v1/games", json={"seed": 7, "public": True}).json()
    frames = Frames(document, "game")
    with connect(f"{server.ws}/ws/games/{game['id']}/?watchers=1", open_timeout=10) as ws:
        frames.until(ws, "snapshot")
        frames.until(ws, "watchers")
        played = alice.post(
            f"{server.http}/api/v1/games/{game['id']}/commands", json={"type": "deal"}
        )
        assert played.status_code == 201
        frames.until(ws, "event")
        ws.send(json.dumps({"type": "ping"}))
        frames.until(ws, "pong")
        ws.send("not json")
        assert frames.until(ws, "error")["code"] == "bad_message"
    with connect(f"{server.ws}/ws/games/{game['id']}/?after=99", open_timeout=10) as ws:
        assert frames.until(ws, "error")["code"] == "bad_after"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 4400
    for credentials, code in (("ticket=bogus", "bad_ticket"), ("token=abc", "token_in_url")):
        with connect(f"{server.ws}/ws/games/{game['id']}/?{credentials}", open_timeout=10) as ws:
            assert frames.until(ws, "error")["code"] == code
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 4401
    assert frames.types() == {"snapshot", "watchers", "event", "pong", "error"}


def test_challenge_feed_frames_match_the_document(server, document, django_user_model) -> None:
    dailies.prepare(dailies.today())
    frames = Frames(document, "challenge")
    with connect(f"{server.ws}/ws/challenges/today/", open_timeout=10) as ws:
        assert frames.until(ws, "standings")["results"] == []
        alice = player(django_user_model, "alice")
        game = alice.post(f"{server.http}/api/v1/challenges/today/join").json()
        standings = frames.until(ws, "standings")
        # The frame is every watcher's: no game id while the day runs.
        assert [(row["player"], row["game"]) for row in standings["results"]] == [("alice", None)]
        assert (
            alice.get(f"{server.http}/api/v1/challenges/today/standings").json()["results"][0][
                "game"
            ]
            == game["id"]
        )
        ws.send(json.dumps({"type": "ping"}))
        frames.until(ws, "pong")
    assert frames.types() == {"standings", "pong"}


def test_race_feed_frames_match_the_document(server, document, django_user_model) -> None:
    alice = player(django_user_model, "alice")
    race = alice.post(
        f"{server.http}/api/v1/races", json={"countdown": 2, "time_limit": 600, "deals": 1}
    ).json()
    frames = Frames(document, "race")
    with connect(f"{server.ws}/ws/races/{race['code']}/", open_timeout=10) as ws:
        frames.until(ws, "race")
        frames.until(ws, "countdown")
        frames.until(ws, "standings")
        frames.until(ws, "start")
        dealt = alice.post(f"{server.http}/api/v1/races/{race['code']}/games").json()
        game = dealt["results"][0]["id"]
        alice.post(f"{server.http}/api/v1/games/{game}/commands", json={"type": "resign"})
        finish = frames.until(ws, "finish")
        assert finish["results"][0]["games"] == [game]
    assert {"race", "countdown", "standings", "start", "finish"} <= frames.types()


def test_arena_feed_frames_match_the_document(server, document, django_user_model) -> None:
    alice = player(django_user_model, "alice")  # first: hashing a password takes a while
    # The socket must be open before the arena starts, or no start frame comes: a few
    # seconds of margin, for a loaded machine.
    now = clock.now()
    arena = contests.arena_schedule(
        rules="classic",
        starts_at=now + dt.timedelta(seconds=4),
        ends_at=now + dt.timedelta(seconds=16),
    )
    frames = Frames(document, "arena")
    with connect(f"{server.ws}/ws/arenas/{arena.id}/", open_timeout=10) as ws:
        frames.until(ws, "arena")
        frames.until(ws, "standings")
        frames.until(ws, "start")
        dealt = alice.post(f"{server.http}/api/v1/arenas/{arena.id}/play")
        assert dealt.status_code in (200, 201), dealt.text
        game = dealt.json()["id"]
        alice.post(f"{server.http}/api/v1/games/{game}/commands", json={"type": "resign"})
        frames.until(ws, "standings")
        finish = frames.until(ws, "finish", timeout=30)
        assert finish["results"][0]["games"] == [game]
    assert {"arena", "standings", "start", "finish"} <= frames.types()


def test_the_document_openapi_and_docs_name_the_same_frames(server, document) -> None:
    Draft202012Validator.check_schema(document)  # the whole document is sound JSON Schema
    openapi = httpx.get(
        f"{server.http}/api/schema/",
        headers={"Accept": "application/vnd.oai.openapi+json"},
        timeout=30,
    ).json()
    assert document["asyncapi"].startswith("3.")
    # Every body a frame carries is the REST API's schema of the same name, unchanged but
    # for nullable (JSON Schema's null type).
    for name, schema in document["components"]["schemas"].items():
        assert name in openapi["components"]["schemas"], name
        assert set(schema.get("properties", {})) == set(
            openapi["components"]["schemas"][name].get("properties", {})
        ), name
    # The schemas refuse what is not a frame of theirs.
    frames = Frames(document, "game")
    for wrong in (
        {"type": "snapshot"},
        {"type": "watchers", "count": -1},
        {"type": "error", "code": "oops"},
        {"type": "pong", "extra": 1},
        {"type": "standings", "results": []},
    ):
        with pytest.raises(AssertionError):
            frames.check(wrong)
    # Every reference resolves.
    text = json.dumps(document)
    for ref in set(re.findall(r'"\$ref": "#/([^"]+)"', text)):
        node: Any = document
        for part in ref.split("/"):
            node = node[part]
    # docs/api.md's WebSocket section names exactly the frame types of the document.
    section = DOCS.read_text().split("## WebSocket", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r'\{"type": "([a-z_]+)"', section))
    served = {message["name"] for message in document["components"]["messages"].values()}
    assert documented == served
    # And each channel is a path of the WebSocket section.
    for channel in document["channels"].values():
        prefix = channel["address"].split("{")[0]
        assert f"`{prefix}" in section, prefix
