"""Django loads the app's models from here; each is defined in the package of its layer.

Application code imports them from where they live (``games.store.models``,
``games.dailies.models``), never from this module, so that the layers stay visible.
"""

from games.boards.models import BoardEntry, BoardResult
from games.dailies.models import Contest, ContestResult, DailyChallenge, Entrant, Standing
from games.pools.models import CertifiedDeal, PoolCursor, PoolDraw, RatedDeal
from games.puzzles.models import (
    Puzzle,
    PuzzleAttempt,
    PuzzleDay,
    PuzzleMiner,
    PuzzlePlayer,
    PuzzleRating,
    PuzzleRatingChange,
    PuzzleResult,
    PuzzleStreak,
)
from games.ratings.models import (
    DealRating,
    GameEvidence,
    PlayerRating,
    RatedGame,
    RatingChange,
    RatingFit,
)
from games.store.models import (
    Account,
    ApiKey,
    Event,
    Game,
    GameAnalysis,
    JobIncident,
    JobWorker,
    ModerationAct,
    Player,
    PlayerAccount,
    PublicLogEntry,
    WsTicket,
)

__all__ = [
    "Account",
    "ApiKey",
    "BoardEntry",
    "BoardResult",
    "CertifiedDeal",
    "Contest",
    "ContestResult",
    "DailyChallenge",
    "DealRating",
    "Entrant",
    "Event",
    "Game",
    "GameEvidence",
    "GameAnalysis",
    "JobIncident",
    "JobWorker",
    "ModerationAct",
    "Player",
    "PlayerRating",
    "PoolCursor",
    "PoolDraw",
    "RatedDeal",
    "RatedGame",
    "RatingChange",
    "RatingFit",
    "PlayerAccount",
    "PublicLogEntry",
    "Puzzle",
    "PuzzleAttempt",
    "PuzzleDay",
    "PuzzleMiner",
    "PuzzlePlayer",
    "PuzzleRating",
    "PuzzleRatingChange",
    "PuzzleResult",
    "PuzzleStreak",
    "Standing",
    "WsTicket",
]
