"""``GET /games/{id}/finish``: the line that wins a game once nothing is hidden
(docs/api.md#finish), searched in the solver pool within the caller's bounds."""

from __future__ import annotations

from games import engine
from games.engine import finish as finishing
from games.errors import FinishCounts, FinishNotReady, NotOwner
from games.reads import presenters, selectors, solver_work
from games.reads.shapes import FinishBody
from games.store.summary import GameSummary


def game_finish(game: GameSummary, *, viewer_id: int, caller: str) -> FinishBody:
    """The finish of ``game`` for its owner ``viewer_id``: computed from the owner's view,
    which hides nothing by then. Refused to anyone else (:class:`NotOwner`), for a game over
    or still hiding a card (:class:`FinishNotReady`), and where a hint would count
    (:class:`FinishCounts`)."""
    if viewer_id != game.owner_id:
        raise NotOwner()
    view = presenters.owner_view(game)
    if game.finished or not finishing.ready(view):
        raise FinishNotReady()
    if selectors.hint_counts(game, viewer_id):
        raise FinishCounts()
    rules = engine.RULESETS[game.rules]
    found = solver_work.run(finishing.finish, rules, view, caller=caller)
    return {
        "version": game.version,
        "verdict": found.verdict,
        "line": [engine.action_to_command(action) for action in found.line],  # type: ignore[misc]
    }
