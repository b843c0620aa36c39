"""Post-game analysis: computed once, with full information, the first time anyone may see
it, and stored (``GameAnalysis``).

Only for a finished game whose hidden cards the viewer may see (``visibility``): a game in
play gets :class:`GameNotFinished`, a finished game of a daily challenge, race or arena that
still runs gets ``analysis_not_yet`` (its owner's: others cannot read it then). So no
solver output that uses hidden cards leaves the server while a game is played, nor while
its deal is still everyone's race.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import IntegrityError, transaction

from games import clock, engine
from games.engine import analysis
from games.errors import AnalysisNotYet, GameNotFinished
from games.reads import selectors, visibility
from games.store import events, streams
from games.store.models import Event, GameAnalysis


def game_analysis(seen: selectors.Seen) -> GameAnalysis:
    """The analysis of the game ``seen`` (read through ``selectors.game_get``): stored, or
    computed now and stored (concurrent first asks store one row, the first)."""
    game, sight = seen
    if not game.finished:
        raise GameNotFinished()
    if not visibility.analysis_shown(sight, game):
        raise AnalysisNotYet()
    stored = selectors.game_analysis(game)
    if stored is not None:
        return stored
    result = analysis.analyse(
        timeline(game.id, game.version),
        budget=settings.ANALYSIS_BUDGET,
        max_nodes=settings.ANALYSIS_MAX_NODES,
    )
    row = GameAnalysis(
        game_id=game.id,
        version=game.version,
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
        return GameAnalysis.objects.get(game_id=game.id)
    return row


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
