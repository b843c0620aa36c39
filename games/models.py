"""Django loads the app's models from here; each is defined in the package of its layer.

Application code imports them from where they live (``games.store.models``,
``games.dailies.models``), never from this module, so that the layers stay visible.
"""

from games.boards.models import BoardEntry, BoardResult
from games.dailies.models import Contest, ContestResult, DailyChallenge, Entrant, Standing
from games.store.models import (
    ApiKey,
    Event,
    Game,
    GameAnalysis,
    ModerationAct,
    Player,
    PlayerAccount,
    WsTicket,
)

__all__ = [
    "ApiKey",
    "BoardEntry",
    "BoardResult",
    "Contest",
    "ContestResult",
    "DailyChallenge",
    "Entrant",
    "Event",
    "Game",
    "GameAnalysis",
    "ModerationAct",
    "Player",
    "PlayerAccount",
    "Standing",
    "WsTicket",
]
