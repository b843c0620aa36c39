"""The live service: what the WebSocket transport may call (docs/architecture.md#the-live-path).

The transport (``api.consumers``) parses a socket's path and query, authenticates its
viewer, then calls one of the ``watch_*`` functions with the socket's ``send`` (a coroutine
function that sends one text frame). Each returns a handle with ``ping()`` (a client's
ping: fill what a dropped message left, before the pong) and ``leave()`` (the socket
closed). Refusals are ``DomainError`` (``games.errors``) as the REST reads raise them, and
:class:`BadAfter`. The transport answers a client's frames with :class:`Pong` and
:class:`Error`. A socket opened with credentials first holds its account's rights
(:func:`hold_rights`, ``games.live.rights``): it is told when they end, and closes.

This module is the only door: an import contract (``pyproject.toml``) keeps ``api`` out of
the modules behind it. The write side publishes through ``games.live.publish``.
"""

from games.live.contests import watch_contest
from games.live.frames import ERROR_CODES, FEEDS, ContestKind, Error, Feed, Pong
from games.live.frames import schema as frame_schema
from games.live.rights import Grant, RightsUnavailable
from games.live.rights import hold as hold_rights
from games.live.rights import release as release_rights
from games.live.spectators import BadAfter, Spectator, watch_game
from games.live.standings import Watcher, watch_challenge

__all__ = [
    "BadAfter",
    "ContestKind",
    "ERROR_CODES",
    "Error",
    "FEEDS",
    "Feed",
    "frame_schema",
    "Grant",
    "hold_rights",
    "Pong",
    "release_rights",
    "RightsUnavailable",
    "Spectator",
    "Watcher",
    "watch_game",
    "watch_challenge",
    "watch_contest",
]
