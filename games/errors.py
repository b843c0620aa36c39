"""Domain errors: each carries a stable code, the HTTP status the API answers with, and
extra fields for the body. Messages are localised by the API from the code."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy


class DomainError(Exception):
    """A refusal the API turns into ``{"code": ..., "detail": ...}`` plus ``extra``."""

    status = 400
    code = "invalid"
    #: Seconds for a ``Retry-After`` header, for errors that mean "later".
    retry_after: int | None = None

    def __init__(self, code: str | None = None, **extra: Any) -> None:
        if code is not None:
            self.code = code
        super().__init__(self.code)
        self.extra = extra


class GameNotFound(DomainError):
    status = 404
    code = "not_found"


class PrivateGame(DomainError):
    """A private game read by someone who is not its owner (nor staff)."""

    status = 403
    code = "private_game"


class NotOwner(DomainError):
    status = 403
    code = "not_owner"


class Banned(DomainError):
    """A banned player tried to play: commands, new games and challenge joins are refused
    (reading stays possible)."""

    status = 403
    code = "banned"


class VersionConflict(DomainError):
    """``expected_version`` is stale; ``version`` is the current one."""

    status = 409
    code = "version_conflict"

    def __init__(self, version: int) -> None:
        super().__init__(version=version)


class StaleCard(DomainError):
    """The ``card`` a move names is not the card at that position any more."""

    status = 409
    code = "stale_card"

    def __init__(self, version: int) -> None:
        super().__init__(version=version)


class IdempotencyKeyReused(DomainError):
    """An ``Idempotency-Key`` already answered a different command."""

    status = 422
    code = "idempotency_key_reused"


class RuleRefused(DomainError):
    """The rules refused the action; ``code`` is a rejection code of docs/rules.md#rejections."""

    status = 422


class BadDeal(DomainError):
    """A ``deal`` that is not a complete deck for its ruleset."""

    status = 400
    code = "invalid"


class StreamCorrupted(Exception):
    """Stored events do not replay: a gap in ``seq``, or an event the rules refuse.

    Never expected; it means the store or the engine changed under a recorded game.
    """


class MalformedEvent(StreamCorrupted):
    """A stored event that is not one of ``games.store.events``: an unknown type or version,
    or a payload its class does not write. Names the game and the ``seq``."""

    def __init__(self, game_id: object, seq: int, detail: str) -> None:
        super().__init__(f"game {game_id} #{seq}: {detail}")
        self.game_id = game_id
        self.seq = seq


class PlayerNotFound(DomainError):
    status = 404
    code = "not_found"


class UsernameTaken(DomainError):
    """Registration with a username that already has an account."""

    status = 400
    code = "invalid"

    def __init__(self) -> None:
        super().__init__(
            fields={"username": [gettext_lazy("A user with that username already exists.")]}
        )


class InvalidCredentials(DomainError):
    """A username and password that do not match an active account."""

    status = 401
    code = "invalid_credentials"


class WrongPassword(DomainError):
    """A password change whose current password is wrong."""

    status = 403
    code = "wrong_password"


class AccountRequired(DomainError):
    """A guest asking for what needs an account: a rated game, a daily challenge, a race or
    an arena, an email address."""

    status = 403
    code = "account_required"


class LinkInvalid(DomainError):
    """A password reset or email verification link that is wrong, used, or expired."""

    status = 400
    code = "link_invalid"


class KeyNotFound(DomainError):
    """Revoking a key the account does not have."""

    status = 404
    code = "not_found"


class ChallengeNotFound(DomainError):
    """No daily challenge for that date (not a date, or a day that has not begun)."""

    status = 404
    code = "not_found"


class ChallengeInProgress(DomainError):
    """Another player's game of a daily challenge that is still running: its deal is
    everyone's, so watching it would be a solution."""

    status = 403
    code = "challenge_in_progress"


class AnalysisNotYet(DomainError):
    """The analysis of one's own finished game of a daily challenge, race or arena that is
    still running: it would solve the deal the others are still playing."""

    status = 403
    code = "analysis_not_yet"


class ChallengeClosed(DomainError):
    """Joining a daily challenge whose day is over."""

    status = 403
    code = "challenge_closed"


class UnknownScope(DomainError):
    """A leaderboard scope that is neither ``daily`` nor a ruleset's name."""

    status = 404
    code = "unknown_scope"


class UnknownMetric(DomainError):
    """A leaderboard metric that does not exist, or that the scope has no board of."""

    status = 404
    code = "unknown_metric"


class ModerationRefused(Exception):
    """A moderation act that does not apply (voiding a voided result, banning a banned
    player, no reason given). Raised to moderators in the admin, never to API clients, so
    its message is a sentence for them rather than an API code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ContestNotFound(DomainError):
    """No race or arena by that id or code."""

    status = 404
    code = "not_found"


class ContestInProgress(DomainError):
    """Another player's game of a race or arena that is still running: its deals are
    everyone's, so watching it would be a solution."""

    status = 403
    code = "contest_in_progress"


class ContestClosed(DomainError):
    """A race or arena that is over: it takes no more players, deals or commands."""

    status = 403
    code = "contest_closed"


class ContestNotStarted(DomainError):
    """Asking for the deals of a race or arena before its start."""

    status = 403
    code = "contest_not_started"


class RaceStarted(DomainError):
    """Joining a race after its start: racers join until the countdown ends."""

    status = 403
    code = "race_started"


class NotEntrant(DomainError):
    """Asking for a race's deals without having joined it before the start."""

    status = 403
    code = "not_entrant"


class ChallengeNotReady(DomainError):
    """The day's certified deal is still being searched for: retry after ``Retry-After``
    seconds (the scheduled job prepares it)."""

    status = 503
    code = "challenge_not_ready"
    retry_after = 30


class HintNeedsPost(DomainError):
    """``GET /hint`` by the owner of a game racing others (a daily challenge whose day is
    open, a running race or arena): there a hint counts, and only ``POST /hints``, which
    records it, may give one. A read never writes."""

    status = 409
    code = "hint_needs_post"


class FinishNotReady(DomainError):
    """``GET /games/{id}/finish`` of a game that is over, or that still hides a card (face
    down or in the reserve): there is nothing to finish (docs/api.md#finish)."""

    status = 409
    code = "finish_not_ready"


class FinishCounts(DomainError):
    """``GET /games/{id}/finish`` by the owner of a game racing others or a rated game in
    play: there a line from the solver is help that counts, as a hint does."""

    status = 409
    code = "finish_counts"


class GameNotFinished(DomainError):
    """The analysis or the notation of a game still in play: they use or show its hidden
    cards."""

    status = 409
    code = "game_not_finished"


class PoolEmpty(DomainError):
    """No certified winnable deal of the ruleset is left for this player: retry after
    ``Retry-After`` seconds, while the job fills the pool (docs/api.md#winnable-deals)."""

    status = 503
    code = "pool_empty"
    retry_after = 60


class RatedWithDeal(DomainError):
    """``rated: true`` with a ``seed`` or a ``deal``: a rated deal is the server's choice
    (docs/ratings.md), never the caller's."""

    status = 400
    code = "rated_with_deal"


class RatedWithoutPool(DomainError):
    """``rated: true`` for a ruleset that has no winnable pool (``POOL_RULES``): there is
    no rated deal to deal."""

    status = 400
    code = "rated_no_pool"


class WinnableWithDeal(DomainError):
    """``winnable: true`` with a ``seed`` or a ``deal``: a winnable deal is the server's
    secret, never the caller's choice."""

    status = 400
    code = "winnable_with_deal"


class SolverBusy(DomainError):
    """Solver work past the caller's bound (an account, or an anonymous address): a solver
    request of theirs is running already (one at a time), or they have
    ``SOLVER_MAX_IN_FLIGHT`` analyses queued or running. Retry after ``Retry-After``
    seconds."""

    status = 429
    code = "solver_busy"
    retry_after = 5


class SolverThrottled(DomainError):
    """The caller asked the solver more often than ``SOLVER_RATE`` allows; ``Retry-After``
    says when the next request may pass."""

    status = 429
    code = "solver_throttled"
    retry_after = 1


class SolverOverloaded(DomainError):
    """Every solver process of this server process is busy and its few waiting places
    taken, or the answer did not come within ``SOLVER_WAIT_MS``: the server's capacity,
    not the caller's doing. Retry after ``Retry-After`` seconds."""

    status = 503
    code = "solver_overloaded"
    retry_after = 1


class PuzzleNotFound(DomainError):
    """No such puzzle attempt of the caller's (anyone else's answers the same)."""

    status = 404
    code = "not_found"


class NoPuzzle(DomainError):
    """No puzzle is left that the player has not seen (docs/puzzles.md#modes)."""

    status = 404
    code = "no_puzzle"


class PuzzleOver(DomainError):
    """A move to an attempt that has ended."""

    status = 409
    code = "puzzle_over"


class PuzzleMovedOn(DomainError):
    """A move whose ``ply`` is not the attempt's next one (a retry of an older move that
    was not the one played): ``played`` is how many moves the attempt holds."""

    status = 409
    code = "puzzle_moved_on"

    def __init__(self, played: int) -> None:
        super().__init__(played=played)


class PuzzleNoProgress(DomainError):
    """A whole column moved into an empty one after the deal: it only renumbers columns,
    so it is neither right nor wrong; the attempt goes on."""

    status = 422
    code = "puzzle_no_progress"


class PuzzleDayNotReady(DomainError):
    """Today's puzzle is not chosen yet (the scheduled job chooses it within a minute of
    midnight, once a puzzle has been mined)."""

    status = 503
    code = "puzzle_day_not_ready"
    retry_after = 60
