"""The process's stream cache: each lookup is counted once, as a hit, a miss or stale."""

from __future__ import annotations

import pytest

from games import metrics
from games.store import streams
from games.writes import services

pytestmark = pytest.mark.django_db


def counts() -> tuple[float, float, float]:
    return (
        metrics.stream_cache_hit._value.get(),
        metrics.stream_cache_miss._value.get(),
        metrics.stream_cache_stale._value.get(),
    )


def counted(lookup) -> tuple[float, float, float]:
    before = counts()
    lookup()
    after = counts()
    return tuple(b - a for a, b in zip(before, after, strict=True))  # type: ignore[return-value]


def test_each_lookup_counts_once(django_user_model) -> None:
    owner = django_user_model.objects.create_user("alice", password="pw-alice-123")
    game = services.game_create(owner=owner, seed=42).stream
    streams.cache.clear()
    assert counted(lambda: streams.cached(game.game_id)) == (0, 1, 0)
    assert counted(lambda: streams.load(game.game_id, game.version)) == (0, 1, 0)
    assert counted(lambda: streams.cached(game.game_id)) == (1, 0, 0)
    assert counted(lambda: streams.load(game.game_id, game.version)) == (1, 0, 0)
    services.game_command(game_id=game.game_id, actor=owner, command={"type": "resign"})
    streams.cache.clear()
    streams.cache.put(game)  # a process that knows an older version
    assert counted(lambda: streams.load(game.game_id, game.version + 1)) == (0, 0, 1)
