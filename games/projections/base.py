"""What a projection is: a read model that follows the event log, behind one interface.

Every event a writer appends is a :class:`Change` of one game's stream. The write path asks
each projection of the list (``games.projections.PROJECTIONS``) for its part of the one
append statement (:meth:`Projection.fragments`), sends the statement, then lets each one
announce what changed once the transaction commits (:meth:`Projection.publish`) and do the
rare follow-up that the statement cannot (:meth:`Projection.settle`). ``rebuild_projections``
runs the same list over streams folded from events alone (:meth:`Projection.clear`,
:meth:`Projection.replay`, :meth:`Projection.replayed`). docs/architecture.md#projections
shows how to add one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from games.store import streams
from games.store.append import Fragment
from games.store.models import Event
from games.store.summary import GameSummary


@dataclass(frozen=True, slots=True)
class Change:
    """One event appended to a game's stream: the stream before it (``None`` for the
    ``created`` event that starts a game), the stream and the summary after it, the event
    (its ``position`` is known once stored) and its effects as its replay derives them."""

    before: streams.Stream | None
    after: streams.Stream
    summary: GameSummary
    event: Event
    effects: dict[str, Any]

    @property
    def created(self) -> bool:
        """Whether the event starts the game."""
        return self.before is None

    @property
    def finishing(self) -> bool:
        """Whether the event finishes the game (won, lost or resigned)."""
        before = self.before
        return self.after.finished_at is not None and (before is None or before.finished_at is None)


class Projection:
    """A read model that follows the event log. Subclasses override what they need; each
    method has a do-nothing default."""

    #: The name of the projection; its fragments' names start with it.
    name: ClassVar[str]

    def fragments(self, change: Change) -> Sequence[Fragment]:
        """This projection's part of the statement that appends ``change``'s event: common
        table expressions that read the game's id ``FROM head`` (none: nothing to write)."""
        return ()

    def amend(self, change: Change, returned: dict[str, Any]) -> Change:
        """``change`` with what the statement returned for this projection's fragments
        (``returned``: by fragment name) folded in, before anything is published: a rated
        game's change of rating, computed under the rating's lock."""
        return change

    def publish(self, change: Change) -> None:
        """Announce ``change`` to live viewers once the writer's transaction commits
        (through ``games.live.publish``, whose functions wait for the commit)."""

    def settle(self, change: Change, flagged: bool) -> None:
        """Work the statement could not do, right after it, in the writer's transaction
        when there is one: ``flagged`` when a fragment's flag came back true."""

    def clear(self) -> None:
        """Delete every row of the read model, inside the rebuild's transaction."""

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        """Write the read model of one game from its stream, folded from events alone."""

    def replayed(self) -> None:
        """Finish a rebuild once every stream was replayed (rows that depend on many)."""


# --- What a game racing others is ranked by: shared by the standings and the contests' results


#: The columns of a racing game's row that the daily standings and the contests' results
#: both hold, as :func:`race_fields` computes them.
RACE_COLUMNS = (
    "player_id",
    "status",
    "moves",
    "score",
    "sequences",
    "revealed",
    "elapsed_ms",
    "version",
    "hints",
    "voided",
    "joined_at",
)


def race_fields(stream: streams.Stream) -> dict[str, Any]:
    """A racing game's :data:`RACE_COLUMNS`: what it stands at, the cards it turned up, the
    time from its start to its finish (or to its last event while it is played)."""
    state = stream.state
    end = stream.finished_at or stream.updated_at
    return {
        "player_id": stream.owner_id,
        "status": state.status,
        "moves": state.moves,
        "score": state.score,
        "sequences": len(state.removed),
        "revealed": sum(down for down, _ in stream.rules.layout) - sum(state.down),
        "elapsed_ms": (end - stream.created_at) // dt.timedelta(milliseconds=1),
        "version": stream.version,
        "hints": stream.hints,
        "voided": stream.voided,
        "joined_at": stream.created_at,
    }


def upsert_by_game(table: str, columns: Sequence[str], prefix: str) -> str:
    """The fragment's SQL that writes a game's row of ``table`` (keyed by ``game_id``) with
    ``columns``, each from the parameter ``{prefix}{column}``."""
    return f"""INSERT INTO {table} (game_id, {", ".join(columns)})
SELECT id, {", ".join(f"%({prefix}{column})s" for column in columns)} FROM head
ON CONFLICT (game_id) DO UPDATE SET
{", ".join(f"{column} = EXCLUDED.{column}" for column in columns)}"""
