"""A typed Python client for the Scorpion solitaire server (docs/api.md, docs/clients.md).

``Client`` and ``AsyncClient`` speak the REST API, retrying what is safe to retry (commands
carry an Idempotency-Key); ``watch_*`` give a live feed's frames, reopened when the
connection drops (a game's feed resumes with ``?after=``).
"""

from scorpion_client._shared import Retry
from scorpion_client.aio import AsyncClient, AsyncFeed
from scorpion_client.client import Client, Feed
from scorpion_client.errors import ApiError, FeedClosed, ScorpionError

__all__ = [
    "ApiError",
    "AsyncClient",
    "AsyncFeed",
    "Client",
    "Feed",
    "FeedClosed",
    "Retry",
    "ScorpionError",
]
__version__ = "0.1.0"
