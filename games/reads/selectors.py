"""Reads: the queries behind every REST read and live feed, each through visibility.

A game is read as its summary (``games.store.summary``), never replayed, and comes with
the :class:`~games.reads.visibility.Sight` its viewer has of it, so that whoever renders it
shows exactly what ``visibility.sight`` decided.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as dt
import json
import uuid
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Q, QuerySet

from games import clock, engine, metrics
from games.boards import metrics as board_metrics
from games.boards import ranking
from games.dailies import challenges, contests, standings
from games.dailies.models import Contest, DailyChallenge, Entrant
from games.engine import hint as hints
from games.errors import GameNotFound, UnknownMetric, UnknownScope
from games.pools.models import CertifiedDeal, PoolDraw
from games.reads import presenters, ratings, solver_work, visibility
from games.reads.shapes import (
    ActionBody,
    ArenaBody,
    ArenaStandingBody,
    BoardRowBody,
    BoardsBody,
    LeaderboardBody,
    RaceBody,
    RaceStandingBody,
    StandingBody,
)
from games.reads.visibility import Sight, Viewer
from games.store import events as store_events
from games.store import notation, streams
from games.store.models import Event, Game, GameAnalysis
from games.store.notation import stored
from games.store.summary import GameSummary

#: The notation's media type and file extension, for the transport.
NOTATION_MEDIA_TYPE = notation.MEDIA_TYPE
NOTATION_EXTENSION = notation.EXTENSION


class Seen(NamedTuple):
    """A game and what its viewer may see of it."""

    game: GameSummary
    sight: Sight


def game_get(*, game_id: uuid.UUID | str, viewer: Viewer, version: int | None = None) -> Seen:
    """The game if ``viewer`` may read it (at ``version``, when given): the refusal of
    :func:`visibility.sight` otherwise, or :class:`GameNotFound`."""
    try:
        key = game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id))
        row = Game.objects.select_related("owner").get(id=key)
    except (Game.DoesNotExist, ValueError):
        raise GameNotFound() from None
    game = GameSummary.from_row(row)
    if version is None:
        game = ratings.with_rating(game)
    return Seen(game, visibility.sight(viewer, game, version=version).check())


def game_list(
    *,
    viewer: Viewer,
    owner: str | None = None,
    status: str | None = None,
    rules: str | None = None,
) -> QuerySet[Game]:
    """The rows of the games ``viewer`` finds in lists (``visibility.listed``), newest
    first, filtered; turn each into a summary with :func:`listed_game`."""
    games = Game.objects.select_related("owner").filter(visibility.listed(viewer))
    if owner:
        games = games.filter(owner__username=owner)
    if status:
        games = games.filter(status=status)
    if rules:
        games = games.filter(rules=rules)
    return games.order_by("-created_at", "id")


def listed_game(row: Game, viewer: Viewer) -> Seen:
    """A row of :func:`game_list` as its viewer sees it."""
    game = GameSummary.from_row(row)
    return Seen(game, visibility.sight(viewer, game).check())


def game_stream(game: GameSummary) -> streams.Stream:
    """The stream behind ``game`` (cached; replays only what is missing)."""
    return streams.load(game.id, game.version)


def game_events(*, game: GameSummary, after: int, limit: int) -> tuple[list[Event], bool]:
    """Up to ``limit`` events of ``game`` after ``seq`` ``after`` (its summary's version at
    most), in ``seq`` order, with their actors; and whether more follow."""
    rows = list(
        Event.objects.filter(game_id=game.id, seq__gt=after, seq__lte=game.version)
        .select_related("actor")
        .order_by("seq")[: limit + 1]
    )
    return rows[:limit], len(rows) > limit


def moved_cards(game: GameSummary, rows: list[Event]) -> dict[int, str]:
    """The card each move of ``rows`` (consecutive events of ``game``) took, by ``seq``, read
    from a replay of the game up to them. A move takes only a face-up card, so whoever may
    read the events may see it, whatever became of the card later."""
    if not rows:
        return {}
    if rows[0].seq == 1:
        before, rest = streams.start(rows[0]), rows[1:]
    else:
        before, rest = streams.at_version(game.id, rows[0].seq - 1), rows
    cards: dict[int, str] = {}
    for after, event, _ in streams.steps(before, rest):
        fact = streams.decoded(event)
        state = before.state
        if isinstance(fact, store_events.Moved):
            cards[event.seq] = engine.card_code(state.columns[fact.source - 1][fact.index])
        elif isinstance(fact, store_events.CellMoved):
            card = state.cells[fact.cell - 1]
            if card is not None:
                cards[event.seq] = engine.card_code(card)
        before = after
    return cards


def game_notation(seen: Seen) -> str:
    """The game ``seen`` (read through :func:`game_get`) in the notation (docs/notation.md),
    as of its summary's version: the refusal of ``visibility.notation_refusal`` unless its
    viewer may see its hidden cards, since the notation names its seed or deal."""
    game, sight = seen
    refusal = visibility.notation_refusal(sight, game)
    if refusal is not None:
        raise refusal
    rows = Event.objects.filter(game_id=game.id, seq__lte=game.version).select_related("actor")
    return notation.write(stored.transcript(rows.order_by("seq").iterator()))


def game_moves(game: GameSummary) -> list[ActionBody]:
    """Every legal action now, as API entries. Legal actions take face-up cards only, so
    the cards they name are public."""
    state = game_stream(game).state
    return [
        cast(ActionBody, engine.describe_action(state, action))
        for action in engine.legal_actions(state)
    ]


def game_hint(game: GameSummary, *, caller: str) -> hints.Hint:
    """The hint for ``game`` as it stands: computed from the player's view only
    (``presenters.owner_view``), so no hidden card can sway it, whoever asks; the view
    alone seeds its samples (``games.engine.hint``). Cached per (game, version); a hint not
    cached is searched in the solver pool, within ``caller``'s bounds
    (``games.reads.solver_work``: 429 or 503 past them)."""
    key = _hint_key(game)
    try:
        cached = cache.get(key)
    except Exception:  # an unreachable cache only costs the computation
        cached = None
    if isinstance(cached, hints.Hint):
        return cached
    rules, view = engine.RULESETS[game.rules], presenters.owner_view(game)
    if game.finished:  # nothing to search: no hint
        found = view_hint(rules, view)
    else:
        found = solver_work.run(
            hints.hint, rules, view, caller=caller, been=_line_boards(game), **_hint_budget()
        )
    remember_hint(game, found)
    return found


def _line_boards(game: GameSummary) -> frozenset[Hashable]:
    """What ``game``'s board has looked like on its line of play (``games.engine.hint``
    does not lead back there); nothing for a finished game, which gets no hint."""
    if game.finished:
        return frozenset()
    return hints.line_boards(streams.load(game.id, game.version).state)


def hint_counts(game: GameSummary, viewer_id: int | None) -> bool:
    """Whether a hint ``viewer_id`` asks for is a fact of ``game`` that must be recorded:
    they own it, it is in play, and it races others (a daily challenge whose day is open,
    a race or arena that accepts commands, or a rated game). Only a write may give such a
    hint."""
    if viewer_id is None or viewer_id != game.owner_id or game.finished:
        return False
    if game.challenge is not None:
        return challenges.is_open(game.challenge)
    if game.rated:  # a hint scores a rated game's win as a loss (docs/ratings.md)
        return True
    return game.contest is not None and contests.accepts_commands(game.contest)


def remember_hint(game: GameSummary, found: hints.Hint) -> None:
    """Cache ``found`` as the hint of ``game`` at its version (for an hour)."""
    with contextlib.suppress(Exception):  # an unreachable cache only costs the computation
        cache.set(_hint_key(game), found, timeout=3600)


def _hint_key(game: GameSummary) -> str:
    return f"hint:{game.id}:{game.version}:{settings.HINT_SAMPLES}:{settings.HINT_SAMPLE_BUDGET}"


def view_hint(
    rules: engine.Ruleset, view: dict[str, Any], been: Collection[Hashable] = ()
) -> hints.Hint:
    """The hint for a player's view (not back to the boards ``been``), with the server's
    sampling settings, searched here (jobs; a request asks :func:`game_hint`)."""
    return hints.hint(rules, view, been=been, **_hint_budget())


def _hint_budget() -> dict[str, Any]:
    """The server's sampling settings, as :func:`games.engine.hint.hint` takes them."""
    return {
        "samples": settings.HINT_SAMPLES,
        "budget": settings.HINT_SAMPLE_BUDGET,
        "time_limit": settings.HINT_TIME_LIMIT or None,
    }


def hint_move(game: GameSummary, action: hints.Hinted | None) -> ActionBody | None:
    """``action`` as an entry of ``/moves``: a move names the face-up card it takes (read
    from the player's view, so always a public card)."""
    view = presenters.owner_view(game)
    if isinstance(action, engine.Move):
        card = view["columns"][action.source - 1][action.index]
        return {
            "type": "move",
            "from": action.source,
            "index": action.index,
            "to": action.to,
            "card": card,
        }
    if isinstance(action, engine.CellMove):
        card = view["cells"][action.cell - 1]
        return {"type": "move", "cell": action.cell, "to": action.to, "card": card}
    if isinstance(action, engine.Deal):
        return {"type": "deal"}
    return None


def game_analysis(game: GameSummary) -> GameAnalysis | None:
    """The stored analysis of ``game``, if it was computed."""
    return GameAnalysis.objects.filter(game_id=game.id).first()


def game_certified(game: GameSummary) -> CertifiedDeal | None:
    """The winnable pool's deal ``game`` was dealt, if it was (its difficulty may be shown;
    its seed and line only as the game's hidden cards are)."""
    if game.challenge is not None or game.contest is not None or game.seed is None:
        return None
    draw = PoolDraw.objects.select_related("deal").filter(game_id=game.id).first()
    return None if draw is None else draw.deal


def game_at_version(*, game: GameSummary, version: int) -> GameSummary:
    """``game`` as it was at ``version`` (checked by :func:`game_get`'s sight)."""
    return GameSummary.of(streams.at_version(game.id, version), owner=game.owner)


def challenge_day(text: str) -> dt.date:
    """The day ``text`` names (``YYYY-MM-DD`` or ``today``); not found for anything else."""
    return challenges.parse_date(text)


def challenge_get(date: str | dt.date) -> DailyChallenge:
    """The challenge of ``date`` (a day, ``YYYY-MM-DD`` or ``today``), made on first ask; not
    found for anything else, and for a day that has not begun."""
    day = date if isinstance(date, dt.date) else challenges.parse_date(date)
    return challenges.challenge_get(day)


def challenge_standings(date: dt.date, viewer: Viewer = visibility.ANONYMOUS) -> list[StandingBody]:
    """The race's standings, best first (docs/api.md#standings), each row with its game's id
    where ``viewer`` may read it (else null)."""
    entries: list[StandingBody] = json.loads(standings.ranked(date)[1])
    _hide_games(entries, "game", None, secret=challenges.is_open(date), viewer=viewer)
    return entries


def standings_ranked(date: dt.date) -> tuple[int, str]:
    """``(revision, the ranked standings as JSON text)`` of a race, in one query, naming
    games as live frames do (``visibility.standing_games_shown``)."""
    metrics.standings_recomputations.inc()
    shown = visibility.standing_games_shown(
        secret=challenges.is_open(date), viewer=visibility.ANONYMOUS, own=False
    )
    return standings.ranked(date, games=shown)


def _hide_games(
    rows: Sequence[Mapping[str, Any]], key: str, hidden: Any, *, secret: bool, viewer: Viewer
) -> None:
    """Set ``key`` (a row's game or games) to ``hidden`` in every row whose games ``viewer``
    may not read (``visibility.standing_games_shown``)."""
    if not secret or viewer.staff:
        return
    name = None
    if viewer.user_id is not None:
        users = get_user_model().objects.filter(pk=viewer.user_id)
        name = users.values_list("username", flat=True).first()
    for row in rows:
        own = name is not None and row["player"] == name
        if not visibility.standing_games_shown(secret=secret, viewer=viewer, own=own):
            cast(dict[str, Any], row)[key] = hidden


# --- leaderboards ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """One leaderboard: a scope, a metric, a period and the key of the period shown."""

    scope: str
    metric: board_metrics.Metric
    period: str
    key: str


def boards() -> BoardsBody:
    """Which leaderboards exist."""
    return {
        "scopes": list(board_metrics.scopes()),
        "metrics": list(board_metrics.METRICS),
        "periods": list(board_metrics.PERIODS),
    }


def board_get(*, scope: str, metric: str, period: str, at: str | None) -> Board:
    """The board named so: :class:`UnknownScope`, :class:`UnknownMetric`, or
    :class:`ValueError` for a ``period``/``at`` that name no period (``at``: a key of the
    period, a day within it, or ``None`` for the current one)."""
    if scope not in board_metrics.scopes():
        raise UnknownScope()
    found = board_metrics.METRICS.get(metric)
    if found is None or not found.applies(scope):
        raise UnknownMetric()
    return Board(scope, found, period, board_metrics.period_key(period, at, clock.now()))


def board_position(cursor: str) -> ranking.Position:
    """The position a leaderboard cursor names; :class:`ValueError` for a cursor this
    server did not make."""
    try:
        value, reached, player = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        at = dt.datetime.fromisoformat(reached)
    except (binascii.Error, UnicodeError, TypeError, ValueError) as error:
        raise ValueError("bad cursor") from error
    if not all(type(item) is int for item in (value, player)) or at.tzinfo is None:
        raise ValueError("bad cursor")
    if not clock.storable(at):
        raise ValueError("bad cursor")
    return ranking.Position(value, at, player)


def _cursor(row: ranking.Row) -> str:
    text = json.dumps([row.value, row.reached.isoformat(), row.player_id])
    return base64.urlsafe_b64encode(text.encode()).decode()


def leaderboard(
    board: Board, *, viewer: Viewer, after: ranking.Position | None, limit: int
) -> tuple[LeaderboardBody, str | None]:
    """A page of ``board`` after ``after`` with the viewer's own row (``next`` left null),
    and the cursor of the next page, if there is one (docs/api.md#leaderboards)."""
    rows, more = ranking.page(board.metric, board.scope, board.key, after=after, limit=limit)
    mine = None
    if viewer.user_id is not None:
        mine = ranking.own(board.metric, board.scope, board.key, viewer.user_id)
    shown = readable_games(
        [row.game for row in (*rows, *([mine] if mine else [])) if row.game], viewer
    )
    start, end = board_metrics.bounds(board.key)

    def body(row: ranking.Row) -> BoardRowBody:
        return presenters.board_row_body(row, game_shown=row.game in shown)

    page: LeaderboardBody = {
        "scope": board.scope,
        "metric": board.metric.name,
        "period": board.period,
        "key": board.key,
        "starts_at": presenters.timestamp(start),
        "ends_at": presenters.timestamp(end),
        "results": [body(row) for row in rows],
        "next": None,
        "me": body(mine) if mine is not None else None,
    }
    return page, _cursor(rows[-1]) if more and rows else None


def readable_games(ids: list[uuid.UUID], viewer: Viewer) -> set[uuid.UUID]:
    """Which of the games ``ids`` ``viewer`` may read (``visibility.sight``): a leaderboard's
    or a record's best-time games are linked only then."""
    if not ids:
        return set()
    rows = Game.objects.select_related("owner").filter(id__in=ids)
    return {row.id for row in rows if visibility.sight(viewer, GameSummary.from_row(row)).readable}


# --- Races and arenas (contests) -----------------------------------------------------------------


def race_get(key: str | uuid.UUID) -> Contest:
    """The race whose id or short code is ``key`` (:class:`ContestNotFound` otherwise)."""
    return contests.contest_get(key, Contest.Kind.RACE)


def arena_get(key: str | uuid.UUID) -> Contest:
    """The arena whose id is ``key`` (:class:`ContestNotFound` otherwise)."""
    return contests.contest_get(key, Contest.Kind.ARENA)


def contest_list(*, kind: str, viewer: Viewer, status: str | None = None) -> QuerySet[Contest]:
    """The races or arenas ``viewer`` finds listed, newest start first: public ones, those
    they made or joined, and every one for staff; ``status`` filters by phase."""
    rows = Contest.objects.select_related("creator").filter(kind=kind)
    if not viewer.staff:
        shown = Q(public=True)
        if viewer.user_id is not None:
            shown |= Q(creator_id=viewer.user_id) | Q(
                id__in=Entrant.objects.filter(player_id=viewer.user_id).values("contest_id")
            )
        rows = rows.filter(shown)
    now = clock.now()
    over = Q(ends_at__lte=now) | Q(finished_at__isnull=False)
    if status == contests.SCHEDULED:
        rows = rows.filter(starts_at__gt=now)
    elif status == contests.RUNNING:
        rows = rows.filter(starts_at__lte=now).exclude(over)
    elif status == contests.FINISHED:
        rows = rows.filter(over)
    return rows.order_by("-starts_at", "id")


def _entrants(contest: Contest) -> int:
    return Entrant.objects.filter(contest=contest).count()


def race_view(race: Contest) -> RaceBody:
    """A race as anyone sees it: its seeds only once it is finished."""
    return presenters.race_body(race, _entrants(race))


def arena_view(arena: Contest) -> ArenaBody:
    """An arena as anyone sees it: its seeds only once it is finished."""
    return presenters.arena_body(arena, _entrants(arena))


def race_standings(race: Contest, viewer: Viewer = visibility.ANONYMOUS) -> list[RaceStandingBody]:
    """A race's standings, best first (docs/api.md#race-standings), each row with its games
    where ``viewer`` may read them (else null)."""
    entries: list[RaceStandingBody] = json.loads(contests.ranked(race)[1])
    _hide_games(entries, "games", None, secret=contests.is_secret(race.id), viewer=viewer)
    return entries


def arena_standings(
    arena: Contest, viewer: Viewer = visibility.ANONYMOUS
) -> list[ArenaStandingBody]:
    """An arena's leaderboard, most points first (docs/api.md#arena-standings), each row
    with its games where ``viewer`` may read them (else null)."""
    entries: list[ArenaStandingBody] = json.loads(contests.ranked(arena)[1])
    _hide_games(entries, "games", None, secret=contests.is_secret(arena.id), viewer=viewer)
    return entries


def contest_board(contest: Contest) -> contests.Board:
    """A race's or arena's ranking, to keep and apply changes to (``contests.Board``)."""
    return contests.load_board(contest)


def contest_refresh(contest: Contest) -> Contest:
    """The contest's row as it is now (its phase may have moved on)."""
    return Contest.objects.select_related("creator").get(id=contest.id)


def contest_games(contest: Contest, viewer: Viewer) -> list[Seen]:
    """The games of a race or arena that ``viewer`` may read, by player then round: their
    own while it runs (staff: everyone's, as ``visibility.sight`` masks them), everyone's
    once it is finished."""
    rows = Game.objects.select_related("owner").filter(contest=contest.id)
    if contests.phase(contest) != contests.FINISHED and not viewer.staff:
        rows = rows.filter(owner_id=viewer.user_id or 0)
    seen = []
    for row in rows.order_by("owner__username", "round"):
        game = GameSummary.from_row(row)
        sight = visibility.sight(viewer, game)
        if sight.readable:
            seen.append(Seen(game, sight))
    return seen
