"""The ``Game`` row: the stream's head, its lock, and the summary of the game.

Every append writes it first, as the statement's ``head`` (``games.store.append``): an
``INSERT`` for the ``created`` event, else an ``UPDATE`` guarded by the version the command
was decided on, which every other projection's part of the statement follows (they read the
game's id ``FROM head``, so a refused guard writes nothing at all). Its columns are the
summary's (``games.store.summary.GameSummary``); ``board`` holds every card of the
position, face-down ones and the reserve included, and what a viewer sees of it is decided
when it is shown (docs/architecture.md#the-game-row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg.types.json import Jsonb

from games.live import publish
from games.projections.base import Change, Projection
from games.store import streams
from games.store.append import GUARD, Fragment
from games.store.models import Game
from games.store.summary import GameSummary

#: The columns of ``games_game`` this projection writes (all but the key).
COLUMNS = (
    "owner_id",
    "rules",
    "seed",
    "public",
    "version",
    "status",
    "blocked",
    "score",
    "moves",
    "undos",
    "reserve",
    "removed",
    "revealed",
    "board",
    "challenge",
    "voided",
    "created_at",
    "updated_at",
    "finished_at",
    "contest",
    "round",
    "rated",
)
#: The columns the ``created`` event sets once and no later event changes.
FIXED = (
    "owner_id",
    "rules",
    "seed",
    "public",
    "challenge",
    "created_at",
    "contest",
    "round",
    "rated",
)
_UPDATED = tuple(column for column in COLUMNS if column not in FIXED)

_INSERT = f"""INSERT INTO games_game (id, {", ".join(COLUMNS)})
VALUES (%(game)s, {", ".join(f"%(g_{column})s" for column in COLUMNS)})
RETURNING id"""
_UPDATE = f"""UPDATE games_game AS g
SET {", ".join(f"{column} = %(g_{column})s" for column in _UPDATED)}
WHERE {GUARD}
RETURNING g.id"""


def fields(summary: GameSummary) -> dict[str, Any]:
    """The ``Game`` row of ``summary``: its :data:`COLUMNS`."""
    return {
        "owner_id": summary.owner_id,
        "rules": summary.rules,
        "seed": summary.seed,
        "public": summary.public,
        "version": summary.version,
        "status": summary.status,
        "blocked": summary.blocked,
        "score": summary.score,
        "moves": summary.moves,
        "undos": summary.undos,
        "reserve": summary.reserve,
        "removed": summary.removed,
        "revealed": summary.revealed,
        "board": summary.board.to_json(),
        "challenge": summary.challenge,
        "voided": summary.voided,
        "created_at": summary.created_at,
        "updated_at": summary.updated_at,
        "finished_at": summary.finished_at,
        "contest": summary.contest,
        "round": summary.round,
        "rated": summary.rated,
    }


class GameRow(Projection):
    name = "head"

    def fragments(self, change: Change) -> Sequence[Fragment]:
        row = fields(change.summary)
        row["board"] = Jsonb(row["board"])
        if change.created:
            return (Fragment("head", _INSERT, {f"g_{c}": row[c] for c in COLUMNS}),)
        return (Fragment("head", _UPDATE, {f"g_{c}": row[c] for c in _UPDATED}),)

    def publish(self, change: Change) -> None:
        publish.after_commit(change.after, change.summary, change.event)

    def clear(self) -> None:
        Game.objects.all().delete()
        streams.cache.clear()

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        Game.objects.create(id=summary.id, **fields(summary))
