"""Live traffic over two Redis servers: ``REDIS_URL`` lists both, and channels_redis shards
the groups and channels over them. Games played on process A are watched from process B;
every spectator gets every frame, in order, once, and both servers carry the traffic."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest
import redis
from channels_redis.core import RedisChannelLayer

from games.live import publish
from tests.conftest import _embedded_redis
from tests.e2e.players import register
from tests.e2e.test_ws_cluster import legal_commands, send_commands, spectate

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MOVES = 20


@pytest.fixture(scope="module")
def two_redis() -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(_embedded_redis()) for _ in range(2)]


def commands_processed(url: str) -> int:
    client = redis.Redis.from_url(url)
    try:
        return int(client.info("stats")["total_commands_processed"])
    finally:
        client.close()


def test_spectators_on_b_get_every_frame_of_games_on_a_over_two_redis(
    live_server_factory, two_redis
) -> None:
    listed = ",".join(two_redis)
    a, b = live_server_factory(redis_url=listed), live_server_factory(redis_url=listed)
    alice = register(a.http, "shard-alice")
    shard = RedisChannelLayer(hosts=two_redis).consistent_hash
    games: dict[int, list[tuple[str, int]]] = {0: [], 1: []}
    seed = 40
    while min(len(found) for found in games.values()) < 2:  # two games' groups on each server
        seed += 1
        game = alice.post("/api/v1/games", json={"rules": "classic", "seed": seed}).json()["id"]
        games[shard(publish.game_group(game))].append((game, seed))
    played = [entry for found in games.values() for entry in found[:2]]
    before = [commands_processed(url) for url in two_redis]

    async def scenario() -> list[list[int]]:
        ready = asyncio.Event()
        count = [0, 2 * len(played)]
        tasks = [
            asyncio.ensure_future(spectate(f"{b.ws}/ws/games/{game}/", MOVES + 1, ready, count))
            for game, _ in played
            for _ in range(2)
        ]
        await asyncio.wait_for(ready.wait(), timeout=60)
        await asyncio.gather(
            *(
                asyncio.to_thread(send_commands, a.http, alice.token, game, moves[game])
                for game, _ in played
            )
        )
        return await asyncio.gather(*tasks)

    moves = {game: legal_commands("classic", seed, MOVES) for game, seed in played}
    results = asyncio.run(scenario())
    after = [commands_processed(url) for url in two_redis]

    assert results == [list(range(2, MOVES + 2))] * (2 * len(played))
    carried = [end - start for start, end in zip(before, after, strict=True)]
    assert min(carried) > 2 * MOVES, carried
