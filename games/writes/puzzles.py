"""Puzzle writes (docs/puzzles.md): dealing a player a puzzle (rated, the day's, Streak's),
judging their moves, giving up, choosing the puzzle of the day, and mining.

A move is judged against the puzzle's tree, computed when it was mined: a lookup, no
search (``games.engine.puzzles.judge``). Only a position missing from the tree (never,
for a tree the miner made) is classified on the request, as solver work bounded per
caller and per process (``games.reads.solver_work``), within ``PUZZLE_JUDGE_BUDGET`` nodes
a search. The
attempt's row is locked while its move is written, so two moves sent at once are judged
one after the other; ``ply`` (how many moves the client knows were played) makes a
retried move harmless. An attempt's end appends its result and, for a rated one, updates
both ratings in the same transaction (``games.puzzles.ratings.record``).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from games import clock, engine
from games.engine import puzzles as judging
from games.errors import (
    NoPuzzle,
    PuzzleDayNotReady,
    PuzzleMovedOn,
    PuzzleNoProgress,
    PuzzleNotFound,
    PuzzleOver,
    RuleRefused,
)
from games.puzzles import choose, mining, positions, ratings
from games.puzzles.models import (
    Puzzle,
    PuzzleAttempt,
    PuzzleDay,
    PuzzlePlayer,
    PuzzleStreak,
)
from games.ratings import parameters
from games.reads import solver_work
from games.writes.accounts import check_not_guest
from games.writes.services import check_not_banned

Mode = PuzzleAttempt.Mode
Status = PuzzleAttempt.Status
#: The modes whose results move ratings.
RATED_MODES = (Mode.RATED, Mode.DAILY)


def _new_attempt(
    player: User, puzzle: str, mode: str, streak: PuzzleStreak | None = None
) -> PuzzleAttempt:
    return PuzzleAttempt.objects.create(
        id=uuid.uuid4(),
        puzzle_id=puzzle,
        player=player,
        mode=mode,
        streak=streak,
        status=Status.PLAYING,
        moves=[],
        started_at=clock.now(),
    )


#: A player's draw that lost a race with their own other request tries again, this often.
_ATTEMPTS = 5


def puzzle_next(*, player: User) -> PuzzleAttempt:
    """The player's rated puzzle: the one they are playing, else a new one they have never
    seen, rated nearest their puzzle rating (:class:`NoPuzzle` when none is left). A guest
    is never rated (:class:`AccountRequired`): Streak is theirs."""
    check_not_banned(player)
    check_not_guest(player)
    for _ in range(_ATTEMPTS):
        running = _playing(player, Mode.RATED)
        if running is not None:
            return running
        mine = PuzzlePlayer.objects.filter(player_id=player.pk).values_list("rating", flat=True)
        rating = next(iter(mine), parameters.START_RATING)
        chosen = choose.nearest(player.pk, rating)
        if chosen is None:
            raise NoPuzzle()
        try:
            with transaction.atomic():
                return _new_attempt(player, chosen, Mode.RATED)
        except IntegrityError:  # the same player's other request took it, or began one
            continue
    raise NoPuzzle()


def _playing(player: User, mode: str) -> PuzzleAttempt | None:
    return (
        PuzzleAttempt.objects.select_related("puzzle")
        .filter(player_id=player.pk, mode=mode, status=Status.PLAYING)
        .first()
    )


def puzzle_daily(*, player: User, date: dt.date) -> PuzzleAttempt:
    """The player's attempt at the puzzle of ``date`` (today: the API passes it), made now
    if they have none; one they made before in any mode is theirs already (it is never
    dealt twice). :class:`PuzzleDayNotReady` before the day's puzzle is chosen; a guest,
    who is never rated, :class:`AccountRequired`."""
    check_not_guest(player)
    day = PuzzleDay.objects.filter(date=date).first()
    if day is None:
        raise PuzzleDayNotReady()
    for _ in range(_ATTEMPTS):
        existing = PuzzleAttempt.objects.filter(
            player_id=player.pk, puzzle_id=day.puzzle_id
        ).first()
        if existing is not None:
            return existing
        check_not_banned(player)
        try:
            with transaction.atomic():
                return _new_attempt(player, day.puzzle_id, Mode.DAILY)
        except IntegrityError:
            continue
    raise PuzzleDayNotReady()


@dataclass(frozen=True, slots=True)
class StreakPlay:
    """A streak and its puzzle now: the attempt being played, the one just solved (its next
    is dealt at the next call), or ``None`` once the streak has ended."""

    streak: PuzzleStreak
    attempt: PuzzleAttempt | None


def streak_play(*, player: User) -> StreakPlay:
    """Go on with the player's streak: its attempt being played; else, the last one solved,
    the next puzzle, rated at least as high (the streak ends, complete, when none is
    left); else a new streak from the lowest rated puzzle they have not seen."""
    check_not_banned(player)
    for _ in range(_ATTEMPTS):
        streak = PuzzleStreak.objects.filter(
            player_id=player.pk, status=PuzzleStreak.Status.RUNNING
        ).first()
        try:
            with transaction.atomic():
                if streak is None:
                    return _streak_start(player)
                return _streak_next(player, streak)
        except IntegrityError:
            continue
    raise NoPuzzle()


def _streak_start(player: User) -> StreakPlay:
    chosen = choose.rising(player.pk, None)
    if chosen is None:
        raise NoPuzzle()
    streak = PuzzleStreak.objects.create(
        id=uuid.uuid4(), player=player, status=PuzzleStreak.Status.RUNNING, started_at=clock.now()
    )
    return StreakPlay(streak, _new_attempt(player, chosen[0], Mode.STREAK, streak))


def _streak_next(player: User, streak: PuzzleStreak) -> StreakPlay:
    last = streak.attempts.order_by("-started_at").first()
    if last is not None and last.status == Status.PLAYING:
        return StreakPlay(streak, last)
    floor = None if last is None else choose.rating_of(last.puzzle_id)
    chosen = choose.rising(player.pk, floor)
    if chosen is None:
        _end_streak(streak)
        return StreakPlay(streak, None)
    return StreakPlay(streak, _new_attempt(player, chosen[0], Mode.STREAK, streak))


def _end_streak(streak: PuzzleStreak) -> None:
    streak.status = PuzzleStreak.Status.ENDED
    streak.ended_at = clock.now()
    streak.save(update_fields=["status", "ended_at"])


@dataclass(frozen=True, slots=True)
class Moved:
    """A judged move: the attempt after it, the verdict (``right`` or ``wrong``), the
    move and its effects as an event of the board (``type``, ``data``, ``effects``), the
    rating change when the attempt ended rated, and whether this answers a retry."""

    attempt: PuzzleAttempt
    verdict: str
    event: dict[str, Any]
    change: ratings.Change | None
    repeated: bool = False


def puzzle_move(
    *,
    attempt_id: uuid.UUID,
    player: User,
    command: dict[str, Any],
    ply: int | None = None,
    caller: str | None = None,
) -> Moved:
    """Judge one move (an API ``move`` or ``deal`` command) of the player's attempt.

    ``ply``, when given, is how many moves the client knows were played: a retry of the
    move just played answers as the first time did (``repeated``), any other stale one is
    :class:`PuzzleMovedOn`, as is a ``card`` that is not the one the move takes. A move
    the rules refuse is :class:`RuleRefused` and one that only renumbers columns
    :class:`PuzzleNoProgress`: the attempt goes on. A winning move is added; a losing one
    ends the attempt ``failed`` with its reason; reaching the end ends it ``solved``;
    either end records the result. ``caller`` is whose share of the solver a search on the
    request would count in (``api.views.callers.requester``)."""
    action = engine.action_from_command(command)
    with transaction.atomic():
        attempt = _locked(attempt_id, player)
        played = len(attempt.moves)
        if ply is not None and ply != played:
            if ply == played - 1 and attempt.moves[ply] == _encoded(action):
                return Moved(attempt, "right", _event(attempt, ply), None, repeated=True)
            raise PuzzleMovedOn(played)
        if attempt.status != Status.PLAYING:
            if ply is not None and attempt.wrong == _encoded(action) and ply == played:
                return Moved(attempt, "wrong", _event(attempt, ply), None, repeated=True)
            raise PuzzleOver()
        puzzle = attempt.puzzle
        rules = engine.RULESETS[puzzle.rules]
        state = current_state(puzzle, attempt.moves)
        if not _card_matches(state, action, command.get("card")):
            raise PuzzleMovedOn(played)
        try:
            judged = _judge(rules, puzzle, state, action, played, caller or f"account:{player.pk}")
        except engine.RuleViolation as refusal:
            raise RuleRefused(refusal.code) from None
        if judged.verdict == "no_progress":
            raise PuzzleNoProgress()
        move = judging.encode(action)
        event = {
            "type": "dealt" if isinstance(action, engine.Deal) else "moved",
            "data": _data(command),
            "effects": judged.effects.to_json(),
        }
        now = clock.now()
        change = None
        if judged.verdict == "right":
            attempt.moves = [*attempt.moves, move]
            if judged.end:
                attempt.status = Status.SOLVED
                attempt.ended_at = now
        else:
            attempt.status = Status.FAILED
            attempt.wrong = move
            attempt.reason = judged.reason
            attempt.ended_at = now
        attempt.save(update_fields=["moves", "status", "wrong", "reason", "ended_at"])
        if attempt.status != Status.PLAYING:
            change = _finish(attempt, solved=attempt.status == Status.SOLVED)
        return Moved(attempt, judged.verdict, event, change)


def puzzle_give_up(*, attempt_id: uuid.UUID, player: User) -> Moved:
    """End the attempt failed, without a move (lichess counts a puzzle whose solution was
    looked at as failed); one already over is answered as it is."""
    with transaction.atomic():
        attempt = _locked(attempt_id, player)
        if attempt.status != Status.PLAYING:
            return Moved(attempt, "gave_up", {}, None, repeated=True)
        attempt.status = Status.FAILED
        attempt.reason = {"code": "gave_up"}
        attempt.ended_at = clock.now()
        attempt.save(update_fields=["status", "reason", "ended_at"])
        return Moved(attempt, "gave_up", {}, _finish(attempt, solved=False))


def _card_matches(state: engine.State, action: engine.Action, card: str | None) -> bool:
    """Whether the ``card`` a move names (if any) is the face-up card it takes: else the
    client's board is not the attempt's. A place with no face-up card is left to the rules'
    own refusal, so the check never tells what a face-down card is."""
    if card is None:
        return True
    if isinstance(action, engine.Move):
        actual = state.card_at(action.source, action.index)
    elif isinstance(action, engine.CellMove) and 1 <= action.cell <= len(state.cells):
        actual = state.cells[action.cell - 1]
    else:
        return True
    return actual is None or actual == engine.parse_card(card)


def _locked(attempt_id: uuid.UUID, player: User) -> PuzzleAttempt:
    attempt = (
        PuzzleAttempt.objects.select_for_update(of=("self",))
        .select_related("puzzle")
        .filter(id=attempt_id, player_id=player.pk)
        .first()
    )
    if attempt is None:
        raise PuzzleNotFound()
    return attempt


def _encoded(action: engine.Action) -> str | None:
    try:
        return judging.encode(action)
    except ValueError:
        return None


def _data(command: dict[str, Any]) -> dict[str, Any]:
    """A move's data as an event's: ``from``, ``index`` and ``to``, or ``cell`` and ``to``."""
    if command["type"] != "move":
        return {}
    if command.get("cell") is not None:
        return {"cell": command["cell"], "to": command["to"]}
    return {"from": command["from"], "index": command["index"], "to": command["to"]}


def _event(attempt: PuzzleAttempt, ply: int) -> dict[str, Any]:
    """The event of move ``ply`` of ``attempt`` again (a retry's answer)."""
    moves = [*attempt.moves, *([attempt.wrong] if attempt.wrong else [])]
    state = current_state(attempt.puzzle, moves[:ply])
    action = judging.decode(moves[ply])
    effects = engine.apply(state, action)[1]
    command = engine.action_to_command(action)
    return {
        "type": "dealt" if isinstance(action, engine.Deal) else "moved",
        "data": _data(command),
        "effects": effects.to_json(),
    }


def current_state(puzzle: Puzzle, moves: list[str]) -> engine.State:
    """The position of ``puzzle`` after ``moves``."""
    return positions.after(engine.RULESETS[puzzle.rules], puzzle.position, moves)


def _judge(
    rules: engine.Ruleset,
    puzzle: Puzzle,
    state: engine.State,
    action: engine.Action,
    played: int,
    caller: str,
) -> judging.Judged:
    """The judge's verdict from the tree; a position missing from it is classified here,
    bounded (see the module's docstring); one left undecided ends the attempt solved."""
    try:
        return judging.judge(state, action, tree=puzzle.tree, length=puzzle.length, played=played)
    except judging.Unjudged:
        pass
    node, _ = solver_work.run(
        judging.classify, rules, state, settings.PUZZLE_JUDGE_BUDGET, caller=caller
    )
    if node is None:
        after, effects = engine.apply(state, action)
        return judging.Judged("right", after, effects, end=True)
    return judging.judge(state, action, tree={}, length=puzzle.length, played=played, node=node)


def _finish(attempt: PuzzleAttempt, *, solved: bool) -> ratings.Change | None:
    """Record the attempt's result (rated in the rated modes), and end its streak on a
    failure or count the puzzle solved in it."""
    change = ratings.record(
        attempt=attempt.id,
        puzzle=attempt.puzzle_id,
        player=attempt.player_id,
        rated=attempt.mode in RATED_MODES,
        solved=solved,
        at=attempt.ended_at or clock.now(),
    )
    if attempt.streak_id is not None:
        streak = PuzzleStreak.objects.select_for_update().get(id=attempt.streak_id)
        if solved:
            streak.solved += 1
            streak.save(update_fields=["solved"])
        else:
            _end_streak(streak)
    return change


def puzzle_days_prepare(today: dt.date | None = None) -> list[dt.date]:
    """Choose today's puzzle if none is chosen yet (the scheduled job, every minute): the
    days chosen now. Choosing is one query, so no day is chosen ahead: a day's puzzle is
    dealt in no other mode, and choosing tomorrow's early would keep it from players a day
    for nothing. A day whose puzzle another worker chose at the same moment keeps theirs."""
    date = today or clock.now().date()
    if PuzzleDay.objects.filter(date=date).exists():
        return []
    chosen = choose.for_day()
    if chosen is None:
        return []
    try:
        with transaction.atomic():
            PuzzleDay.objects.create(date=date, puzzle_id=chosen, created_at=clock.now())
    except IntegrityError:
        return []
    return [date]


def puzzles_mine(*, seconds: float | None = None) -> mining.Mined:
    """One run of the miner (``games.puzzles.mining``), within ``PUZZLE_MINE_SECONDS``."""
    return mining.mine(
        seconds=settings.PUZZLE_MINE_SECONDS if seconds is None else seconds,
        per_source=settings.PUZZLES_PER_GAME,
        position_seconds=settings.PUZZLE_POSITION_SECONDS,
    )
