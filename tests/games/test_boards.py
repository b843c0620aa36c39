"""Leaderboards are a projection: each finished game updates its player's entries in the
command's own statement, moderation recomputes the few it touches, and
``rebuild_projections`` recomputes them all from events to the same rows."""

import datetime as dt
import uuid

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import clock
from games.boards import metrics, ranking
from games.boards.models import BoardEntry, BoardResult
from games.dailies.models import DailyChallenge
from games.errors import UnknownMetric
from games.reads import selectors
from games.reads.visibility import Viewer
from games.store import streams
from games.store.models import Player
from games.writes import moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

#: Saturday 28 November 2026 (ISO week 48), 10:00 UTC.
SAT = dt.datetime(2026, 11, 28, 10, tzinfo=dt.UTC)
#: Monday 30 November 2026 (ISO week 49).
MON = dt.datetime(2026, 11, 30, 10, tzinfo=dt.UTC)
#: Tuesday 1 December 2026 (week 49, another month).
TUE = dt.datetime(2026, 12, 1, 10, tzinfo=dt.UTC)
STEP = dt.timedelta(seconds=2)


@pytest.fixture
def mod(django_user_model):
    return django_user_model.objects.create_user("mod", password="pw-mod-123", is_staff=True)


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user("carol", password="pw-carol-123")


def play(game_id, player, commands, start: dt.datetime, step: dt.timedelta = STEP) -> None:
    """Play ``commands`` one ``step`` apart from ``start``."""
    for number, command in enumerate(commands):
        with clock.frozen(start + number * step):
            services.game_command(game_id=game_id, actor=player, command=command)


def new(player, at: dt.datetime, **options):
    with clock.frozen(at):
        return services.game_create(owner=player, **options).game_id


def win(player, at: dt.datetime, step: dt.timedelta = STEP):
    """A classic game won by ``player``, its first action at ``at``: its time is 49 steps."""
    game = new(player, at - dt.timedelta(minutes=1), rules="classic", seed=WIN["seed"])
    play(game, player, WIN["actions"], at, step)
    return game


def resign(player, at: dt.datetime, rules: str = "classic"):
    game = new(player, at - dt.timedelta(minutes=1), rules=rules, seed=5)
    play(game, player, [{"type": "deal"}, {"type": "resign"}], at)
    return game


def daily(player, day: dt.date, won: bool = True):
    if not DailyChallenge.objects.filter(date=day).exists():
        noon = dt.datetime.combine(day, dt.time(0), tzinfo=dt.UTC)
        DailyChallenge.objects.create(date=day, rules="classic", seed=WIN["seed"], created_at=noon)
    start = dt.datetime.combine(day, dt.time(9), tzinfo=dt.UTC)
    with clock.frozen(start):
        joined, _ = services.challenge_join(date=day, player=player)
    actions = WIN["actions"] if won else [*WIN["actions"][:3], {"type": "resign"}]
    play(joined.game_id, player, actions, start + dt.timedelta(minutes=1))
    return joined.game_id


def entry(player, scope: str, period: str) -> dict[str, object] | None:
    return (
        BoardEntry.objects.filter(player=player, scope=scope, period=period)
        .values("wins", "best_ms", "streak", "run")
        .first()
    )


def entries() -> list[dict[str, object]]:
    return list(
        BoardEntry.objects.order_by("scope", "period", "player_id").values(
            *(f.attname for f in BoardEntry._meta.concrete_fields if f.attname != "id")
        )
    )


def results() -> list[dict[str, object]]:
    return list(BoardResult.objects.order_by("game_id").values())


def test_a_win_counts_in_its_ruleset_all_time_month_and_week(alice) -> None:
    game = win(alice, SAT)
    wins = BoardEntry.objects.filter(player=alice).order_by("period")
    assert [(e.scope, e.period, e.wins, e.best_ms, e.streak) for e in wins] == [
        ("classic", "2026-11", 1, 49 * 2000, 1),
        ("classic", "2026-W48", 1, 49 * 2000, 1),
        ("classic", "all", 1, 49 * 2000, 1),
    ]
    assert {e.best_game for e in wins} == {game}
    assert all(e.best_at == e.wins_at == SAT + 49 * STEP for e in wins)


def test_the_finishing_command_stays_one_statement(alice) -> None:
    game = new(alice, SAT, rules="classic", seed=WIN["seed"])
    play(game, alice, WIN["actions"][:-1], SAT)
    streams.cache.clear()
    streams.load(game)  # the process knows the latest version
    with CaptureQueriesContext(connection) as queries, clock.frozen(TUE):
        services.game_command(game_id=game, actor=alice, command=WIN["actions"][-1])
    assert len(queries) == 1, [query["sql"][:80] for query in queries]
    assert "games_board_entry" in queries[0]["sql"]
    assert BoardEntry.objects.filter(player=alice, wins=1).count() == 3


def test_a_move_that_does_not_finish_writes_no_board(alice) -> None:
    game = new(alice, SAT, rules="classic", seed=WIN["seed"])
    streams.load(game)
    with CaptureQueriesContext(connection) as queries, clock.frozen(SAT):
        services.game_command(game_id=game, actor=alice, command=WIN["actions"][0])
    assert len(queries) == 1 and "games_board" not in queries[0]["sql"]
    assert not BoardResult.objects.exists()


def test_streaks_count_consecutive_wins_in_finishing_order_per_period(alice, bob, mod) -> None:
    win(alice, SAT)
    win(alice, SAT + dt.timedelta(hours=1), step=dt.timedelta(seconds=1))
    lost = resign(alice, MON)
    win(alice, MON + dt.timedelta(hours=1))
    resign(alice, MON + dt.timedelta(hours=2), rules="cards4")  # another scope
    win(alice, TUE)
    win(alice, TUE + dt.timedelta(hours=1))
    assert entry(alice, "classic", "all") == {"wins": 5, "best_ms": 49000, "streak": 3, "run": 3}
    assert entry(alice, "classic", "2026-W48") == {
        "wins": 2,
        "best_ms": 49000,
        "streak": 2,
        "run": 2,
    }
    # Week 49 began with the loss: its own run.
    assert entry(alice, "classic", "2026-W49")["streak"] == 3
    assert entry(alice, "classic", "2026-11")["streak"] == 2
    assert entry(alice, "classic", "2026-12") == {
        "wins": 2,
        "best_ms": 98000,
        "streak": 2,
        "run": 2,
    }
    assert entry(alice, "cards4", "all") == {"wins": 0, "best_ms": None, "streak": 0, "run": 0}

    # Voiding the loss joins the runs; restoring it splits them again.
    moderation.result_void(game_id=lost, moderator=mod, reason="misclick")
    assert entry(alice, "classic", "all")["streak"] == 5
    assert entry(alice, "classic", "2026-11")["streak"] == 3
    moderation.result_restore(game_id=lost, moderator=mod, reason="it stands")
    assert entry(alice, "classic", "all")["streak"] == 3


def test_daily_streaks_count_consecutive_won_days(alice) -> None:
    start = dt.date(2026, 11, 26)
    for offset, won in [(0, True), (1, True), (2, False), (3, True), (4, True), (5, True)]:
        daily(alice, start + dt.timedelta(days=offset), won=won)
    assert entry(alice, "daily", "all") == {"wins": 5, "best_ms": 98000, "streak": 3, "run": 3}
    # The lost day breaks the run; so does a day not played.
    assert entry(alice, "daily", "2026-W48")["streak"] == 2  # Thu 26 to Sun 29: won 26, 27
    assert entry(alice, "daily", "2026-W49")["streak"] == 2  # Mon 30, Tue 1
    # A daily game is a classic game too: there, any loss breaks the run.
    assert entry(alice, "classic", "all")["streak"] == 3


def test_a_result_out_of_finishing_order_is_recomputed(alice) -> None:
    later = new(alice, SAT, rules="classic", seed=WIN["seed"])
    earlier = new(alice, SAT, rules="classic", seed=5)
    play(later, alice, WIN["actions"], MON)
    # The clock steps back: this loss finishes before the win it follows.
    play(earlier, alice, [{"type": "deal"}, {"type": "resign"}], SAT + dt.timedelta(hours=1))
    all_time = BoardEntry.objects.get(player=alice, scope="classic", period="all")
    assert (all_time.streak, all_time.run, all_time.dirty) == (1, 1, False)
    live = entries()
    call_command("rebuild_projections", verbosity=0)
    assert entries() == live


def test_rebuilt_boards_equal_the_live_ones(alice, bob, carol, mod) -> None:
    """A realistic mix: wins, losses, resigns, dailies, voids, a ban and its lifting,
    restores, across weeks and months."""
    win(alice, SAT)
    resign(alice, SAT + dt.timedelta(hours=1))
    voided_win = win(alice, SAT + dt.timedelta(hours=2), step=dt.timedelta(seconds=1))
    win(bob, SAT + dt.timedelta(minutes=5), step=dt.timedelta(seconds=3))
    bob_loss = resign(bob, MON)
    win(bob, MON + dt.timedelta(hours=3))
    win(carol, MON, step=dt.timedelta(seconds=1))
    resign(carol, TUE, rules="double")
    for day, player, won in [
        (dt.date(2026, 11, 29), alice, True),
        (dt.date(2026, 11, 30), alice, True),
        (dt.date(2026, 11, 30), bob, False),
        (dt.date(2026, 12, 1), alice, True),
        (dt.date(2026, 12, 1), bob, True),
        (dt.date(2026, 12, 1), carol, True),
    ]:
        daily(player, day, won)
    new(alice, TUE, rules="three_blind_mice", seed=3)  # still playing: no result
    # Voided while playing, then won: its result counts nowhere until it is restored.
    early = new(bob, TUE, rules="classic", seed=WIN["seed"])
    moderation.result_void(game_id=early, moderator=mod, reason="shared screen")
    play(early, bob, WIN["actions"], TUE + dt.timedelta(hours=2))
    assert entry(bob, "classic", "2026-12")["wins"] == 1  # his daily of 1 December
    moderation.result_restore(game_id=early, moderator=mod, reason="on appeal")
    assert entry(bob, "classic", "2026-12")["wins"] == 2
    moderation.result_void(game_id=voided_win, moderator=mod, reason="engine use")
    moderation.result_void(game_id=bob_loss, moderator=mod, reason="disconnect")
    moderation.result_restore(game_id=bob_loss, moderator=mod, reason="on review")
    moderation.player_ban(player=carol, moderator=mod, reason="bot")
    moderation.player_ban(player=bob, moderator=mod, reason="mistake")
    moderation.player_unban(player=bob, moderator=mod, reason="mistake")
    live_entries, live_results = entries(), results()
    assert len(live_results) == 15
    assert sum(1 for result in live_results if result["voided"]) == 1
    assert {row["scope"] for row in live_entries} == {"classic", "double", "daily"}
    assert entry(alice, "classic", "all") == {"wins": 4, "best_ms": 98000, "streak": 3, "run": 3}

    BoardEntry.objects.update(wins=99, streak=0, best_ms=1)  # corrupt the read models
    BoardEntry.objects.create(
        scope="cards4", period="all", player=bob, last_at=SAT, last_game=voided_win
    )
    BoardResult.objects.update(voided=False)
    call_command("rebuild_projections", verbosity=0)

    assert entries() == live_entries
    assert results() == live_results


def test_period_keys_are_utc_iso_weeks_and_calendar_months() -> None:
    assert metrics.periods_of(dt.datetime(2027, 1, 1, 0, 30, tzinfo=dt.UTC)) == (
        "all",
        "2027-01",
        "2026-W53",
    )
    late = dt.datetime(2026, 11, 29, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-2)))
    assert metrics.periods_of(late) == ("all", "2026-11", "2026-W49")  # Monday 01:30 UTC
    assert metrics.period_key("week", "2026-11-30", MON) == "2026-W49"
    assert metrics.period_key("month", None, MON) == "2026-11"
    assert metrics.bounds("2026-W53") == (
        dt.datetime(2026, 12, 28, tzinfo=dt.UTC),
        dt.datetime(2027, 1, 4, tzinfo=dt.UTC),
    )
    assert metrics.bounds("2026-12")[1] == dt.datetime(2027, 1, 1, tzinfo=dt.UTC)
    for period, at in [
        ("week", "2026-W54"),
        ("month", "2026-13"),
        ("week", "2026-11"),
        ("all", "2026"),
    ]:
        with pytest.raises(ValueError):
            metrics.period_key(period, at, MON)


def test_a_board_kept_by_another_projection_is_one_registration(alice, bob) -> None:
    """The extension point (``arena_points`` uses it over a view): a table of per-player,
    per-period values (here a temporary one) and one ``Metric``; ranking, paging and the
    caller's row follow."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE points_for_test (scope text, period text, "
            "player_id integer, points integer, points_at timestamptz)"
        )
        for player, points, hour in [(alice, 120, 9), (bob, 340, 11)]:
            cursor.execute(
                "INSERT INTO points_for_test VALUES ('classic', '2026-W49', %s, %s, %s)",
                [player.pk, points, MON.replace(hour=hour)],
            )
    metrics.register(
        metrics.Metric(
            "test_points",
            "points",
            "points_at",
            True,
            "points",
            applies=lambda scope: scope != metrics.DAILY,
            table="points_for_test",
        )
    )
    try:
        with clock.frozen(MON):
            board = selectors.board_get(
                scope="classic", metric="test_points", period="week", at=None
            )
            with pytest.raises(UnknownMetric):
                selectors.board_get(scope="daily", metric="test_points", period="all", at=None)
        body, cursor = selectors.leaderboard(board, viewer=Viewer.of(alice), after=None, limit=1)
        assert [(row["rank"], row["player"], row["value"]) for row in body["results"]] == [
            (1, "bob", 340)
        ]
        assert body["me"] is not None and (body["me"]["rank"], body["me"]["value"]) == (2, 120)
        assert cursor is not None
        rest, more = selectors.leaderboard(
            board, viewer=Viewer.of(bob), after=selectors.board_position(cursor), limit=1
        )
        assert [row["player"] for row in rest["results"]] == ["alice"] and more is None
    finally:
        del metrics.METRICS["test_points"]


@pytest.mark.parametrize("metric", ["wins", "best_time"])
@pytest.mark.parametrize("limit", [1, 3, 4, 50])
def test_pages_rank_like_the_definition(django_user_model, metric, limit) -> None:
    """Ranks and order, page after page, equal a brute-force computation: ties within a page
    and across its edges, and a banned player left out."""
    values = [5, 5, 4, 4, 4, 3, 3, 2, 2, 2, 2, 1, 4, 2]
    users = [
        django_user_model.objects.create_user(f"p{number:02d}") for number in range(len(values))
    ]
    for number, (user, value) in enumerate(zip(users, values, strict=True)):
        reached = SAT + dt.timedelta(minutes=(number * 7) % 11)  # equal moments too
        BoardEntry.objects.create(
            scope="classic",
            period="all",
            player=user,
            wins=value,
            wins_at=reached,
            best_ms=value * 1000,
            best_at=reached,
            last_at=reached,
            last_game=uuid.uuid4(),
        )
    Player.objects.create(user=users[3], banned=True)
    chosen = metrics.METRICS[metric]
    listed = [
        (user.pk, value, SAT + dt.timedelta(minutes=(n * 7) % 11))
        for n, (user, value) in enumerate(zip(users, values, strict=True))
        if user != users[3]
    ]
    sign = -1 if chosen.descending else 1
    listed.sort(key=lambda row: (sign * row[1], row[2], row[0]))
    expected = [
        (1 + sum(1 for other in listed if sign * other[1] < sign * value), player)
        for player, value, _ in listed
    ]

    seen: list[tuple[int, int]] = []
    after = None
    while True:
        rows, more = ranking.page(chosen, "classic", "all", after=after, limit=limit)
        seen.extend((row.rank, row.player_id) for row in rows)
        if not more:
            break
        after = ranking.Position(rows[-1].value, rows[-1].reached, rows[-1].player_id)
    assert seen == expected
    for rank, player in expected:
        own = ranking.own(chosen, "classic", "all", player)
        assert own is not None and own.rank == rank
    assert ranking.own(chosen, "classic", "all", users[3].pk) is None


def test_a_guest_has_results_and_no_entries_until_it_signs_up(alice) -> None:
    from games.store.models import Account
    from games.writes import accounts

    guest, _, _ = accounts.guest_play(cookie=None)
    win(guest, SAT)
    resign(guest, MON)
    win(alice, MON)
    assert BoardResult.objects.filter(player=guest).count() == 2
    assert not BoardEntry.objects.filter(player=guest).exists()
    live = entries()
    call_command("rebuild_projections", verbosity=0)
    assert entries() == live  # the rebuild leaves the guest off too

    accounts.guest_register(guest=guest, username="newcomer", password="x7-lantern-Q")
    assert not Account.objects.get(user=guest).guest
    assert entry(guest, "classic", "all")["wins"] == 1
    assert entry(guest, "classic", "all")["streak"] == 1
    live = entries()
    call_command("rebuild_projections", verbosity=0)
    assert entries() == live  # and the rebuild lists the account it became
