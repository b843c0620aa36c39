"""Secret deals: the one home of how a contest's seeds are made.

A daily challenge, a race and an arena each own a sequence of deals that nobody may compute
before the server reveals it. Each seed is an HMAC-SHA256 under ``DAILY_SECRET`` of a label
naming the contest and the deal, cut to a JSON-safe integer (docs/api.md#conventions). Only the
server knows the secret, so a seed is unknowable until it is revealed, and the same label
always gives the same deal (a restarted server, every process of a cluster).
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

from games import engine


def seed(label: str) -> int:
    """The secret seed of ``label``: HMAC-SHA256 under ``DAILY_SECRET``, its first 8 bytes
    as an integer within ``engine.MAX_SEED``."""
    digest = hmac.new(settings.DAILY_SECRET.encode(), label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & engine.MAX_SEED


def contest_seed(contest_id: object, round_: int) -> int:
    """The seed of deal number ``round_`` (1, 2, …) of the race or arena ``contest_id``."""
    return seed(f"scorpion-contest-v1:{contest_id}:{round_}")
