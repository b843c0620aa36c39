"""The ``arena_points`` boards: a view over the arenas' results (``ContestResult.points``),
registered as one more metric. Totals per player and ruleset over every arena, in the
periods of each game's points, voided games and banned players left out, races and other
rulesets apart; rebuilt projections give the same boards."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.db import connection

from games import clock
from games.boards import metrics, ranking
from games.dailies import arenas, secrets
from games.dailies import contests as domain
from games.dailies.models import ContestResult
from games.errors import UnknownMetric
from games.reads import selectors
from games.writes import contests, moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

#: How many of WIN's actions remove 1, 2 and 3 runs (the 50th wins).
RUNS = {1: 38, 2: 46, 3: 49}
#: Saturday 28 November 2026 (ISO week 48), 10:00 UTC.
SAT = dt.datetime(2026, 11, 28, 10, tzinfo=dt.UTC)
#: Monday 30 November 2026 (ISO week 49).
MON = dt.datetime(2026, 11, 30, 10, tzinfo=dt.UTC)
#: Tuesday 1 December 2026 (week 49, another month).
TUE = dt.datetime(2026, 12, 1, 10, tzinfo=dt.UTC)
STEP = dt.timedelta(seconds=2)
ARENA_POINTS = metrics.METRICS["arena_points"]


@pytest.fixture(autouse=True)
def _known_deals(monkeypatch):
    """Every contest deals WIN's deal, so that a test can win it or remove runs at will
    (the derivation of secret seeds is tested in test_dailies and the race tests)."""
    monkeypatch.setattr(secrets, "contest_seed", lambda contest, round_: WIN["seed"])


@pytest.fixture
def mod(django_user_model):
    return django_user_model.objects.create_user("mod", password="pw-mod-123", is_staff=True)


@pytest.fixture
def people(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password=f"pw-{name}-123")
        for name in ("ann", "bea", "cat", "dan", "eve", "fay")
    }


def arena(rules: str = "classic"):
    """An arena open from Friday 27 November to Thursday 3 December: across two weeks and
    two months."""
    start = dt.datetime(2026, 11, 27, tzinfo=dt.UTC)
    return domain.arena_create(rules=rules, starts_at=start, ends_at=start + dt.timedelta(days=6))


def deal(contest, player, at: dt.datetime):
    with clock.frozen(at):
        written, made = contests.arena_play(arena=contest, player=player)
    assert made
    return written.game_id


def play(game, player, commands, start: dt.datetime, step: dt.timedelta = STEP) -> None:
    for number, command in enumerate(commands):
        with clock.frozen(start + number * step):
            services.game_command(game_id=game, actor=player, command=command)


def won(contest, player, at: dt.datetime, step: dt.timedelta = STEP):
    """A won deal, its actions ``step`` apart from its dealing at ``at``: 49 steps to the win
    (2 s: 100 + 50 - 6 = 144 points; 1 s: 147)."""
    game = deal(contest, player, at)
    play(game, player, WIN["actions"], at, step)
    return game


def runs(contest, player, at: dt.datetime, removed: int, *, resign: bool):
    """A deal with ``removed`` runs removed (10 points each), resigned or still playing."""
    game = deal(contest, player, at)
    commands = WIN["actions"][: RUNS[removed]] + ([{"type": "resign"}] if resign else [])
    play(game, player, commands, at)
    return game


def board(scope: str, key: str) -> list[tuple[int, str, int]]:
    rows, more = ranking.page(ARENA_POINTS, scope, key, after=None, limit=50)
    assert not more
    return [(row.rank, row.player, row.value) for row in rows]


def view() -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT * FROM {metrics.ARENA_POINTS_VIEW} ORDER BY scope, period, player_id"
        )
        return cursor.fetchall()


@pytest.fixture
def season(people):
    """ann 144 (Sat) + 20 (Tue) = 164; bea 147 (Mon) + 10 still playing (Mon) = 157;
    dan 147 + 10 (Tue) = 157, reached after bea; cat 30 still playing (Sat) in classic,
    and a win in a wasp arena; eve only dealt (0 points); fay won a classic race."""
    classic, wasp = arena(), arena("wasp")
    p = people
    ann_win = won(classic, p["ann"], SAT)
    runs(classic, p["ann"], TUE, 2, resign=True)
    bea_win = won(classic, p["bea"], MON, step=dt.timedelta(seconds=1))
    runs(classic, p["bea"], MON + dt.timedelta(hours=1), 1, resign=False)
    runs(classic, p["cat"], SAT + dt.timedelta(hours=1), 3, resign=False)
    won(wasp, p["cat"], MON)
    won(classic, p["dan"], TUE + dt.timedelta(hours=1), step=dt.timedelta(seconds=1))
    runs(classic, p["dan"], TUE + dt.timedelta(hours=2), 1, resign=True)
    deal(classic, p["eve"], MON)
    with clock.frozen(MON):
        race = contests.race_create(
            creator=p["fay"],
            rules="classic",
            deals=1,
            countdown=dt.timedelta(0),
            time_limit=dt.timedelta(hours=1),
        )
        (fay_game,), _ = contests.race_games(race=race, player=p["fay"])
    play(fay_game.game_id, p["fay"], WIN["actions"], MON)
    return {"ann_win": ann_win, "bea_win": bea_win}


def test_arena_points_sum_per_ruleset_and_period(season) -> None:
    assert board("classic", "all") == [
        (1, "ann", 164),
        (2, "bea", 157),  # equal totals: bea reached hers on Monday, dan on Tuesday
        (2, "dan", 157),
        (4, "cat", 30),
    ]
    assert board("classic", "2026-11") == [(1, "bea", 157), (2, "ann", 144), (3, "cat", 30)]
    assert board("classic", "2026-12") == [(1, "dan", 157), (2, "ann", 20)]
    assert board("classic", "2026-W48") == [(1, "ann", 144), (2, "cat", 30)]
    assert board("classic", "2026-W49") == [(1, "bea", 157), (1, "dan", 157), (3, "ann", 20)]
    assert board("wasp", "all") == [(1, "cat", 144)]
    assert board("wasp", "2026-W49") == [(1, "cat", 144)]
    # A race is no arena: fay's win is on the wins board, not here.
    assert ranking.own(metrics.WINS, "classic", "all", season_player("fay")) is not None
    assert ranking.own(ARENA_POINTS, "classic", "all", season_player("fay")) is None
    # Dealt, no points yet: not on the board.
    assert ranking.own(ARENA_POINTS, "classic", "all", season_player("eve")) is None


def season_player(name: str) -> int:
    from django.contrib.auth.models import User

    return User.objects.get(username=name).pk


def test_each_total_is_the_sum_of_the_arenas_points(season) -> None:
    """The board's figure is ContestResult.points, which is arenas.points: one definition."""
    for scope, period, player, points, _at in view():
        if period != "all":
            continue
        mine = ContestResult.objects.filter(
            player_id=player, contest__kind="arena", contest__rules=scope, voided=False
        )
        assert points == sum(row.points for row in mine)
        assert all(
            row.points
            == arenas.points(
                status=row.status,
                sequences=row.sequences,
                elapsed_ms=row.elapsed_ms,
                voided=row.voided,
            )
            for row in mine
        )


def test_reached_is_when_the_total_was_reached(season) -> None:
    bea = ranking.own(ARENA_POINTS, "classic", "all", season_player("bea"))
    # Her last scoring game is still playing: its last event, the 38th action.
    assert bea is not None and bea.reached == MON + dt.timedelta(hours=1) + 37 * STEP
    ann = ranking.own(ARENA_POINTS, "classic", "2026-W48", season_player("ann"))
    assert ann is not None and ann.reached == SAT + 49 * STEP  # her win
    dan = ranking.own(ARENA_POINTS, "classic", "all", season_player("dan"))
    assert dan is not None and dan.rank == 2
    assert dan.reached == TUE + dt.timedelta(hours=2) + RUNS[1] * STEP  # his resignation


def test_voided_results_and_banned_players_leave_the_boards(season, people, mod) -> None:
    moderation.result_void(game_id=season["bea_win"], moderator=mod, reason="shared deal")
    assert board("classic", "all") == [
        (1, "ann", 164),
        (2, "dan", 157),
        (3, "cat", 30),
        (4, "bea", 10),
    ]
    assert board("classic", "2026-W49") == [(1, "dan", 157), (2, "ann", 20), (3, "bea", 10)]
    moderation.player_ban(player=people["ann"], moderator=mod, reason="bot")
    assert [row[1] for row in board("classic", "all")] == ["dan", "cat", "bea"]
    assert ranking.own(ARENA_POINTS, "classic", "all", people["ann"].pk) is None
    moderation.player_unban(player=people["ann"], moderator=mod, reason="appeal")
    moderation.result_restore(game_id=season["bea_win"], moderator=mod, reason="cleared")
    assert board("classic", "all")[:3] == [(1, "ann", 164), (2, "bea", 157), (2, "dan", 157)]


def test_rebuilt_projections_give_the_same_boards(season, mod) -> None:
    moderation.result_void(game_id=season["ann_win"], moderator=mod, reason="engine use")
    live = view()
    boards = {key: board("classic", key) for key in ("all", "2026-11", "2026-W49")}
    assert ("classic", "all", season_player("ann"), 20, TUE + RUNS[2] * STEP) in live
    ContestResult.objects.update(points=0, voided=False)  # corrupt the results
    assert view() != live
    call_command("rebuild_projections", verbosity=0)
    assert view() == live
    assert {key: board("classic", key) for key in boards} == boards


def test_only_ruleset_scopes_have_arena_points() -> None:
    assert "arena_points" in metrics.METRICS
    assert [scope for scope in metrics.scopes() if not ARENA_POINTS.applies(scope)] == ["daily"]
    with clock.frozen(MON):
        with pytest.raises(UnknownMetric):
            selectors.board_get(scope="daily", metric="arena_points", period="all", at=None)
        found = selectors.board_get(scope="classic", metric="arena_points", period="week", at=None)
    assert found.metric is ARENA_POINTS and found.key == "2026-W49"


def test_period_keys_of_the_view_are_the_boards_keys(people) -> None:
    """The view makes its keys in SQL: they are those of metrics.periods_of, at the turn of
    an ISO year (Friday 1 January 2027 is in 2026-W53) and in any session time zone."""
    start = dt.datetime(2026, 12, 31, tzinfo=dt.UTC)
    late = domain.arena_create(rules="classic", starts_at=start, ends_at=start + dt.timedelta(3))
    at = dt.datetime(2027, 1, 1, 0, 30, tzinfo=dt.UTC)
    runs(late, people["ann"], at, 1, resign=True)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL TIME ZONE 'America/New_York'")
        cursor.execute(f"SELECT period FROM {metrics.ARENA_POINTS_VIEW} ORDER BY period")
        keys = [row[0] for row in cursor.fetchall()]
    assert keys == sorted(metrics.periods_of(at + RUNS[1] * STEP)) == ["2026-W53", "2027-01", "all"]
