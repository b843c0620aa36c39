"""Post-game analysis: computed once, with full information, the first time anyone may see
it, and stored (``GameAnalysis``); never a long search inside a request.

Only for a finished game whose hidden cards the viewer may see (``visibility``): a game in
play gets :class:`GameNotFinished`, a finished game of a daily challenge, race or arena that
still runs gets ``analysis_not_yet`` (its owner's: others cannot read it then). So no
solver output that uses hidden cards leaves the server while a game is played, nor while
its deal is still everyone's race.

A request searches ``ANALYSIS_INLINE_NODES`` nodes at most (a few milliseconds, in the
process's solver pool, within the caller's bounds: ``games.reads.solver_work``), once per
game. Most finished games are
decided within that, and their analysis is stored at once. Any other is a job (``analyse`` on the
``solver`` queue, ``games.jobs``) with the full budgets, and the request answers
:class:`Pending`: the client polls until the job stored it. Each caller (an account, or
an anonymous address) has at most ``SOLVER_MAX_IN_FLIGHT`` analyses queued or running; one
more is :class:`SolverBusy`. Asking again for a game whose job is queued adds nothing.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from procrastinate.contrib.django import app
from procrastinate.exceptions import AlreadyEnqueued

from games import clock, engine
from games.engine import analysis
from games.errors import (
    AnalysisNotYet,
    GameNotFinished,
    GameNotFound,
    SolverBusy,
)
from games.reads import selectors, solver_work, visibility
from games.store import events, streams
from games.store.models import Event, Game, GameAnalysis

#: The job that computes an analysis (``games.jobs.analyse``), its queue and its lock.
TASK = "analyse"
QUEUE = "solver"


def job_lock(game_id: uuid.UUID | str) -> str:
    """The lock (and queueing lock) of the analysis job of a game: one queued, one running."""
    return f"analysis:{game_id}"


@dataclass(frozen=True, slots=True)
class Pending:
    """The analysis is being computed by a job: ask again in ``retry_after`` seconds."""

    game_id: uuid.UUID
    retry_after: int = 2


def game_analysis(seen: selectors.Seen, *, requester: str) -> GameAnalysis | Pending:
    """The analysis of the game ``seen`` (read through ``selectors.game_get``): stored, or
    decided now within ``ANALYSIS_INLINE_NODES`` and stored, or :class:`Pending` while a
    job computes it. ``requester`` names who asks (``account:<id>``, ``address:<ip>``):
    :class:`SolverBusy` when they have ``SOLVER_MAX_IN_FLIGHT`` analyses in flight."""
    game, sight = seen
    if not game.finished:
        raise GameNotFinished()
    if not visibility.analysis_shown(sight, game):
        raise AnalysisNotYet()
    stored = selectors.game_analysis(game)
    if stored is not None:
        return stored
    if _in_flight(game.id):
        return Pending(game.id)
    undecided = _undecided_key(game.id)
    if not _cached(undecided):  # a quick search that did not decide is not run again
        inline = settings.ANALYSIS_INLINE_NODES
        result = solver_work.run(
            analysis.analyse,
            timeline(game.id, game.version),
            caller=requester,
            budget=min(settings.ANALYSIS_BUDGET, inline),
            max_nodes=inline,
        )
        if result.decided:
            return _store(game.id, game.version, result)
        with contextlib.suppress(Exception):  # an unreachable cache only costs a search
            cache.set(undecided, True, _UNDECIDED_SECONDS)
    _enqueue(game.id, requester)
    return Pending(game.id)


#: How long a game whose quick search did not decide is remembered as such.
_UNDECIDED_SECONDS = 3600


def _undecided_key(game_id: uuid.UUID) -> str:
    return f"analysis-undecided:{game_id}:{settings.ANALYSIS_INLINE_NODES}"


def _cached(key: str) -> bool:
    try:
        return bool(cache.get(key))
    except Exception:  # an unreachable cache only costs the search
        return False


def analysis_compute(game_id: uuid.UUID) -> GameAnalysis:
    """The job's work: the analysis of a finished game with the full budgets
    (``ANALYSIS_BUDGET`` a position, ``ANALYSIS_MAX_NODES`` in all), stored; the stored
    one if it exists. Visibility was checked when the job was asked for."""
    stored = GameAnalysis.objects.filter(game_id=game_id).first()
    if stored is not None:
        return stored
    row = Game.objects.filter(id=game_id).values("version", "status").first()
    if row is None:
        raise GameNotFound()
    if row["status"] == engine.PLAYING:
        raise GameNotFinished()
    result = analysis.analyse(
        timeline(game_id, row["version"]),
        budget=settings.ANALYSIS_BUDGET,
        max_nodes=settings.ANALYSIS_MAX_NODES,
    )
    return _store(game_id, row["version"], result)


def _store(game_id: uuid.UUID, version: int, result: analysis.Analysis) -> GameAnalysis:
    """Store an analysis; concurrent first stores keep one row, the first."""
    row = GameAnalysis(
        game_id=game_id,
        version=version,
        winnable=result.winnable,
        lost_at=result.lost_at,
        last_winnable=result.last_winnable,
        line=(
            None
            if result.line is None
            else [engine.action_to_command(action) for action in result.line]
        ),
        decided=result.decided,
        nodes=result.nodes,
        computed_at=clock.now(),
    )
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:  # someone asked at the same moment and stored it first
        return GameAnalysis.objects.get(game_id=game_id)
    return row


def _in_flight(game_id: uuid.UUID) -> bool:
    """Whether an analysis job of the game is queued or running: its queueing lock on a job
    to do, or its lock on a job being done (the queue's own partial indexes of both)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM procrastinate_jobs"
            " WHERE status = 'todo' AND queueing_lock = %s)"
            " OR EXISTS (SELECT 1 FROM procrastinate_jobs WHERE status = 'doing' AND lock = %s)",
            [job_lock(game_id), job_lock(game_id)],
        )
        (found,) = cursor.fetchone()
    return bool(found)


def _enqueue(game_id: uuid.UUID, requester: str) -> None:
    """Queue the game's analysis job for ``requester``, unless they have
    ``SOLVER_MAX_IN_FLIGHT`` in flight (:class:`SolverBusy`). Their count and the new job
    are decided under a transaction-scoped advisory lock of theirs, so that concurrent
    requests cannot pass the cap together."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [requester])
            cursor.execute(  # the queue's partial index of the jobs to do and being done
                "SELECT count(*) FROM procrastinate_jobs"
                " WHERE status = ANY(ARRAY['todo', 'doing']::procrastinate_job_status[])"
                " AND task_name = %s AND args->>'requester' = %s",
                [TASK, requester],
            )
            (count,) = cursor.fetchone()
        if count >= settings.SOLVER_MAX_IN_FLIGHT:
            raise SolverBusy()
        lock = job_lock(game_id)
        try:
            with transaction.atomic():
                app.configure_task(TASK, queue=QUEUE, lock=lock, queueing_lock=lock).defer(
                    game_id=str(game_id), requester=requester
                )
        except AlreadyEnqueued:  # another request queued it a moment ago
            pass


def timeline(game_id: uuid.UUID, version: int) -> list[analysis.Step]:
    """Every version of a game up to ``version``: its position and the action that led
    there (``None`` for ``created`` and events that are not actions)."""
    rows = list(Event.objects.filter(game_id=game_id, seq__lte=version).order_by("seq"))
    first = streams.start(rows[0])
    steps = [analysis.Step(1, first.state, None)]
    for stream, event, _effects in streams.steps(first, rows[1:]):
        fact = streams.decoded(event)
        action = fact.action() if isinstance(fact, _ACTIONS) else None
        steps.append(analysis.Step(stream.version, stream.state, action))
    return steps


_ACTIONS = (
    events.Moved,
    events.CellMoved,
    events.Dealt,
    events.Undone,
    events.Restarted,
    events.Resigned,
)
