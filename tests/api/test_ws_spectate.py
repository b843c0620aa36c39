"""Spectating over WebSocket, in process (Channels' communicator, real PostgreSQL, the
in-memory channel layer): frames, resume, visibility, client frames, gaps and duplicates.

The cross-process and many-spectator guarantees are proven with real daphne processes in
tests/e2e/.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import transaction

from games import engine
from games.live import publish
from games.store import streams
from games.writes import accounts, services
from scorpion_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


async def ticket(token: str) -> str:
    """A WebSocket ticket of the account ``token`` opens: a key never goes in a URL."""

    def issue() -> str:
        found = accounts.key_authenticate(key=token)
        assert found is not None
        return accounts.ws_ticket_issue(user=found[0], key_id=found[1].pk)

    return await database_sync_to_async(issue)()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def mallory(django_user_model):
    return django_user_model.objects.create_user("mallory", password="pw-mallory-123")


@pytest.fixture
def sample_deal() -> list[str]:
    path = Path(__file__).resolve().parents[1] / "fixtures" / "seed_deal.json"
    return list(json.loads(path.read_text())["deal"])


@pytest.fixture(autouse=True)
def _fresh_cache():
    streams.cache.clear()
    yield
    streams.cache.clear()


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def frames(communicator: WebsocketCommunicator, count: int) -> list[dict[str, Any]]:
    return [await communicator.receive_json_from(timeout=5) for _ in range(count)]


async def closed_with(communicator: WebsocketCommunicator) -> int:
    """The close code, after any error frames sent before it."""
    output = await communicator.receive_output(timeout=5)
    while output["type"] == "websocket.send":
        assert json.loads(output["text"])["type"] == "error", output
        output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.close", output
    return int(output["code"])


command = database_sync_to_async(services.game_command)


def test_snapshot_then_every_event_in_order(alice, sample_deal) -> None:
    game = services.game_create(owner=alice, deal=sample_deal)

    async def scenario() -> list[dict[str, Any]]:
        ws = await connect(f"/ws/games/{game.game_id}/")
        received = await frames(ws, 1)
        await command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)
        await command(game_id=game.game_id, actor=alice, command={"type": "deal"})
        await command(game_id=game.game_id, actor=alice, command={"type": "undo"})
        received += await frames(ws, 3)
        assert await ws.receive_nothing(timeout=0.3)
        await ws.disconnect()
        return received

    received = run(scenario())
    assert received[0]["type"] == "snapshot" and received[0]["game"]["version"] == 1
    assert [frame["event"]["seq"] for frame in received[1:]] == [2, 3, 4]
    assert [frame["event"]["type"] for frame in received[1:]] == ["moved", "dealt", "undone"]
    assert received[1]["event"]["effects"]["points"] == 5
    assert received[3]["event"]["effects"]["undid"] == 3
    assert [frame["game"]["version"] for frame in received[1:]] == [2, 3, 4]
    assert received[1]["game"]["columns"][6][-2:] == ["4H", "7S"]
    # The snapshot plus the events equals a fresh snapshot.
    fresh = run(first_frame(f"/ws/games/{game.game_id}/"))
    assert fresh["game"] == received[-1]["game"]


async def first_frame(path: str) -> dict[str, Any]:
    ws = await connect(path)
    frame = await ws.receive_json_from(timeout=5)
    await ws.disconnect()
    return frame


def test_resume_after_n_sends_the_missed_events_then_live_ones(alice, sample_deal) -> None:
    game = services.game_create(owner=alice, deal=sample_deal)
    services.game_command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)
    services.game_command(game_id=game.game_id, actor=alice, command={"type": "deal"})

    async def scenario() -> list[dict[str, Any]]:
        ws = await connect(f"/ws/games/{game.game_id}/?after=1")
        received = await frames(ws, 3)
        await command(game_id=game.game_id, actor=alice, command={"type": "undo"})
        received += await frames(ws, 1)
        await ws.disconnect()
        return received

    received = run(scenario())
    assert received[0] == {"type": "snapshot", "game": received[0]["game"]}
    assert received[0]["game"]["version"] == 1 and received[0]["game"]["score"] == 0
    assert [frame["event"]["seq"] for frame in received[1:]] == [2, 3, 4]


def test_bad_after_unknown_and_private_games_close_with_codes(alice, mallory) -> None:
    public = services.game_create(owner=alice, seed=1)
    private = services.game_create(owner=alice, seed=2, public=False)
    alice_token = accounts.key_issue(user=alice)
    mallory_token = accounts.key_issue(user=mallory)

    async def code(path: str) -> int:
        ws = await connect(path)
        closed = await closed_with(ws)
        await ws.disconnect()
        return closed

    async def scenario() -> None:
        assert await code(f"/ws/games/{public.game_id}/?after=x") == 4400
        assert await code(f"/ws/games/{public.game_id}/?after=") == 4400  # blank, as REST
        assert await code(f"/ws/games/{public.game_id}/?after=0&after=1") == 4400  # twice
        assert await code(f"/ws/games/{public.game_id}/?after=-1") == 4400
        assert await code(f"/ws/games/{public.game_id}/?after=9") == 4400
        assert await code("/ws/games/00000000-0000-4000-8000-000000000000/") == 4404
        assert await code("/ws/games/not-a-game/") == 4404
        assert await code(f"/ws/games/{private.game_id}/") == 4403
        mallory = await ticket(mallory_token)
        assert await code(f"/ws/games/{private.game_id}/?ticket={mallory}") == 4403
        assert await code(f"/ws/games/{public.game_id}/?ticket=wrong") == 4401
        # A key in the URL is refused, a good one too; so is a ticket used twice.
        assert await code(f"/ws/games/{public.game_id}/?token={alice_token}") == 4401
        assert await code(f"/ws/games/{public.game_id}/?ticket={mallory}") == 4401
        owner = await first_frame(
            f"/ws/games/{private.game_id}/?ticket={await ticket(alice_token)}"
        )
        assert owner["type"] == "snapshot" and owner["game"]["public"] is False

    run(scenario())


def test_ping_pong_and_bad_frames_keep_the_connection(alice) -> None:
    game = services.game_create(owner=alice, seed=3)

    async def scenario() -> None:
        ws = await connect(f"/ws/games/{game.game_id}/")
        await frames(ws, 1)
        for bad in ("not json", "[1, 2]", '{"type": "subscribe"}', '"ping"', "{}"):
            await ws.send_to(text_data=bad)
            assert await ws.receive_json_from(timeout=5) == {"type": "error", "code": "bad_message"}
        await ws.send_to(bytes_data=b"\x00\x01")
        assert await ws.receive_json_from(timeout=5) == {"type": "error", "code": "bad_message"}
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from(timeout=5) == {"type": "pong"}
        await ws.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * 5000}))
        assert await ws.receive_json_from(timeout=5) == {"type": "error", "code": "too_large"}
        # In process no transport holds the limit: the consumer closes with 4009 (a real
        # server's transport closes with 1009 first: tests/e2e/test_hardening.py).
        assert await closed_with(ws) == 4009

    run(scenario())


def test_duplicates_are_dropped_and_gaps_filled_from_the_store(alice, sample_deal) -> None:
    game = services.game_create(owner=alice, deal=sample_deal)
    layer = get_channel_layer()
    group = publish.game_group(game.game_id)

    def append_unpublished(body: dict[str, Any]) -> None:
        """Commit an event whose publication the channel layer 'lost'."""
        with transaction.atomic():
            services.game_command(game_id=game.game_id, actor=alice, command=body)
            transaction.get_connection().run_on_commit.clear()

    async def scenario() -> list[dict[str, Any]]:
        ws = await connect(f"/ws/games/{game.game_id}/")
        await frames(ws, 1)
        first = await command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)
        received = await frames(ws, 1)
        # The same event delivered again is dropped.
        stale = {"type": "game.event", "seq": first.event.seq, "text": json.dumps(received[0])}
        await layer.group_send(group, stale)
        assert await ws.receive_nothing(timeout=0.3)
        # #3 is never published: #4 arrives and the consumer fills #3 from the store.
        await database_sync_to_async(append_unpublished)({"type": "deal"})
        await command(game_id=game.game_id, actor=alice, command={"type": "undo"})
        received += await frames(ws, 2)
        # #5 is never published either: a ping closes the gap.
        await database_sync_to_async(append_unpublished)({"type": "resign"})
        await ws.send_json_to({"type": "ping"})
        received += await frames(ws, 2)
        await ws.disconnect()
        return received

    received = run(scenario())
    assert [frame.get("event", {}).get("seq") for frame in received] == [2, 3, 4, 5, None]
    assert received[-1] == {"type": "pong"}
    assert received[3]["game"]["status"] == "resigned"
    # A finished game shows its deal in the created event and every card.
    assert received[3]["game"]["columns"][0][0] == sample_deal[0]


def test_a_message_the_layer_dropped_is_filled_for_every_spectator_of_the_process(
    alice, django_user_model, sample_deal
) -> None:
    """The process's feed got #3's message never: each of its spectators, of either
    audience and resume point, is sent #3 from the store, then #4, once each."""
    staff = django_user_model.objects.create_user("mod", password="pw-mod-12345", is_staff=True)
    token = accounts.key_issue(user=staff)
    game = services.game_create(owner=alice, deal=sample_deal)
    services.game_command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)

    def append_unpublished(body: dict[str, Any]) -> None:
        with transaction.atomic():
            services.game_command(game_id=game.game_id, actor=alice, command=body)
            transaction.get_connection().run_on_commit.clear()

    async def scenario() -> list[list[dict[str, Any]]]:
        paths = ["", "?after=1", f"?ticket={await ticket(token)}"]
        paths.append(f"?after=0&ticket={await ticket(token)}")
        sockets = [await connect(f"/ws/games/{game.game_id}/{query}") for query in paths]
        for ws, opening in zip(sockets, (1, 2, 1, 3), strict=True):
            await frames(ws, opening)
        await database_sync_to_async(append_unpublished)({"type": "deal"})
        await command(game_id=game.game_id, actor=alice, command={"type": "undo"})
        received = [await frames(ws, 2) for ws in sockets]
        for ws in sockets:
            assert await ws.receive_nothing(timeout=0.3)
            await ws.disconnect()
        return received

    for received in run(scenario()):
        assert [frame["event"]["seq"] for frame in received] == [3, 4]
        assert [frame["event"]["type"] for frame in received] == ["dealt", "undone"]


def test_disconnect_leaves_no_group_membership(alice) -> None:
    game = services.game_create(owner=alice, seed=4)
    layer = get_channel_layer()
    group = publish.game_group(game.game_id)

    async def scenario() -> None:
        sockets = [await connect(f"/ws/games/{game.game_id}/") for _ in range(3)]
        for ws in sockets:
            await frames(ws, 1)
        # One member, the process's feed of the game, however many sockets watch it.
        assert len(layer.groups.get(group, {})) == 1
        for ws in sockets[:2]:
            await ws.disconnect()
        assert len(layer.groups.get(group, {})) == 1
        await sockets[2].disconnect()
        assert not layer.groups.get(group)

    run(scenario())


def test_no_frame_carries_a_hidden_card(alice, sample_deal) -> None:
    game = services.game_create(owner=alice, deal=sample_deal)
    bodies = [FIRST_MOVE, {"type": "deal"}, {"type": "undo"}]
    state = engine.new_game(engine.RULESETS["classic"], engine.parse_cards(sample_deal))
    states = [state]
    for body in bodies:
        state = engine.apply(state, engine.action_from_command(body))[0]
        states.append(state)

    async def scenario() -> list[str]:
        ws = await connect(f"/ws/games/{game.game_id}/")
        texts = [json.dumps(await ws.receive_json_from(timeout=5))]
        for body in bodies:
            await command(game_id=game.game_id, actor=alice, command=body)
            texts.append(json.dumps(await ws.receive_json_from(timeout=5)))
        await ws.disconnect()
        return texts

    for text, state in zip(run(scenario()), states, strict=True):
        hidden = [
            card
            for cards, down in zip(state.columns, state.down, strict=True)
            for card in cards[:down]
        ] + list(state.reserve)
        assert hidden
        for card in hidden:
            assert f'"{engine.card_code(card)}"' not in text
        assert '"seed": null' in text and '"deal": [' not in text


def test_staff_see_hidden_cards_in_every_frame(alice, django_user_model, sample_deal) -> None:
    staff = django_user_model.objects.create_user("mod", password="pw-mod-12345", is_staff=True)
    token = accounts.key_issue(user=staff)
    game = services.game_create(owner=alice, deal=sample_deal)

    async def scenario() -> list[dict[str, Any]]:
        ws = await connect(f"/ws/games/{game.game_id}/?ticket={await ticket(token)}")
        received = await frames(ws, 1)
        await command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)
        received += await frames(ws, 1)
        await ws.disconnect()
        return received

    snapshot, event = run(scenario())
    for frame in (snapshot, event):
        assert frame["game"]["columns"][0][:3] == sample_deal[:3]
        assert frame["game"]["reserve_cards"] == sample_deal[-3:]
        assert frame["game"]["seed"] is None  # a game from a deal has no seed
    assert event["event"]["seq"] == 2
