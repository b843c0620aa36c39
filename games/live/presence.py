"""How many are watching a game: the presence of its WebSocket viewers, across processes.

With ``REDIS_URL`` each game has a sorted set in Redis of its viewers (a name made for each
socket), each scored by the time its presence lapses. A game's feed in each process
(``games.live.spectators``) renews the presence of all its viewers at once every
:data:`RENEW_SECONDS`, so the viewers of a process that died without saying goodbye stop
counting within :data:`LAPSE_SECONDS`. Without Redis one process serves every viewer and
counts them in memory.

Joins and leaves are announced to the game's group a moment later, once per burst: the
count is read together with a new revision of the game's count (in one Redis transaction,
or under the event loop in memory), and travels with it, so a viewer that got a newer
count never shows an older one that arrives later.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Any

import redis.asyncio
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from games.live.messages import GameWatchers
from games.live.relay import relay

logger = logging.getLogger(__name__)

#: A viewer renews its presence this often…
RENEW_SECONDS = 30.0
#: …and lapses this long after its last renewal (a process that dies stops counting then).
LAPSE_SECONDS = 75.0
_KEY = "scorpion:watchers:{}"
_REVISION_KEY = "scorpion:watchers:{}:revision"


#: Joins and leaves within this many seconds are announced once, with the latest count
#: (a crowd arriving at once costs one message per process, not one per arrival).
ANNOUNCE_DELAY = 0.25


class _MemoryPresence:
    """One process's viewers, for the in-memory channel layer (a single process)."""

    def __init__(self) -> None:
        self.viewers: dict[str, set[str]] = {}
        self.revisions: dict[str, int] = {}

    async def join(self, game: str, viewer: str) -> None:
        self.viewers.setdefault(game, set()).add(viewer)

    async def leave(self, game: str, viewer: str) -> None:
        self.viewers.get(game, set()).discard(viewer)

    async def renew(self, game: str, viewers: list[str]) -> bool:
        return False  # nothing lapses inside one process

    async def count(self, game: str) -> tuple[int, int]:
        self.revisions[game] = self.revisions.get(game, 0) + 1
        count = len(self.viewers.get(game, ()))
        if not count:
            self.viewers.pop(game, None)
        return self.revisions[game], count


class _RedisPresence:
    """Viewers in a Redis sorted set per game, shared by every process."""

    def __init__(self, url: str) -> None:
        self.client = redis.asyncio.from_url(url)

    async def join(self, game: str, viewer: str) -> None:
        await self.renew(game, [viewer])

    async def leave(self, game: str, viewer: str) -> None:
        await self.client.zrem(_KEY.format(game), viewer)

    async def renew(self, game: str, viewers: list[str]) -> bool:
        """Keep ``viewers`` present; whether others' presence lapsed meanwhile."""
        key, now = _KEY.format(game), time.time()
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, dict.fromkeys(viewers, now + LAPSE_SECONDS))
            pipe.expire(key, int(LAPSE_SECONDS * 2))
            lapsed, _, _ = await pipe.execute()
        return bool(lapsed)

    async def count(self, game: str) -> tuple[int, int]:
        """The game's viewers now, with a new revision read in the same transaction, so a
        later revision always carries the later count."""
        key, revision_key = _KEY.format(game), _REVISION_KEY.format(game)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", time.time())
            pipe.zcard(key)
            pipe.incr(revision_key)
            pipe.expire(revision_key, 86400)
            _, count, revision, _ = await pipe.execute()
        return int(revision), int(count)


_presences: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()


def presence(channel_layer: Any) -> Any:
    """This event loop's presence store (a Redis client belongs to one loop): in Redis when
    the channel layer is Redis's (several processes), else in this process's memory."""
    loop = asyncio.get_running_loop()
    found = _presences.get(loop)
    if found is None:
        shared = isinstance(channel_layer, RedisChannelLayer) and settings.REDIS_URL
        found = _RedisPresence(settings.REDIS_URL) if shared else _MemoryPresence()
        _presences[loop] = found
    return found


async def reconnect() -> None:
    """Drop this loop's idle Redis connections (after a Redis restart they are stale)."""
    found = _presences.get(asyncio.get_running_loop())
    if isinstance(found, _RedisPresence):
        await found.client.connection_pool.disconnect(inuse_connections=False)


relay.recovery_hooks.append(reconnect)


_pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Future[None]]] = (
    weakref.WeakKeyDictionary()
)


def announce_soon(channel_layer: Any, game: str, group: str) -> None:
    """Send the game's group its count of viewers (``messages.GameWatchers``) shortly, once
    for every change this process makes meanwhile."""
    loop = asyncio.get_running_loop()
    pending = _pending.setdefault(loop, {})
    task = pending.get(game)
    if task is not None and not task.done():
        return

    async def announce() -> None:
        await asyncio.sleep(ANNOUNCE_DELAY)
        pending.pop(game, None)
        try:
            revision, count = await presence(channel_layer).count(game)
            await channel_layer.group_send(group, GameWatchers(revision, count).to_message())
        except Exception:  # a count is a courtesy: never let it disturb spectating
            logger.warning("could not announce the watchers of game %s", game, exc_info=True)

    pending[game] = asyncio.ensure_future(announce())
