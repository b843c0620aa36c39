"""Django loads the app's models from here; each is defined in the package of its layer.

Application code imports them from where they live (``games.store.models``,
``games.dailies.models``), never from this module, so that the layers stay visible.
"""

from games.dailies.models import DailyChallenge, Standing
from games.store.models import Event, Game, GameAnalysis, ModerationAct, Player, PlayerAccount

__all__ = [
    "DailyChallenge",
    "Event",
    "Game",
    "GameAnalysis",
    "ModerationAct",
    "Player",
    "PlayerAccount",
    "Standing",
]
