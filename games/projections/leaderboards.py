"""The leaderboards as a projection of the events.

A game counts once it is finished: the event that finishes it writes its
:class:`~games.boards.models.BoardResult` and folds it into the player's entry of each
board it belongs to (its scopes × the three periods of its finishing moment), in the same
guarded statement as the event (its two fragments, :data:`RESULT_SQL` and
:data:`ENTRIES_SQL`). That update reads no other result: each entry carries its fold
forward (the current run, the last result). Moderation (a void or a restore) and a result
that arrived out of finishing order recompute the few entries concerned from the results
(:func:`recompute`); ``rebuild_projections`` recomputes them all (:func:`rebuild`). Both
use :class:`Fold`, the definition the incremental SQL follows step by step.

Definitions (docs/api.md#leaderboards):

- counted results: finished games (won, lost, resigned) not voided, in finishing order
  (``finished_at``, then game id);
- ``wins``: counted wins; ``best_ms``: the least time of a counted win, the time of a game
  being from its first action to the winning action (the sum of the gaps between its
  actions, each at least 0), ties kept by the earlier win;
- ``streak`` of a ruleset: the longest run of consecutive wins among the counted results;
  of the dailies: the longest run of consecutive UTC days with a counted won daily.

Banned players and closed accounts keep their entries; the ranking leaves them out
(``games.boards.ranking``). A guest has results but no entries, live or rebuilt (guests are
on no board, and there may be very many of them, too many to leave out at each read); when
it signs up, :func:`relisted` makes its entries from its results.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

from games import engine
from games.boards import metrics
from games.boards.models import BoardEntry, BoardResult
from games.projections.base import Change, Projection
from games.store import events, streams
from games.store.append import Fragment
from games.store.models import Account
from games.store.summary import GameSummary

# --- the incremental update, part of the append's statement --------------------------------

#: The finished game's result (the fragment ``board_result``): parameters prefixed ``lb_``.
RESULT_SQL = """INSERT INTO games_board_result
    (game_id, player_id, rules, day, won, finished_at, time_ms, voided)
SELECT id, %(lb_player)s, %(lb_rules)s, %(lb_day)s, %(lb_won)s, %(lb_finished_at)s,
       %(lb_time_ms)s, %(lb_voided)s
FROM head
ON CONFLICT (game_id) DO NOTHING"""

# The entry the result alone makes (``x``), folded into the existing one (``e``) as
# ``Fold.add`` does. Out of finishing order, the row is marked dirty and recomputed.
_ORDERED = "(x.last_at, x.last_game) > (e.last_at, e.last_game)"
_WON = "x.run > 0"
_RUN = f"""(CASE
    WHEN e.scope = '{metrics.DAILY}' AND NOT {_WON} THEN e.run
    WHEN e.scope = '{metrics.DAILY}' AND e.last_day = x.last_day - 1 THEN e.run + 1
    WHEN e.scope = '{metrics.DAILY}' THEN 1
    WHEN {_WON} THEN e.run + 1
    ELSE 0 END)"""
_BETTER = "(x.best_ms IS NOT NULL AND (e.best_ms IS NULL OR x.best_ms < e.best_ms))"

#: The entries of the result's boards (the fragment ``board_entries``): parameters prefixed
#: ``lb_``; ``lb_scopes``/``lb_periods``/``lb_daily`` are parallel arrays, one item a board.
#: Its flag says whether an entry received the result out of finishing order.
ENTRIES_SQL = f"""INSERT INTO games_board_entry AS e
        (scope, period, player_id, wins, wins_at, best_ms, best_at, best_game, streak,
         streak_at, run, last_at, last_game, last_day, dirty)
    SELECT b.scope, b.period, %(lb_player)s,
           CASE WHEN %(lb_won)s THEN 1 ELSE 0 END,
           CASE WHEN %(lb_won)s THEN %(lb_finished_at)s::timestamptz END,
           CASE WHEN %(lb_won)s THEN %(lb_time_ms)s::bigint END,
           CASE WHEN %(lb_won)s THEN %(lb_finished_at)s::timestamptz END,
           CASE WHEN %(lb_won)s THEN head.id END,
           CASE WHEN %(lb_won)s THEN 1 ELSE 0 END,
           CASE WHEN %(lb_won)s THEN %(lb_finished_at)s::timestamptz END,
           CASE WHEN %(lb_won)s THEN 1 ELSE 0 END,
           %(lb_finished_at)s::timestamptz, head.id,
           CASE WHEN %(lb_won)s AND b.daily THEN %(lb_day)s::date END,
           FALSE
    FROM head, unnest(%(lb_scopes)s::text[], %(lb_periods)s::text[], %(lb_daily)s::boolean[])
        AS b(scope, period, daily)
    WHERE NOT EXISTS (SELECT 1 FROM games_account a WHERE a.user_id = %(lb_player)s AND a.guest)
    ON CONFLICT (scope, period, player_id) DO UPDATE SET
        wins = e.wins + x.wins,
        wins_at = CASE WHEN {_WON} THEN x.wins_at ELSE e.wins_at END,
        best_ms = CASE WHEN {_BETTER} THEN x.best_ms ELSE e.best_ms END,
        best_at = CASE WHEN {_BETTER} THEN x.best_at ELSE e.best_at END,
        best_game = CASE WHEN {_BETTER} THEN x.best_game ELSE e.best_game END,
        run = {_RUN},
        streak = GREATEST(e.streak, {_RUN}),
        streak_at = CASE WHEN {_RUN} > e.streak THEN x.last_at ELSE e.streak_at END,
        last_at = x.last_at,
        last_game = x.last_game,
        last_day = CASE WHEN {_WON} AND e.scope = '{metrics.DAILY}'
                        THEN x.last_day ELSE e.last_day END,
        dirty = e.dirty OR NOT {_ORDERED}
    RETURNING dirty""".replace("x.", "EXCLUDED.")
_DIRTY = "SELECT bool_or(dirty) FROM board_entries"


def result_fields(stream: streams.Stream) -> dict[str, Any]:
    """The :class:`BoardResult` of a finished stream, as field values."""
    assert stream.finished_at is not None, "only a finished game has a result"
    won = stream.state.status == engine.WON
    return {
        "game_id": stream.game_id,
        "player_id": stream.owner_id,
        "rules": stream.rules.name,
        "day": None if stream.challenge is None else dt.date.fromisoformat(stream.challenge),
        "won": won,
        "finished_at": stream.finished_at,
        "time_ms": stream.pace.total_ms if won else None,
        "voided": stream.voided,
    }


def finishing_params(stream: streams.Stream) -> dict[str, Any]:
    """The parameters of :data:`RESULT_SQL` and :data:`ENTRIES_SQL` for the event that
    finished ``stream``'s game (a voided game's result is written but counts nowhere)."""
    result = result_fields(stream)
    boards = (
        []
        if result["voided"]
        else list(_boards(result["rules"], result["day"], result["finished_at"]))
    )
    return {
        "lb_player": result["player_id"],
        "lb_rules": result["rules"],
        "lb_day": result["day"],
        "lb_won": result["won"],
        "lb_finished_at": result["finished_at"],
        "lb_time_ms": result["time_ms"],
        "lb_voided": result["voided"],
        "lb_scopes": [scope for scope, _ in boards],
        "lb_periods": [period for _, period in boards],
        "lb_daily": [scope == metrics.DAILY for scope, _ in boards],
    }


def _boards(rules: str, day: dt.date | None, at: dt.datetime) -> list[tuple[str, str]]:
    """The ``(scope, period)`` boards of a result, sorted: every writer locks a player's
    entries in this one order, so two of them never wait for each other in a cycle."""
    return sorted(
        (scope, period)
        for scope in metrics.scopes_of(rules, day)
        for period in metrics.periods_of(at)
    )


# --- the fold, from scratch ------------------------------------------------------------------


@dataclass(slots=True)
class Fold:
    """One entry computed from its counted results, added in finishing order."""

    daily: bool
    wins: int = 0
    wins_at: dt.datetime | None = None
    best_ms: int | None = None
    best_at: dt.datetime | None = None
    best_game: uuid.UUID | None = None
    streak: int = 0
    streak_at: dt.datetime | None = None
    run: int = 0
    last_at: dt.datetime | None = None
    last_game: uuid.UUID | None = None
    last_day: dt.date | None = None

    def add(self, result: BoardResult) -> None:
        if result.won:
            self.wins += 1
            self.wins_at = result.finished_at
            assert result.time_ms is not None
            if self.best_ms is None or result.time_ms < self.best_ms:
                self.best_ms, self.best_at = result.time_ms, result.finished_at
                self.best_game = result.game_id
            if self.daily:
                assert result.day is not None
                follows = self.last_day == result.day - dt.timedelta(days=1)
                self.run = self.run + 1 if follows else 1
                self.last_day = result.day
            else:
                self.run += 1
        elif not self.daily:
            self.run = 0
        if self.run > self.streak:
            self.streak, self.streak_at = self.run, result.finished_at
        self.last_at, self.last_game = result.finished_at, result.game_id

    def fields(self) -> dict[str, Any]:
        return {
            "wins": self.wins,
            "wins_at": self.wins_at,
            "best_ms": self.best_ms,
            "best_at": self.best_at,
            "best_game": self.best_game,
            "streak": self.streak,
            "streak_at": self.streak_at,
            "run": self.run,
            "last_at": self.last_at,
            "last_game": self.last_game,
            "last_day": self.last_day,
            "dirty": False,
        }


_ORDER = ("finished_at", "game_id")


def recompute(player_id: int, boards: Iterable[tuple[str, str]]) -> None:
    """Recompute ``player_id``'s entries on ``boards`` (``(scope, period)`` pairs) from
    their counted results, in the caller's transaction: the entries are locked first, so an
    incremental update of the same entries waits and then applies on top of the result.
    An entry with no counted result left is deleted, and a guest has none."""
    wanted = sorted(set(boards))
    if not wanted:
        return
    if Account.objects.filter(user_id=player_id, guest=True).exists():
        BoardEntry.objects.filter(player_id=player_id).delete()
        return
    for scope, period in wanted:
        list(
            BoardEntry.objects.select_for_update()
            .filter(scope=scope, period=period, player_id=player_id)
            .values_list("id", flat=True)
        )
    for scope, period in wanted:
        results = BoardResult.objects.filter(player_id=player_id, voided=False)
        if scope == metrics.DAILY:
            results = results.filter(day__isnull=False)
        else:
            results = results.filter(rules=scope)
        start, end = metrics.bounds(period)
        if start is not None:
            results = results.filter(finished_at__gte=start, finished_at__lt=end)
        fold = Fold(daily=scope == metrics.DAILY)
        for result in results.order_by(*_ORDER):
            fold.add(result)
        if fold.last_at is None:
            BoardEntry.objects.filter(scope=scope, period=period, player_id=player_id).delete()
        else:
            BoardEntry.objects.update_or_create(
                scope=scope, period=period, player_id=player_id, defaults=fold.fields()
            )


def moderated(stream: streams.Stream) -> None:
    """After a void or a restore of ``stream``'s game (in the moderation's transaction):
    its result follows, and its player's entries on the boards it belongs to are
    recomputed. A game still playing has no result yet: nothing to do."""
    if stream.finished_at is None:
        return
    result = BoardResult.objects.filter(game_id=stream.game_id).first()
    if result is None:
        return
    result.voided = stream.voided
    result.save(update_fields=["voided"])
    recompute(result.player_id, _boards(result.rules, result.day, result.finished_at))


def repair(stream: streams.Stream) -> None:
    """Recompute the entries a finished game's result reached out of finishing order."""
    result = result_fields(stream)
    with transaction.atomic():
        recompute(
            result["player_id"], _boards(result["rules"], result["day"], result["finished_at"])
        )


def relisted(player_id: int) -> None:
    """Make the entries of a guest that has just signed up, on every board its results
    belong to (in the caller's transaction, which changed the guest into an account)."""
    results = BoardResult.objects.filter(player_id=player_id).values_list(
        "rules", "day", "finished_at"
    )
    recompute(player_id, {board for result in results for board in _boards(*result)})


def rebuild() -> int:
    """Recompute every entry from the results (which the caller rebuilt from events), in
    the caller's transaction; returns how many entries there are."""
    entries: list[BoardEntry] = []
    player: int | None = None
    folds: dict[tuple[str, str], Fold] = {}

    def flush() -> None:
        if player is None:
            return
        for (scope, period), fold in folds.items():
            entries.append(
                BoardEntry(scope=scope, period=period, player_id=player, **fold.fields())
            )
        folds.clear()

    counted = BoardResult.objects.filter(voided=False).order_by("player_id", *_ORDER)
    # Guests make no entries. An upgrade from before guests rebuilds (its 0011) before their
    # table exists, when there are none.
    if Account._meta.db_table in connection.introspection.table_names():
        counted = counted.exclude(
            player_id__in=Account.objects.filter(guest=True).values("user_id")
        )
    for result in counted.iterator(chunk_size=2000):
        if result.player_id != player:
            flush()
            player = result.player_id
        for board in _boards(result.rules, result.day, result.finished_at):
            fold = folds.get(board)
            if fold is None:
                fold = folds[board] = Fold(daily=board[0] == metrics.DAILY)
            fold.add(result)
    flush()
    BoardEntry.objects.bulk_create(entries, batch_size=2000)
    return len(entries)


_MODERATION = (events.ResultVoided.TYPE, events.ResultRestored.TYPE)


class Leaderboards(Projection):
    name = "board"

    def fragments(self, change: Change) -> Sequence[Fragment]:
        if not change.finishing:
            return ()
        params = finishing_params(change.after)
        return (
            Fragment("board_result", RESULT_SQL, params),
            Fragment("board_entries", ENTRIES_SQL, params, flag=_DIRTY),
        )

    def settle(self, change: Change, flagged: bool) -> None:
        if flagged:
            repair(change.after)
        elif change.event.type in _MODERATION:
            moderated(change.after)

    def clear(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "LOCK TABLE games_board_result, games_board_entry IN ACCESS EXCLUSIVE MODE"
            )
        BoardEntry.objects.all().delete()
        BoardResult.objects.all().delete()

    def replay(self, stream: streams.Stream, summary: GameSummary) -> None:
        if stream.finished_at is not None:
            BoardResult.objects.create(**result_fields(stream))

    def replayed(self) -> None:
        rebuild()
