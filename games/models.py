"""Django loads the app's models from here; each is defined in the package of its layer.

Application code imports them from where they live (``games.store.models``,
``games.dailies.models``), never from this module, so that the layers stay visible.
"""

from games.boards.models import BoardEntry, BoardResult
from games.dailies.models import Contest, ContestResult, DailyChallenge, Entrant, Standing
from games.pools.models import CertifiedDeal, PoolCursor, PoolDraw
from games.store.models import Event, Game, GameAnalysis, ModerationAct, Player, PlayerAccount

__all__ = [
    "BoardEntry",
    "BoardResult",
    "CertifiedDeal",
    "Contest",
    "ContestResult",
    "DailyChallenge",
    "Entrant",
    "Event",
    "Game",
    "GameAnalysis",
    "ModerationAct",
    "Player",
    "PoolCursor",
    "PoolDraw",
    "PlayerAccount",
    "Standing",
]
