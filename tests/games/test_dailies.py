"""Daily challenges: the secret seed, one game per player per day, standings, streaks and
the day's end, crossing midnight with an injected clock."""

import datetime as dt
import json

import pytest
from django.db import connection

from games import clock, engine
from games.dailies import challenges as dailies
from games.dailies import standings
from games.dailies.models import DailyChallenge, Standing
from games.errors import ChallengeClosed, ChallengeInProgress, ChallengeNotFound, ChallengeNotReady
from games.reads import presenters, records, selectors, visibility
from games.reads.visibility import Viewer
from games.store.models import Game, Player
from games.writes import services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


def at(day: dt.date, hour: int = 12, minute: int = 0):
    return clock.frozen(dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC))


def winnable(day: dt.date) -> None:
    """Make ``day``'s deal one with a known win (seed 0) before anyone asks for it."""
    DailyChallenge.objects.create(date=day, rules="classic", seed=WIN["seed"], created_at=NOON)


def play(stream, player, commands) -> None:
    for command in commands:
        services.game_command(game_id=stream.game_id, actor=player, command=command)


def test_the_seed_is_an_hmac_of_the_date_and_counter_under_the_secret(settings) -> None:
    first = dailies.secret_seed(DAY)
    assert first == dailies.secret_seed(DAY, 0)
    assert first != dailies.secret_seed(DAY + dt.timedelta(days=1))
    assert first != dailies.secret_seed(DAY, 1)
    assert 0 <= first <= engine.MAX_SEED
    settings.DAILY_SECRET = "another deployment"
    assert dailies.secret_seed(DAY) != first


def test_a_challenge_exists_once_prepared_and_not_before_its_day() -> None:
    with at(DAY):
        with pytest.raises(ChallengeNotReady):
            dailies.challenge_get(DAY)
        prepared, made = dailies.prepare(DAY)
        challenge = dailies.challenge_get(DAY)
        assert made and challenge == prepared
        certified = dailies.certify(DAY)
        assert challenge.seed == certified.seed == dailies.secret_seed(DAY, certified.counter)
        assert challenge.rules == "classic"
        assert dailies.challenge_get(DAY) == challenge
        with pytest.raises(ChallengeNotFound):
            dailies.challenge_get(DAY + dt.timedelta(days=1))
        body = presenters.challenge_body(challenge)
    assert body == {
        "date": "2026-11-30",
        "rules": "classic",
        "starts_at": "2026-11-30T00:00:00.000Z",
        "ends_at": "2026-12-01T00:00:00.000Z",
        "participants": 0,
        "status": "open",
        "seed": None,
        "solution": None,
        "difficulty": None,
    }


def test_joining_gives_one_game_of_the_day_per_player(alice, bob) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        first, made = services.challenge_join(date=DAY, player=alice)
        again, made_again = services.challenge_join(date=DAY, player=alice)
        other, _ = services.challenge_join(date=DAY, player=bob)
    assert made and not made_again and again.game_id == first.game_id
    assert other.game_id != first.game_id
    assert (
        first.stream.state.deal
        == other.stream.state.deal
        == engine.seeded_deal(engine.RULESETS["classic"], dailies.certify(DAY).seed)
    )
    assert Standing.objects.filter(challenge=DAY).count() == 2
    assert Game.objects.get(id=first.game_id).challenge == DAY


def test_another_players_game_is_secret_while_the_day_runs(alice, bob) -> None:
    dailies.prepare(DAY)
    dailies.prepare(DAY + dt.timedelta(days=1))
    with at(DAY):
        joined, _ = services.challenge_join(date=DAY, player=alice)
        game = Game.objects.get(id=joined.game_id)
        as_alice, as_bob = Viewer.of(alice), Viewer.of(bob)
        with pytest.raises(ChallengeInProgress):
            selectors.game_get(game_id=game.id, viewer=as_bob)
        seen = selectors.game_get(game_id=game.id, viewer=as_alice)
        assert seen.game.id == game.id
        assert not seen.sight.reveal
        assert game not in selectors.game_list(viewer=as_bob)
        services.game_command(game_id=game.id, actor=alice, command={"type": "resign"})
        seen = selectors.game_get(game_id=game.id, viewer=as_alice)
        assert not seen.sight.reveal  # finished, but the day is not over
        assert "reserve_cards" not in presenters.game_body(*seen)
    with at(DAY + dt.timedelta(days=1), 0, 1):
        assert selectors.game_get(game_id=game.id, viewer=as_bob).game.id == game.id
        assert selectors.game_get(game_id=game.id, viewer=visibility.ANONYMOUS).sight.reveal
        assert game in selectors.game_list(viewer=visibility.ANONYMOUS)
        with pytest.raises(ChallengeClosed):
            services.challenge_join(date=DAY, player=bob)
        body = presenters.challenge_body(dailies.challenge_get(DAY))
        assert body["status"] == "closed" and body["seed"] == dailies.certify(DAY).seed
        today = dailies.challenge_get(dailies.today())
        assert today.date == DAY + dt.timedelta(days=1)
        deal = engine.seeded_deal(engine.RULESETS["classic"], today.seed)
        assert deal != joined.stream.state.deal


def test_standings_rank_wins_by_time_then_the_rest(alice, bob, django_user_model) -> None:
    carol = django_user_model.objects.create_user("carol", password="pw-carol-123")
    dave = django_user_model.objects.create_user("dave", password="pw-dave-123")
    winnable(DAY)
    with at(DAY, 9):
        slow, _ = services.challenge_join(date=DAY, player=alice)
        fast, _ = services.challenge_join(date=DAY, player=bob)
        stuck, _ = services.challenge_join(date=DAY, player=carol)
        quitter, _ = services.challenge_join(date=DAY, player=dave)
    with at(DAY, 9, 30):
        play(fast, bob, WIN["actions"])
    with at(DAY, 11):
        play(slow, alice, WIN["actions"])
        play(stuck, carol, WIN["actions"][:20])
        play(quitter, dave, [*WIN["actions"][:3], {"type": "resign"}])
        ranked = selectors.challenge_standings(DAY)
    assert [(entry["rank"], entry["player"], entry["status"]) for entry in ranked] == [
        (1, "bob", "won"),
        (2, "alice", "won"),
        (3, "carol", "playing"),
        (4, "dave", "resigned"),
    ]
    assert ranked[0]["elapsed_ms"] == 30 * 60 * 1000 and ranked[0]["sequences"] == 4
    assert ranked[1]["elapsed_ms"] == 2 * 3600 * 1000
    assert ranked[2]["revealed"] >= ranked[3]["revealed"]
    assert set(ranked[0]) == {
        "rank",
        "player",
        "status",
        "moves",
        "score",
        "sequences",
        "revealed",
        "elapsed_ms",
        "hints",
        "started_at",
        "game",
    }


def test_voided_and_banned_entries_leave_the_standings(alice, bob) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        first, _ = services.challenge_join(date=DAY, player=alice)
        services.challenge_join(date=DAY, player=bob)
        revision, _ = standings.ranked(DAY)
        entries = selectors.challenge_standings(DAY)
        assert sorted(entry["player"] for entry in entries) == ["alice", "bob"]
        Standing.objects.filter(game_id=first.game_id).update(voided=True)
        assert [entry["player"] for entry in selectors.challenge_standings(DAY)] == ["bob"]
        Player.objects.create(user=bob, banned=True)
        assert selectors.challenge_standings(DAY) == []
        # The revision still counts every entry: it orders pushes, it is not a ranking.
        assert standings.ranked(DAY)[0] == revision


def test_streaks_count_consecutive_won_days(alice) -> None:
    start = dt.date(2026, 11, 1)
    won_days = [0, 1, 2, 4, 5]  # day 3 missed
    for offset in range(7):
        winnable(start + dt.timedelta(days=offset))
    for offset in won_days:
        day = start + dt.timedelta(days=offset)
        with at(day):
            stream, _ = services.challenge_join(date=day, player=alice)
            play(stream, alice, WIN["actions"])
    with at(start + dt.timedelta(days=5), 18):
        stats = records.player_record(username="alice", viewer=visibility.ANONYMOUS)
    assert (stats["streak"], stats["best_streak"]) == (2, 3)
    assert stats["played"] == stats["won"] == 5 and stats["win_rate"] == 1.0
    with at(start + dt.timedelta(days=6), 18):  # today not won yet: yesterday's run stands
        assert records.player_record(username="alice", viewer=visibility.ANONYMOUS)["streak"] == 2
    with at(start + dt.timedelta(days=7), 18):  # a whole day missed: the run is over
        stats = records.player_record(username="alice", viewer=visibility.ANONYMOUS)
    assert (stats["streak"], stats["best_streak"]) == (0, 3)


def test_standings_are_one_query_whatever_the_field(alice, django_user_model) -> None:
    dailies.prepare(DAY)
    with at(DAY):
        for n in range(30):
            player = django_user_model.objects.create_user(f"p{n}", password="pw-racer-123")
            services.challenge_join(date=DAY, player=player)
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            revision, results = selectors.standings_ranked(DAY)
    assert len(queries) == 1
    assert revision == 30 and len(json.loads(results)) == 30
