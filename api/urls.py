"""Routes of the versioned REST API, mounted at /api/v1/ (no trailing slashes)."""

from django.urls import URLPattern, URLResolver, path, re_path

from api import converters  # noqa: F401  (registers the "text" path converter)
from api.exceptions import not_found
from api.views import (
    accounts,
    challenges,
    contests,
    games,
    leaderboards,
    log,
    puzzles,
    showcase,
)
from api.views.dispatch import by_method

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/register", accounts.AccountRegisterApi.as_view(), name="account-register"),
    path(
        "auth/token",
        by_method(post=accounts.TokenCreateApi, delete=accounts.TokenRevokeApi),
        name="token",
    ),
    path("auth/guest", accounts.GuestPlayApi.as_view(), name="guest-play"),
    path("auth/me", accounts.MeApi.as_view(), name="account-me"),
    path("auth/preferences", accounts.PreferencesApi.as_view(), name="preferences"),
    path("auth/password", accounts.PasswordChangeApi.as_view(), name="password-change"),
    path("auth/password/reset", accounts.PasswordResetApi.as_view(), name="password-reset"),
    path(
        "auth/password/reset/confirm",
        accounts.PasswordResetConfirmApi.as_view(),
        name="password-reset-confirm",
    ),
    path("auth/email", accounts.EmailApi.as_view(), name="email"),
    path("auth/email/verify", accounts.EmailVerifyApi.as_view(), name="email-verify"),
    path("auth/close", accounts.AccountCloseApi.as_view(), name="account-close"),
    path("auth/data", accounts.DataApi.as_view(), name="account-data"),
    path("auth/keys", accounts.KeyListApi.as_view(), name="key-list"),
    path("auth/keys/<int:key_id>", accounts.KeyRevokeApi.as_view(), name="key-revoke"),
    path("auth/ws-ticket", accounts.WsTicketApi.as_view(), name="ws-ticket"),
    path("players/<text:username>", accounts.PlayerGetApi.as_view(), name="player-get"),
    path(
        "players/<text:username>/stats/<text:rules>",
        accounts.PlayerStatsApi.as_view(),
        name="player-stats",
    ),
    path(
        "players/<text:username>/ratings",
        accounts.PlayerRatingsApi.as_view(),
        name="player-ratings",
    ),
    path(
        "players/<text:username>/ratings/<text:rules>",
        accounts.PlayerRatingApi.as_view(),
        name="player-rating",
    ),
    path("rules", games.RulesListApi.as_view(), name="rules-list"),
    path(
        "games",
        by_method(get=games.GameListApi, post=games.GameCreateApi),
        name="games",
    ),
    path("games/live", showcase.GameLiveApi.as_view(), name="game-live"),
    path("tv", showcase.TvApi.as_view(), name="tv"),
    path("games/<text:game_id>", games.GameGetApi.as_view(), name="game-get"),
    path("games/<text:game_id>/commands", games.GameCommandApi.as_view(), name="game-command"),
    path("games/<text:game_id>/events", games.GameEventsApi.as_view(), name="game-events"),
    path("games/<text:game_id>/moves", games.GameMovesApi.as_view(), name="game-moves"),
    path("games/<text:game_id>/hint", games.GameHintApi.as_view(), name="game-hint"),
    path("games/<text:game_id>/hints", games.GameHintTakeApi.as_view(), name="game-hints"),
    path("games/<text:game_id>/finish", games.GameFinishApi.as_view(), name="game-finish"),
    path("games/<text:game_id>/analysis", games.GameAnalysisApi.as_view(), name="game-analysis"),
    path(
        "games/<text:game_id>/states/<int:version>",
        games.GameStateApi.as_view(),
        name="game-state",
    ),
    path("challenges", challenges.ChallengeMonthApi.as_view(), name="challenge-month"),
    path("challenges/today", challenges.ChallengeTodayApi.as_view(), name="challenge-today"),
    path("challenges/<text:date>", challenges.ChallengeGetApi.as_view(), name="challenge-get"),
    path(
        "challenges/<text:date>/join",
        challenges.ChallengeJoinApi.as_view(),
        name="challenge-join",
    ),
    path(
        "challenges/<text:date>/solution/<int:step>",
        challenges.ChallengeSolutionApi.as_view(),
        name="challenge-solution",
    ),
    path(
        "challenges/<text:date>/stakes",
        challenges.ChallengeStakesApi.as_view(),
        name="challenge-stakes",
    ),
    path(
        "challenges/<text:date>/standings",
        challenges.ChallengeStandingsApi.as_view(),
        name="challenge-standings",
    ),
    path("leaderboards", leaderboards.BoardsApi.as_view(), name="boards"),
    path(
        "leaderboards/<text:scope>/<text:metric>",
        leaderboards.LeaderboardApi.as_view(),
        name="leaderboard",
    ),
    path(
        "races",
        by_method(get=contests.RaceListApi, post=contests.RaceCreateApi),
        name="races",
    ),
    path("races/<text:race>", contests.RaceGetApi.as_view(), name="race-get"),
    path("races/<text:race>/join", contests.RaceJoinApi.as_view(), name="race-join"),
    path(
        "races/<text:race>/games",
        by_method(get=contests.RaceGamesListApi, post=contests.RaceGamesDealApi),
        name="race-games",
    ),
    path("races/<text:race>/standings", contests.RaceStandingsApi.as_view(), name="race-standings"),
    path(
        "arenas",
        by_method(get=contests.ArenaListApi, post=contests.ArenaCreateApi),
        name="arenas",
    ),
    path("arenas/<text:arena>", contests.ArenaGetApi.as_view(), name="arena-get"),
    path("arenas/<text:arena>/play", contests.ArenaPlayApi.as_view(), name="arena-play"),
    path("arenas/<text:arena>/games", contests.ArenaGamesApi.as_view(), name="arena-games"),
    path(
        "arenas/<text:arena>/standings",
        contests.ArenaStandingsApi.as_view(),
        name="arena-standings",
    ),
    path("puzzles/next", puzzles.PuzzleNextApi.as_view(), name="puzzle-next"),
    path("puzzles/themes", puzzles.ThemesApi.as_view(), name="puzzle-themes"),
    path(
        "puzzles/daily",
        by_method(get=puzzles.PuzzleDayApi, post=puzzles.PuzzleDayPlayApi),
        name="puzzle-day",
    ),
    path(
        "puzzles/streak",
        by_method(get=puzzles.StreakApi, post=puzzles.StreakPlayApi),
        name="puzzle-streak",
    ),
    path(
        "puzzles/attempts/<text:attempt>",
        puzzles.PuzzleAttemptApi.as_view(),
        name="puzzle-attempt",
    ),
    path(
        "puzzles/attempts/<text:attempt>/moves",
        puzzles.PuzzleMoveApi.as_view(),
        name="puzzle-move",
    ),
    path(
        "puzzles/attempts/<text:attempt>/give-up",
        puzzles.PuzzleGiveUpApi.as_view(),
        name="puzzle-give-up",
    ),
    path("puzzles/exports", puzzles.PuzzleExportListApi.as_view(), name="puzzle-exports"),
    path(
        "puzzles/exports/<text:name>",
        puzzles.PuzzleExportGetApi.as_view(),
        name="puzzle-export-get",
    ),
    path(
        "players/<text:username>/puzzles",
        puzzles.PuzzleDashboardApi.as_view(),
        name="player-puzzles",
    ),
    path("log", log.LogApi.as_view(), name="log"),
    path("log/stream", log.LogStreamApi.as_view(), name="log-stream"),
    path("exports", log.ExportListApi.as_view(), name="exports"),
    path("exports/<text:name>", log.ExportGetApi.as_view(), name="export-get"),
    # Anything else under /api/v1/ is a JSON 404, with DEBUG on too.
    re_path(r"", not_found),
]
