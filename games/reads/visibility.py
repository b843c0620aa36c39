"""Who may see what of a game: the one place that decides it (docs/architecture.md#visibility).

Hidden information is a game's face-down cards, its reserve, its seed and its deal. Every
REST body and header, WebSocket frame, admin page, replay, hint and move list asks
:func:`sight` and shows what the answer allows; nothing else decides. The rule:

- **Reading.** Staff and the owner may read any game. Anyone may read a public game. A game
  of a daily challenge is its player's alone while the day runs (everyone races the same
  deal, so watching it would be a solution: ``challenge_in_progress``) and everyone's once
  the day is over. A game of a race or an arena (a contest) likewise, while the contest
  runs (``contest_in_progress``) and everyone's once it is finished. A private game is its
  owner's (``private_game``).
- **Hidden cards.** Shown once the game is finished, and to staff (moderators and
  superusers) at any time, except the secret of an open daily challenge or a running
  contest: that stays masked for everyone, owner and staff included, until it ends, unless
  a moderator reveals it in the admin (an act on the record). Once it ends every game of
  it is shown whole, finished or not.

"Secret" (:func:`is_secret`) is one idea for every kind of contest: a daily challenge whose
day is open, a race or arena that is not finished (``games.dailies.contests.is_secret``).

What is shown at an earlier version of a game follows the game as it is now: a finished
game shows its whole history.
"""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q

from games import clock
from games.dailies import challenges, contests
from games.dailies.models import Contest, DailyChallenge
from games.errors import (
    ChallengeInProgress,
    ContestInProgress,
    DomainError,
    GameNotFinished,
    GameNotFound,
    PrivateGame,
)
from games.store.models import Player
from games.store.summary import GameSummary


class Kind(enum.StrEnum):
    """Who is looking. Owning a game is not a kind: it is a player looking at their own."""

    ANONYMOUS = "anonymous"
    PLAYER = "player"
    MODERATOR = "moderator"
    SUPERUSER = "superuser"


@dataclass(frozen=True, slots=True)
class Viewer:
    """Someone looking at games: their kind, their account, and the games whose daily secret
    they revealed in the admin (moderators only)."""

    kind: Kind
    user_id: int | None = None
    revealed: frozenset[uuid.UUID] = frozenset()

    @classmethod
    def of(cls, user: Any, *, revealed: Iterable[uuid.UUID] = ()) -> Viewer:
        """The viewer a Django user is (``None`` and anonymous users: anonymous)."""
        if user is None or not user.is_authenticated:
            return ANONYMOUS
        if user.is_superuser:
            kind = Kind.SUPERUSER
        elif user.is_staff:
            kind = Kind.MODERATOR
        else:
            return cls(Kind.PLAYER, user.pk)
        return cls(kind, user.pk, frozenset(revealed))

    @property
    def staff(self) -> bool:
        return self.kind in (Kind.MODERATOR, Kind.SUPERUSER)

    def owns(self, game: GameSummary) -> bool:
        return self.user_id is not None and self.user_id == game.owner_id


ANONYMOUS = Viewer(Kind.ANONYMOUS)
#: A moderator who revealed nothing: what live frames for staff show.
STAFF = Viewer(Kind.MODERATOR)


@dataclass(frozen=True, slots=True)
class Sight:
    """What one viewer may see of one game: whether they may read it at all (else the
    refusal they get), and whether its hidden cards, seed and deal are shown."""

    refusal: DomainError | None
    reveal: bool

    @property
    def readable(self) -> bool:
        return self.refusal is None

    def check(self) -> Sight:
        """This sight, or its refusal raised."""
        if self.refusal is not None:
            raise self.refusal
        return self


#: What the player of a game in play sees: hidden cards masked. Hints are computed from it,
#: whoever asks, so that no hidden card can sway them.
MASKED = Sight(None, reveal=False)


def sight(viewer: Viewer, game: GameSummary, *, version: int | None = None) -> Sight:
    """What ``viewer`` may see of ``game`` (as of its latest version), or of its position at
    ``version`` (``not_found`` outside 1..latest)."""
    secret = is_secret(game)
    refusal: DomainError | None = None
    if not (viewer.staff or viewer.owns(game)):
        if game.challenge is not None:
            refusal = ChallengeInProgress() if secret else None
        elif game.contest is not None:
            refusal = ContestInProgress() if secret else None
        elif not game.public:
            refusal = PrivateGame()
    if version is not None and not 1 <= version <= game.version:
        refusal = GameNotFound()
    if refusal is not None:
        return Sight(refusal, reveal=False)
    if secret:
        reveal = viewer.staff and game.id in viewer.revealed
    else:
        reveal = _contested(game) or viewer.staff or game.finished
    return Sight(None, reveal=reveal)


def _contested(game: GameSummary) -> bool:
    """A game of a daily challenge, a race or an arena: everyone's deal."""
    return game.challenge is not None or game.contest is not None


def is_secret(game: GameSummary) -> bool:
    """Whether ``game`` is a deal of a contest that still runs (a daily challenge whose day
    is open, a race or an arena that is not finished): its deal is hidden from everyone."""
    if game.challenge is not None:
        return challenges.is_open(game.challenge)
    if game.contest is not None:
        return contests.is_secret(game.contest)
    return False


class Audience(enum.StrEnum):
    """The viewers who see the same of every game they may read: live frames are rendered
    once per audience, not once per spectator."""

    #: Everyone but staff: each sees of a game what its owner sees.
    READERS = "readers"
    #: Moderators and superusers (with no reveal made in the admin).
    STAFF = "staff"


def audience(viewer: Viewer) -> Audience:
    """The audience whose frames ``viewer`` receives."""
    return Audience.STAFF if viewer.staff else Audience.READERS


def audience_sight(audience: Audience, game: GameSummary) -> Sight:
    """The sight every member of ``audience`` who may read ``game`` has of it."""
    if audience is Audience.STAFF:
        return sight(STAFF, game)
    return sight(Viewer(Kind.PLAYER, game.owner_id), game)


def listed(viewer: Viewer) -> Q:
    """The games ``viewer`` finds in lists, as a filter on ``Game``: the games :func:`sight`
    lets them read, less those of banned players (staff and the player see them still)."""
    if viewer.staff:
        return Q()
    now = clock.now()
    over = Contest.objects.filter(Q(ends_at__lte=now) | Q(finished_at__isnull=False))
    visible = (
        (Q(public=True) & Q(challenge__isnull=True) & Q(contest__isnull=True))
        | Q(challenge__lt=challenges.today())
        | Q(contest__in=over.filter(public=True).values("id"))
    )
    shown = ~Q(Exists(Player.objects.filter(user_id=OuterRef("owner_id"), banned=True)))
    if viewer.user_id is not None:
        visible |= Q(owner_id=viewer.user_id)
        shown |= Q(owner_id=viewer.user_id)
    return visible & shown


def standing_games_shown(*, secret: bool, viewer: Viewer, own: bool) -> bool:
    """Whether a row of a race's standings (a day's, a race's, an arena's) names its games
    to ``viewer``: where :func:`sight` lets them read those games. Everyone's once the race
    is over (``secret`` false); while it runs, the viewer's own row, and every row to staff.
    Live standings frames go to every watcher alike: they name games as an anonymous reader
    may read them."""
    return not secret or viewer.staff or own


def challenge_seed(challenge: DailyChallenge) -> int | None:
    """A daily challenge's seed as anyone may see it: ``None`` while the day runs. (The
    admin's recorded reveal is the one way round it.)"""
    return None if challenges.is_open(challenge.date) else challenge.seed


def contest_seeds(contest: Contest) -> list[int] | None:
    """The seeds of a race's deals (of the deals an arena dealt) as anyone may see them:
    ``None`` until the contest is finished."""
    if contests.phase(contest) != contests.FINISHED:
        return None
    return contests.seeds(contest, contests.rounds_dealt(contest))


def challenge_solution(challenge: DailyChallenge) -> tuple[list[dict[str, Any]] | None, str | None]:
    """A daily challenge's certified solution (API commands) and difficulty as anyone may
    see them: ``(None, None)`` while the day runs, since either would help the race."""
    if challenges.is_open(challenge.date):
        return None, None
    return challenge.solution, challenge.difficulty


def analysis_shown(sight: Sight, game: GameSummary) -> bool:
    """Whether a game's post-game analysis (full information: every hidden card counts in
    it) may be shown to a viewer with ``sight``: only of a finished game whose hidden cards
    that viewer may see. No solver output on hidden cards leaves while a game is played."""
    return game.finished and sight.readable and sight.reveal


def notation_refusal(sight: Sight, game: GameSummary) -> DomainError | None:
    """Why a viewer with ``sight`` may not have ``game`` in the notation (docs/notation.md),
    or ``None``. The notation names the seed or the deal, so it needs the sight of the
    hidden cards: without it, a game of a contest that still runs is refused as reading it
    would be for others (``challenge_in_progress``, ``contest_in_progress``), and any other
    game while it is played (``game_not_finished``)."""
    if sight.reveal:
        return None
    if is_secret(game):
        return ChallengeInProgress() if game.challenge is not None else ContestInProgress()
    return GameNotFinished()


# --- The public log: games open to everyone, whole ----------------------------------------------


def published(game: GameSummary) -> bool:
    """Whether ``game`` is open to everyone, whole: an anonymous reader may read it and see
    its hidden cards. That is when it belongs in the public log (docs/api.md#the-public-log)
    and its monthly export."""
    seen = sight(ANONYMOUS, game)
    return seen.readable and seen.reveal


def published_by_finishing(game: GameSummary) -> bool:
    """Whether the event that finished ``game`` made it :func:`published`: a public game of
    no contest. (A game of a day, a race or an arena enters the log when that is over, for
    every one of its games at once: :func:`days_published` and :func:`contests_published`.)"""
    return game.challenge is None and game.contest is None and published(game)


def days_published(now: dt.datetime) -> Q:
    """The daily challenges over at ``now``, as a filter on ``DailyChallenge``: all their
    games are everyone's, finished or not (:func:`sight`)."""
    return Q(date__lt=now.astimezone(dt.UTC).date())


def contests_published(now: dt.datetime) -> Q:
    """The races and arenas over at ``now`` whose games enter the public log, as a filter on
    ``Contest``: the listed ones. A private race's games may be read by whoever has their
    link once it is over, but it is not listed (:func:`listed`), so neither is it in the
    open database."""
    return (Q(ends_at__lte=now) | Q(finished_at__isnull=False)) & Q(public=True)


def day_is_secret(date: dt.date | None) -> bool:
    """Whether the games of the daily challenge of ``date`` still hide their deal."""
    return date is not None and challenges.is_open(date)


# --- Puzzles (docs/puzzles.md#what-stays-secret) ---------------------------------------------


def puzzle_revealed(status: str) -> bool:
    """Whether an attempt at a puzzle (of ``status``) shows the puzzle whole: its unseen
    cards, its answer (the line, the themes) and where it was found (the game or the day,
    whose cards would give the answer away). Only once the attempt has ended; an attempt is
    its player's alone (``games.reads.puzzles.attempt_get``)."""
    return status != "playing"
