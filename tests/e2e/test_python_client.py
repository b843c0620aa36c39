"""The Python client (clients/python) and its two example bots against a real daphne server:
REST calls and their errors, retries that apply a command once, a game feed that resumes
with ``?after=`` after its connection drops, the asyncio client, the bot that plays a game
to its end by hints, and the bot that follows a race to its finish."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from scorpion_client import ApiError, AsyncClient, Client, FeedClosed, Retry
from tests.puzzle_helpers import make_puzzle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"


@pytest.fixture(scope="module")
def server(live_server_factory):
    # Cheap hints: the bot asks for one per action, faster than an account's rate of solver
    # work allows (it waits as Retry-After says; tests/api/test_analysis_jobs.py has the rate).
    return live_server_factory(HINT_SAMPLES="8", HINT_TIME_LIMIT="0.05", SOLVER_RATE="off")


def signed_in(server: Any, name: str, **options: Any) -> Client:
    client = Client(server.http, **options)
    client.register(name, f"pw-{name}-long-enough-1")
    return client


def test_rest_calls_and_their_errors(server) -> None:
    with signed_in(server, "ada", language="it") as ada:
        assert ada.me()["username"] == "ada"
        rules = ada.rules()
        assert rules["default"] == "classic"
        assert rules["results"][0]["description"] == rules["results"][0]["descriptions"]["it"]
        game = ada.create_game(rules="classic", seed=12345)
        assert ada.game(game["id"])["version"] == 1
        moves = ada.moves(game["id"])["moves"]
        played = ada.command(game["id"], moves[0])
        assert played["game"]["version"] == 2
        with pytest.raises(ApiError) as refused:
            ada.command(game["id"], {"type": "move", "from": 9, "index": 0, "to": 1})
        assert refused.value.status == 422 and refused.value.code == "bad_column"
        assert refused.value.detail  # in Italian, as asked
        with pytest.raises(ApiError) as missing:
            ada.game("00000000-0000-4000-8000-000000000000")
        assert (missing.value.status, missing.value.code) == (404, "not_found")
        assert [e["type"] for e in ada.events(game["id"])["results"]][:1] == ["created"]


def test_the_account_calls(server) -> None:
    with signed_in(server, "bea") as bea:
        game = bea.create_game(rules="classic", seed=7)
        bea.command(game["id"], bea.moves(game["id"])["moves"][0])
        ndjson = bea.my_data(format="ndjson").splitlines()
        assert [line.count(game["id"]) > 0 for line in ndjson] == [True]
        assert bea.my_data() == ""  # the notation holds the games whose cards it may show
        with pytest.raises(ApiError) as hidden:
            bea.finish(game["id"])  # cards are still face down
        assert (hidden.value.status, hidden.value.code) == (409, "finish_not_ready")
        bea.command(game["id"], {"type": "resign"})
        assert bea.my_data().startswith("[")  # the notation's tag pairs
        assert bea.preferences()["theme"] == "light"
        changed = bea.set_preferences(theme="dark", sound=False)
        assert (changed["theme"], changed["sound"], changed["card_size"]) == (
            "dark",
            False,
            "large",
        )
        assert bea.preferences() == changed
        with pytest.raises(ApiError) as bad:
            bea.set_preferences(theme="purple")
        assert (bad.value.status, bad.value.code) == (400, "invalid")
        stats = bea.player_stats("bea", "classic")
        assert (stats["played"], stats["won"]) == (1, 0)
        assert bea.player_ratings("bea") == {"player": "bea", "ratings": []}
        first = bea.token
        second = Client(server.http)
        second.login("bea", "pw-bea-long-enough-1")
        [other] = [key for key in bea.keys()["results"] if not key["current"]]
        bea.revoke_key(other["id"])
        with pytest.raises(ApiError) as revoked:
            second.me()
        assert revoked.value.status == 401
        assert bea.change_password("pw-bea-long-enough-1", "pw-bea-longer-still-2") != first
        assert bea.me()["username"] == "bea"  # with the key that answered
        third = Client(server.http)
        third.login("bea", "pw-bea-longer-still-2")
        third.logout_everywhere()
        with pytest.raises(ApiError):
            bea.me()
        bea.login("bea", "pw-bea-longer-still-2")
        with pytest.raises(ApiError) as wrong:
            bea.close_account("not-the-password")
        assert (wrong.value.status, wrong.value.code) == (403, "wrong_password")
        bea.close_account("pw-bea-longer-still-2")
        with pytest.raises(ApiError) as closed:
            bea.me()
        assert closed.value.status == 401


class LosesFirstAnswer(httpx.HTTPTransport):
    """A network that loses the answer to the first command: the server received and
    applied it, the client never hears back."""

    def __init__(self) -> None:
        super().__init__()
        self.lost = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.url.path.endswith("/commands") and not self.lost:
            response.read()
            self.lost += 1
            raise httpx.ReadError("connection reset after the request was sent", request=request)
        return response


def test_a_retried_command_is_applied_once(server) -> None:
    network = LosesFirstAnswer()
    client = Client(server.http, http=httpx.Client(transport=network), retry=Retry(backoff=0.01))
    client.register("bo", "pw-bo-long-enough-1")
    game = client.create_game(seed=7)
    answer = client.command(game["id"], {"type": "deal"})
    assert network.lost == 1  # the first answer was lost, and the command sent again
    assert answer["game"]["version"] == 2
    events = client.events(game["id"])["results"]
    assert [e["type"] for e in events] == ["created", "dealt"]
    # The same key again is the same answer, applied once; another command is a new key.
    again = client.command(game["id"], {"type": "undo"}, idempotency_key="k-1")
    assert client.command(game["id"], {"type": "undo"}, idempotency_key="k-1") == again
    assert client.game(game["id"])["version"] == 3
    with pytest.raises(ApiError) as reused:
        client.command(game["id"], {"type": "deal"}, idempotency_key="k-1")
    assert reused.value.code == "idempotency_key_reused"


def test_a_game_feed_resumes_after_its_connection_drops(server) -> None:
    with signed_in(server, "cy") as cy:
        game = cy.create_game(seed=11, public=False)  # a private game: the feed needs auth
        feed = cy.watch_game(game["id"])
        seqs: list[int] = []
        snapshots = []
        for frame in feed:
            if frame["type"] == "snapshot":
                snapshots.append(frame["game"]["version"])
                if len(snapshots) == 1:
                    cy.command(game["id"], {"type": "deal"})
            elif frame["type"] == "event":
                seqs.append(frame["event"]["seq"])
                if len(seqs) == 1:
                    # The network drops the connection; meanwhile the game goes on.
                    feed.connection.socket.shutdown(socket.SHUT_RDWR)
                    cy.command(game["id"], {"type": "undo"})
                    cy.command(game["id"], {"type": "deal"})
                if len(seqs) == 3:
                    break
        assert cy.tickets is True  # authenticated by a single-use ticket, no key in the URL
    # Reopened once, resuming after the last event seen: none missed, none twice.
    assert feed.opened == 2
    assert snapshots == [1, 2]
    assert seqs == [2, 3, 4]


def test_a_refused_feed_is_not_reopened(server) -> None:
    with signed_in(server, "di") as di:
        private = di.create_game(seed=3, public=False)
    stranger = Client(server.http)
    with pytest.raises(FeedClosed) as closed:
        next(iter(stranger.watch_game(private["id"])))
    assert closed.value.code == 4403
    with pytest.raises(FeedClosed) as unknown:
        next(iter(stranger.watch_race("NOSUCH")))
    assert unknown.value.code == 4404


def test_the_asyncio_client(server) -> None:
    async def scenario() -> list[str]:
        async with AsyncClient(server.http) as eve:
            await eve.register("eve", "pw-eve-long-enough-1")
            game = await eve.create_game(seed=5)
            seen = []
            async for frame in eve.watch_game(game["id"], watchers=True):
                seen.append(frame["type"])
                if frame["type"] == "snapshot":
                    await eve.command(game["id"], {"type": "deal"})
                if frame["type"] == "event":
                    break
            hint = await eve.hint(game["id"])
            assert hint["version"] == 2 and hint["recorded"] is False
            stored = await eve.set_preferences(card_size="small")
            assert stored["card_size"] == "small"
            assert (await eve.preferences())["card_size"] == "small"
            return seen

    seen = asyncio.run(scenario())
    assert seen[0] == "snapshot" and seen[-1] == "event"


def run_example(name: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(CLIENT)}
    return subprocess.run(
        [sys.executable, str(CLIENT / "examples" / name), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_hint_bot_plays_a_game_to_its_end(server) -> None:
    done = run_example("hint_bot.py", server.http, "--user", "hintbot", "--rules", "easy")
    assert done.returncode == 0, done.stderr
    game_id, status, version, hinted = done.stdout.split()
    assert status in ("won", "lost", "resigned")
    with Client(server.http) as reader:
        reader.login("hintbot", "hint-bot-password-1")
        game = reader.game(game_id)
        events: list[dict[str, Any]] = []
        page = reader.events(game_id)
        events += page["results"]
        while page["next"]:
            page = reader.events(game_id, after=events[-1]["seq"])
            events += page["results"]
    assert game["status"] == status and game["version"] == int(version) == len(events)
    # Every action it played was a hint's: the game's actions are its hints, then at most a
    # resignation when no hint was left.
    actions = [event["type"] for event in events[1:]]
    assert int(hinted) >= 1
    assert len(actions) - actions.count("resigned") == int(hinted)


def test_the_puzzle_bot_solves_puzzles_from_what_it_sees(server) -> None:
    """The bot sees what a player sees (six cards unseen in one puzzle) and solves every
    puzzle: the answer can be found from the view alone."""
    for name in ("open_two_ways", "hidden_only_move", "reveal_then_open"):
        make_puzzle(name)
    done = run_example("puzzle_bot.py", server.http, "--user", "puzzlebot", "--puzzles", "5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert "solved 3" in lines, done.stdout
    for line in lines[:3]:
        puzzle, status, change = line.split()
        assert status == "solved" and float(change) > 0
    with Client(server.http) as reader:
        reader.login("puzzlebot", "puzzle-bot-password-1")
        board = reader.puzzle_dashboard("puzzlebot")
        assert (board["solved"], board["failed"]) == (3, 0)
        with pytest.raises(ApiError) as none:
            reader.next_puzzle()
        assert none.value.code == "no_puzzle"


def test_the_puzzle_calls_of_the_asyncio_client(server) -> None:
    make_puzzle("open_two_ways")

    async def scenario() -> tuple[str, str]:
        async with AsyncClient(server.http) as client:
            await client.register("asyncpuzzler", "lantern-Cards-2026-x")
            attempt = await client.next_puzzle()
            again = await client.next_puzzle()
            assert again["id"] == attempt["id"]
            moved = await client.puzzle_move(
                attempt["id"], {"type": "move", "from": 7, "index": 0, "to": 5}, ply=0
            )
            themes = await client.puzzle_themes()
            assert themes["results"]
            return moved["verdict"], moved["attempt"]["reason"]["code"]

    assert asyncio.run(scenario()) == ("wrong", "under_it")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_race_follower_follows_a_race_to_its_finish(server, mode) -> None:
    with signed_in(server, f"racer-{mode}") as racer:
        race = racer.create_race(countdown=3, time_limit=600, deals=1)
        follower = subprocess.Popen(
            [
                sys.executable,
                str(CLIENT / "examples" / "race_follower.py"),
                server.http,
                race["code"],
                *(["--async"] if mode == "async" else []),
            ],
            env={**os.environ, "PYTHONPATH": str(CLIENT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Its first standings: it is watching (a feed opened after the finish would wait).
        assert follower.stdout is not None
        first = follower.stdout.readline()
        while first and not first.startswith("standings"):
            first = follower.stdout.readline()
        assert first.startswith("standings"), follower.stderr.read() if follower.stderr else ""
        deadline = time.monotonic() + 30
        while racer.race(race["code"])["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        game = racer.race_deals(race["code"])["results"][0]
        racer.command(game["id"], {"type": "resign"})
        out, err = follower.communicate(timeout=60)
    assert follower.returncode == 0, err
    lines = [first, *out.splitlines()]
    assert lines[-1].startswith(f"finish 1 racer-{mode} 0/1"), out


def test_websocket_credentials_fall_back_to_the_key_without_tickets() -> None:
    """Against a server that hands out no tickets (an older one: 404), a feed opens with
    ``?token=``; the client asks only once. (A stand-in server: only its 404 matters.)"""
    asked = []

    def older_server(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(404, json={"code": "not_found", "detail": "Not found."})

    client = Client(
        "http://old.example:8000",
        token="k",
        http=httpx.Client(transport=httpx.MockTransport(older_server)),
    )
    feed = client.watch_game("g-1", after=3)
    assert feed.url() == "ws://old.example:8000/ws/games/g-1/?token=k&after=3"
    assert feed.url().endswith("?token=k&after=3") and client.tickets is False
    assert asked == ["/api/v1/auth/ws-ticket"]
