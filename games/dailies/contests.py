"""Races and arenas: contests that own a window, a ruleset and a secret sequence of deals.

A contest is in one of three phases, a function of the injectable clock (``games.clock``)
and of its row, never of a timer: ``scheduled`` before ``starts_at``, ``running`` until
``ends_at`` (or until every racer has finished every deal, for a race: ``finished_at``),
then ``finished``. Whoever looks next (a request, a watcher's tick) sees the new phase; the
two acts a phase change calls for happen under the contest row's lock, once:

- a race's **start** seals its entrants (``started_at``): a join that locks the row after
  the seal, or after ``starts_at`` by the clock, is refused, so the racers are exactly
  those who joined before the start instant, even under concurrent joins;
- a race's **early finish** (``finished_at``) once every racer has finished every deal.

While a contest is not ``finished`` its deals are secret: ``games.reads.visibility`` asks
:func:`is_secret`. Each deal's seed comes from ``games.dailies.secrets``.

The results (``ContestResult``) are a projection of each game's events, one row per game
written with each event (``games.projections.contest_results``). The ranking
(:class:`Board`) is kept in memory by each process that has watchers and applied one game's
result at a time, from the result the command publishes; it carries a revision so that newer
standings are never replaced by older ones.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from secrets import choice
from typing import Any

from django.db import IntegrityError, connection, transaction

from games import clock, engine, routing
from games.dailies import secrets
from games.dailies.models import Contest, Entrant
from games.errors import ContestNotFound, RaceStarted

SCHEDULED = "scheduled"
RUNNING = "running"
FINISHED = "finished"
PHASES = (SCHEDULED, RUNNING, FINISHED)

#: A race's short code: 6 characters a person can read out (no 0/O, 1/I).
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6

MIN_DEALS, MAX_DEALS = 1, 5


def phase(contest: Contest, now: dt.datetime | None = None) -> str:
    """``scheduled``, ``running`` or ``finished``, by the clock."""
    now = clock.now() if now is None else now
    if now < contest.starts_at:
        return SCHEDULED
    if now >= contest.ends_at or contest.finished_at is not None:
        return FINISHED
    return RUNNING


def ended_at(contest: Contest) -> dt.datetime:
    """When the results became final (or will, at the latest)."""
    return contest.finished_at or contest.ends_at


# --- Secrecy: asked by games.reads.visibility for every game of a contest ------------------------

_windows: dict[uuid.UUID, tuple[dt.datetime, dt.datetime]] = {}
_windows_lock = threading.Lock()


def _window(contest_id: uuid.UUID) -> tuple[dt.datetime, dt.datetime]:
    """``(starts_at, ends_at)`` of a contest, cached: they never change once it runs."""
    found = _windows.get(contest_id)
    if found is None:
        row = Contest.objects.filter(id=contest_id).values_list("starts_at", "ends_at").first()
        if row is None:
            raise ContestNotFound()
        found = (row[0], row[1])
        if clock.now() >= found[0]:
            with _windows_lock:
                _windows[contest_id] = found
    return found


def is_secret(contest_id: uuid.UUID | str) -> bool:
    """Whether the games of a contest still hide their deals: until it is ``finished``."""
    key = contest_id if isinstance(contest_id, uuid.UUID) else uuid.UUID(contest_id)
    _, ends_at = _window(key)
    if clock.now() >= ends_at:
        return False
    return not Contest.objects.filter(id=key, finished_at__isnull=False).exists()


def accepts_commands(contest_id: uuid.UUID | str) -> bool:
    """Whether a game of the contest may still be played: until ``ends_at`` (an early
    finish means every game is over already)."""
    key = contest_id if isinstance(contest_id, uuid.UUID) else uuid.UUID(contest_id)
    return clock.now() < _window(key)[1]


# --- Finding contests ----------------------------------------------------------------------------


def contest_get(key: str | uuid.UUID, kind: str) -> Contest:
    """The race or arena (``kind``) whose id or short code is ``key`` (rotation and staff
    arenas have no code)."""
    query = Contest.objects.filter(kind=kind)
    try:
        found = query.filter(id=uuid.UUID(str(key))).first()
    except ValueError:
        found = query.filter(code=str(key).upper()).first()
    if found is None:
        raise ContestNotFound()
    return found


def seeds(contest: Contest, rounds: int) -> list[int]:
    """The seeds of the first ``rounds`` deals (secret: shown only once it is finished)."""
    return [secrets.contest_seed(contest.id, n) for n in range(1, rounds + 1)]


def rounds_dealt(contest: Contest) -> int:
    """How many deals a contest has: a race's count, or the most any arena player reached."""
    if contest.deals is not None:
        return contest.deals
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(MAX(round), 0) FROM games_game WHERE contest = %s", [contest.id]
        )
        (most,) = cursor.fetchone()
    return int(most)


# --- Races ---------------------------------------------------------------------------------------


def race_create(
    *,
    creator: Any,
    rules: str,
    deals: int,
    starts_at: dt.datetime,
    time_limit: dt.timedelta,
    public: bool,
    title: str = "",
) -> Contest:
    """A new race, its creator its first racer, with a fresh short code."""
    now = clock.now()

    def make(code: str) -> Contest:
        race = Contest.objects.create(
            id=uuid.uuid4(),
            kind=Contest.Kind.RACE,
            code=code,
            title=title,
            rules=rules,
            deals=deals,
            public=public,
            creator=creator,
            starts_at=starts_at,
            ends_at=starts_at + time_limit,
            created_at=now,
        )
        Entrant.objects.create(contest=race, player=creator, joined_at=now)
        return race

    return _with_code(make)


def _with_code(make: Any) -> Contest:
    """``make(code)`` with a fresh short code, drawn again while the code is taken."""
    for _attempt in range(8):
        code = "".join(choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        try:
            with transaction.atomic():
                made: Contest = make(code)
                return made
        except IntegrityError:  # the code was taken: draw another
            continue
    raise RuntimeError("could not draw a free contest code")


def race_join(race: Contest, player: Any) -> tuple[Entrant, bool]:
    """The player's entry in ``race`` and whether it was made now: only before the start
    (:class:`RaceStarted`), decided under the race row's lock, which the start takes too."""
    with transaction.atomic():
        locked = Contest.objects.select_for_update().get(id=race.id)
        existing = Entrant.objects.filter(contest=locked, player=player).first()
        if existing is not None:
            return existing, False
        now = clock.now()
        if locked.started_at is None and now < locked.starts_at:
            return Entrant.objects.create(contest=locked, player=player, joined_at=now), True
        _seal(locked, now)
    raise RaceStarted()


def race_start(race: Contest) -> Contest:
    """Seal the race's entrants once its start has come (idempotent); the race as it is."""
    if race.started_at is not None or clock.now() < race.starts_at:
        return race
    with transaction.atomic():
        locked = Contest.objects.select_for_update().get(id=race.id)
        _seal(locked, clock.now())
    return locked


_SEAL_DUE = """
UPDATE games_contest SET started_at = %(now)s
WHERE kind = 'race' AND started_at IS NULL AND starts_at <= %(now)s
RETURNING id"""


def seal_due() -> list[uuid.UUID]:
    """Seal every race whose start has come (the scheduled job): one statement, which takes
    each row's lock as a join does; the races sealed now."""
    with connection.cursor() as cursor:
        cursor.execute(_SEAL_DUE, {"now": clock.now()})
        return [row[0] for row in cursor.fetchall()]


def _seal(race: Contest, now: dt.datetime) -> None:
    if race.started_at is None and now >= race.starts_at:
        race.started_at = now
        race.save(update_fields=["started_at"])


def entered_unfinished(player_id: int) -> list[uuid.UUID]:
    """The races and arenas a player entered whose results are not final yet (a ban or an
    unban changes their standings)."""
    now = clock.now()
    rows = Entrant.objects.filter(
        player_id=player_id, contest__ends_at__gt=now, contest__finished_at__isnull=True
    )
    return list(rows.values_list("contest_id", flat=True))


def entrant(contest: Contest, player: Any) -> Entrant | None:
    return Entrant.objects.filter(contest=contest, player=player).first()


_ALL_DONE = """
UPDATE games_contest AS c SET finished_at = %(now)s
WHERE c.id = %(contest)s AND c.kind = 'race' AND c.finished_at IS NULL AND c.ends_at > %(now)s
  AND (SELECT COUNT(*) FROM games_contest_result r
       WHERE r.contest_id = c.id AND r.status <> 'playing')
    = c.deals * (SELECT COUNT(*) FROM games_contest_entrant e WHERE e.contest_id = c.id)
RETURNING c.id"""


def finish_if_done(contest_id: uuid.UUID) -> bool:
    """End a race early once every racer has finished every deal; whether it ended now."""
    with connection.cursor() as cursor:
        cursor.execute(_ALL_DONE, {"contest": contest_id, "now": clock.now()})
        return cursor.fetchone() is not None


# --- Arenas --------------------------------------------------------------------------------------


def arena_create(
    *,
    rules: str,
    starts_at: dt.datetime,
    ends_at: dt.datetime,
    title: str = "",
    creator: Any = None,
    rotation: str | None = None,
    public: bool = True,
    coded: bool = False,
) -> Contest:
    """A new arena (staff's, or the rotation's ``rotation`` slot: one arena per slot, or a
    player's, ``coded``: with a short code, to share when it is not ``public``)."""
    if rotation is not None:
        existing = Contest.objects.filter(rotation=rotation).first()
        if existing is not None:
            return existing

    def make(code: str | None) -> Contest:
        return Contest.objects.create(
            id=uuid.uuid4(),
            kind=Contest.Kind.ARENA,
            code=code,
            title=title,
            rules=rules,
            public=public,
            creator=creator,
            starts_at=starts_at,
            ends_at=ends_at,
            created_at=clock.now(),
            rotation=rotation,
        )

    if coded:
        return _with_code(make)
    try:
        with transaction.atomic():
            return make(None)
    except IntegrityError:  # another process made this slot's arena at the same moment
        return Contest.objects.get(rotation=rotation)


#: The periods a rotation knows, as (slot label, start of the period holding ``now``, length).
def _period(every: str, now: dt.datetime) -> tuple[str, dt.datetime, dt.timedelta]:
    day = dt.datetime.combine(now.astimezone(dt.UTC).date(), dt.time(0), tzinfo=dt.UTC)
    if every == "daily":
        return day.date().isoformat(), day, dt.timedelta(days=1)
    if every == "weekly":
        monday = day - dt.timedelta(days=day.weekday())
        year, week, _ = monday.isocalendar()
        return f"{year}-W{week:02d}", monday, dt.timedelta(days=7)
    raise ValueError(f"unknown arena period {every!r} (daily, weekly)")


def parse_rotation(text: str) -> list[tuple[str, str]]:
    """``ARENA_ROTATION`` (``"classic:weekly,wasp:daily"``) as ``[(rules, period)]``."""
    slots = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        rules, _, every = item.partition(":")
        if rules not in engine.RULESETS:
            raise ValueError(f"ARENA_ROTATION: unknown ruleset {rules!r}")
        _period(every or "weekly", clock.now())
        slots.append((rules, every or "weekly"))
    return slots


def rotation_arenas(rotation: str, now: dt.datetime | None = None) -> list[Contest]:
    """The arenas of every slot of ``rotation`` for the current period and the next one
    (so that players see it coming), made if missing."""
    now = clock.now() if now is None else now
    made = []
    for rules, every in parse_rotation(rotation):
        label, start, length = _period(every, now)
        for period_start in (start, start + length):
            label, _, _ = _period(every, period_start)
            made.append(
                arena_create(
                    rules=rules,
                    starts_at=period_start,
                    ends_at=period_start + length,
                    title=f"{engine.RULESETS[rules].title} {every} arena {label}",
                    rotation=f"{rules}:{every}:{label}",
                )
            )
    return made


# --- Results: the ranking ------------------------------------------------------------------------


def _ms(value: dt.datetime | None) -> int | None:
    return None if value is None else int(value.timestamp() * 1000)


class Board:
    """The ranking of one race or arena: the one definition of its order
    (docs/api.md#race-standings, docs/api.md#arena-standings), kept in memory and applied
    one game at a time.

    Who counts: results not voided, of players not banned. A race ranks every racer who
    joined (those who never opened a deal with zeros), by most deals won, then most deals
    won without a hint (``unaided``: as the daily standings rank an unaided win before a
    win with hints, whatever the times), then the earliest last win, then most sequences,
    revealed cards and score, then who joined first; ``hints`` is the racer's total over
    their deals. An arena ranks every player with a deal that counts, by most points (a
    win with hints scores less, ``games.dailies.arenas``), then most wins, then who entered
    first.

    :func:`load_board` reads it (two queries, no ranking in SQL); :meth:`apply` takes one
    game's new result (each result carries its game's version, so an older or repeated
    one changes nothing), recomputes that player's totals and their JSON only, and the
    next :meth:`text` re-sorts the totals and joins the cached JSON. ``revision`` is the
    sum of the results' versions plus the number of entrants: it only grows.
    """

    def __init__(self, contest_id: uuid.UUID, kind: str, starts_at: dt.datetime) -> None:
        self.contest_id = contest_id
        self.race = kind == Contest.Kind.RACE
        self.starts_ms = _ms(starts_at) or 0
        #: player id -> (username, joined ms, entry id, banned)
        self.entrants: dict[int, tuple[str, int, int, bool]] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.by_player: dict[int, dict[str, dict[str, Any]]] = {}
        self.revision = 0
        self._keys: dict[int, tuple[Any, ...]] = {}
        self._json: dict[int, str] = {}
        self._stale: set[int] = set()

    def enter(self, player: int, name: str, joined_ms: int, entry: int, banned: bool) -> None:
        self.entrants[player] = (name, joined_ms, entry, banned)
        self.by_player.setdefault(player, {})
        self.revision += 1
        self._stale.add(player)

    def apply(self, row: dict[str, Any]) -> bool:
        """Take one game's result; ``False`` when its player is not known here, or when it
        carries no ``hints`` (a server not upgraded yet published it, during a rolling
        upgrade): the board must be read again."""
        player = row["player"]
        if player not in self.entrants or "hints" not in row:
            return False
        old = self.results.get(row["game"])
        if old is not None and old["version"] >= row["version"]:
            return True
        self.revision += row["version"] - (old["version"] if old is not None else 0)
        self.results[row["game"]] = row
        self.by_player[player][row["game"]] = row
        self._stale.add(player)
        return True

    def _refresh(self, player: int) -> None:
        name, joined_ms, entry, banned = self.entrants[player]
        rows = [row for row in self.by_player[player].values() if not row["voided"]]
        won = [row for row in rows if row["status"] == "won"]
        sequences = sum(row["sequences"] for row in rows)
        if banned or (not self.race and not rows):
            self._keys.pop(player, None)
            self._json.pop(player, None)
            return
        hints = sum(row["hints"] for row in rows)
        if self.race:
            last_win = max((row["finished_ms"] or 0 for row in won), default=None)
            unaided = sum(row["hints"] == 0 for row in won)
            revealed = sum(row["revealed"] for row in rows)
            score = sum(row["score"] for row in rows)
            entry_json: dict[str, Any] = {
                "player": name,
                "won": len(won),
                "unaided": unaided,
                "finished": sum(row["status"] != "playing" for row in rows),
                "sequences": sequences,
                "revealed": revealed,
                "score": score,
                "moves": sum(row["moves"] for row in rows),
                "elapsed_ms": None if last_win is None else last_win - self.starts_ms,
                "hints": hints,
            }
            key: tuple[Any, ...] = (
                -len(won),
                -unaided,
                last_win if last_win is not None else float("inf"),
                -sequences,
                -revealed,
                -score,
                joined_ms,
                entry,
            )
        else:
            points = sum(row["points"] for row in rows)
            entry_json = {
                "player": name,
                "points": points,
                "played": len(rows),
                "won": len(won),
                "sequences": sequences,
                "hints": hints,
            }
            key = (-points, -len(won), joined_ms, entry)
        self._keys[player] = key
        self._json[player] = json.dumps(entry_json)[1:-1]

    def text(self, *, games: bool = True) -> str:
        """The ranked results as JSON text (``rank`` first in each entry); each entry's
        ``games`` lists its player's games in the order they were dealt, or is null without
        ``games`` (who may see which is ``games.reads.visibility.standing_games_shown``)."""
        for player in self._stale:
            self._refresh(player)
        self._stale.clear()
        order = sorted(self._keys, key=self._keys.__getitem__)
        return (
            "["
            + ", ".join(
                f'{{"rank": {rank}, {self._json[player]}, "games": {self._games(player, games)}}}'
                for rank, player in enumerate(order, 1)
            )
            + "]"
        )

    def _games(self, player: int, shown: bool) -> str:
        if not shown:
            return "null"
        rows = sorted(self.by_player[player].values(), key=lambda row: row["round"])
        return json.dumps([row["game"] for row in rows])


_ENTRANTS = """
SELECT e.player_id, u.username, e.joined_at, e.id, COALESCE(p.banned, FALSE)
FROM games_contest_entrant e
JOIN auth_user u ON u.id = e.player_id
LEFT JOIN games_player p ON p.user_id = e.player_id
WHERE e.contest_id = %s"""
_RESULTS = """
SELECT game_id, player_id, round, status, moves, score, sequences, revealed, finished_at,
       points, version, hints, voided
FROM games_contest_result WHERE contest_id = %s"""


def load_board(contest: Contest) -> Board:
    """A contest's :class:`Board`, read from its entrants and results (two queries)."""
    board = Board(contest.id, contest.kind, contest.starts_at)
    with routing.read_connection().cursor() as cursor:
        cursor.execute(_ENTRANTS, [contest.id])
        for player, name, joined_at, entry, banned in cursor.fetchall():
            board.enter(player, name, _ms(joined_at) or 0, entry, banned)
        cursor.execute(_RESULTS, [contest.id])
        for game, *values in cursor.fetchall():
            (player, round_, status, moves, score, sequences, revealed, finished_at) = values[:8]
            points, version, hints, voided = values[8:]
            board.apply(
                {
                    "game": str(game),
                    "player": player,
                    "round": round_,
                    "status": status,
                    "moves": moves,
                    "score": score,
                    "sequences": sequences,
                    "revealed": revealed,
                    "finished_ms": _ms(finished_at),
                    "points": points,
                    "version": version,
                    "hints": hints,
                    "voided": voided,
                }
            )
    return board


def ranked(contest: Contest, *, games: bool = True) -> tuple[int, str]:
    """``(revision, JSON text of the ranked results)`` of a race or arena (``games``: as
    :meth:`Board.text`)."""
    board = load_board(contest)
    return board.revision, board.text(games=games)
