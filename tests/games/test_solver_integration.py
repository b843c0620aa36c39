"""The solver in the server: certified daily deals (made ahead, concurrently, by the
command and the background preparer), hints recorded as events in a race, and the stored
post-game analysis. Real PostgreSQL; the clock is injected to cross midnight."""

import datetime as dt
import threading

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from games import clock, engine, projections
from games.dailies import challenges as dailies
from games.dailies import preparer
from games.dailies.models import DailyChallenge, Standing
from games.engine import analysis
from games.engine.solver import solve
from games.errors import AnalysisNotYet, ChallengeNotReady, GameNotFinished
from games.reads import presenters, selectors
from games.reads.visibility import Viewer
from games.store.models import Event, Game, GameAnalysis
from games.writes import analysis as analyses
from games.writes import services
from tests.golden import WIN

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
CLASSIC = engine.RULESETS["classic"]


def at(day: dt.date, hour: int = 12, minute: int = 0):
    return clock.frozen(dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC))


def replays_to_a_win(rules: engine.Ruleset, seed: int, commands) -> bool:
    actions = [engine.action_from_command(command) for command in commands]
    return engine.replay(rules, engine.seeded_deal(rules, seed), actions).status == engine.WON


# --- certified daily deals -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_days_deal_is_the_first_candidate_proved_winnable_and_its_line_wins() -> None:
    with at(DAY):
        challenge, made = dailies.prepare(DAY)
    assert made and challenge.counter is not None
    assert challenge.seed == dailies.secret_seed(DAY, challenge.counter)
    assert replays_to_a_win(CLASSIC, challenge.seed, challenge.solution)
    assert challenge.difficulty == dailies.difficulty(challenge.nodes)
    # Every earlier candidate was not proved winnable within the budget.
    for counter in range(challenge.counter):
        deal = engine.seeded_deal(CLASSIC, dailies.secret_seed(DAY, counter))
        assert solve(CLASSIC, engine.new_game(CLASSIC, deal), 5_000).verdict != "won"


def test_difficulty_bands_by_nodes_searched() -> None:
    assert [dailies.difficulty(n) for n in (0, 199, 200, 999, 1_000, 4_999, 5_000, 10**9)] == [
        "easy",
        "easy",
        "medium",
        "medium",
        "hard",
        "hard",
        "expert",
        "expert",
    ]


def test_the_ruleset_follows_the_weekly_rotation(settings) -> None:
    assert dailies.rules_of(DAY).name == "classic"  # the default: classic every day
    week = ["classic", "easy", "cards4", "classic", "wasp", "double", "open"]
    settings.DAILY_RULES = week
    monday = DAY - dt.timedelta(days=DAY.weekday())
    assert [dailies.rules_of(monday + dt.timedelta(days=n)).name for n in range(7)] == week


@pytest.mark.django_db
def test_a_rotated_day_is_certified_in_its_ruleset(settings) -> None:
    settings.DAILY_RULES = ["wasp"] * 7
    with at(DAY):
        challenge, _ = dailies.prepare(DAY)
    assert challenge.rules == "wasp"
    assert replays_to_a_win(engine.RULESETS["wasp"], challenge.seed, challenge.solution)


@pytest.mark.django_db
def test_solution_and_difficulty_stay_secret_until_the_day_closes() -> None:
    with at(DAY):
        challenge, _ = dailies.prepare(DAY)
        body = presenters.challenge_body(challenge)
        assert body["solution"] is None and body["difficulty"] is None and body["seed"] is None
    with at(DAY + dt.timedelta(days=1), 0, 0):
        body = presenters.challenge_body(dailies.challenge_get(DAY))
    assert body["solution"] == challenge.solution and body["difficulty"] == challenge.difficulty
    assert replays_to_a_win(CLASSIC, body["seed"], body["solution"])


@pytest.mark.django_db
def test_an_unprepared_day_is_not_ready_until_the_preparer_makes_it() -> None:
    with at(DAY), pytest.raises(ChallengeNotReady):
        dailies.challenge_get(DAY)
    assert not DailyChallenge.objects.filter(date=DAY).exists()
    with at(DAY, 0, 5):
        assert preparer.tick() == [DAY]
        assert dailies.challenge_get(DAY).seed == dailies.certify(DAY).seed


@pytest.mark.django_db
def test_the_preparer_makes_tomorrow_before_midnight_and_it_stays_hidden(settings) -> None:
    settings.DAILY_PREPARE_AHEAD_SECONDS = 3600
    tomorrow = DAY + dt.timedelta(days=1)
    with at(DAY, 12):
        assert preparer.due(clock.now()) == [DAY]
        assert preparer.tick() == [DAY]
    with at(DAY, 22, 59):
        assert preparer.tick() == []
    with at(DAY, 23, 0):
        assert preparer.due(clock.now()) == [DAY, tomorrow]
        assert preparer.tick() == [tomorrow]
        assert preparer.tick() == []  # made once
        made = DailyChallenge.objects.get(date=tomorrow)
        with pytest.raises(dailies.ChallengeNotFound):
            dailies.challenge_get(tomorrow)  # a day that has not begun does not exist
    with at(tomorrow, 0, 0):
        assert dailies.challenge_get(tomorrow) == made


@pytest.mark.django_db(transaction=True)
def test_the_preparer_leaves_a_day_another_process_is_preparing() -> None:
    other = psycopg.connect(**psycopg_params(), autocommit=True)
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [preparer.lock_id(DAY)])
        with at(DAY):
            assert preparer.tick() == []
        assert not DailyChallenge.objects.filter(date=DAY).exists()
        other.execute("SELECT pg_advisory_unlock(%s)", [preparer.lock_id(DAY)])
        with at(DAY):
            assert preparer.tick() == [DAY]
    finally:
        other.close()


def psycopg_params() -> dict[str, object]:
    """Connection parameters of the test database, for a second, independent session."""
    settings_dict = connection.settings_dict
    params: dict[str, object] = {"dbname": settings_dict["NAME"], "user": settings_dict["USER"]}
    for key, name in (("HOST", "host"), ("PORT", "port"), ("PASSWORD", "password")):
        if settings_dict.get(key):
            params[name] = settings_dict[key]
    return params


@pytest.mark.django_db
def test_prepare_challenges_makes_the_coming_days() -> None:
    with at(DAY):
        call_command("prepare_challenges", "--days", "3", stdout=open("/dev/null", "w"))  # noqa: SIM115
        call_command("prepare_challenges", "--days", "3", stdout=open("/dev/null", "w"))  # noqa: SIM115
    days = list(DailyChallenge.objects.order_by("date").values_list("date", flat=True))
    assert days == [DAY + dt.timedelta(days=n) for n in range(3)]
    for day in days:
        row = DailyChallenge.objects.get(date=day)
        assert replays_to_a_win(CLASSIC, row.seed, row.solution)


@pytest.mark.django_db(transaction=True)
def test_concurrent_preparers_make_one_challenge() -> None:
    day = DAY + dt.timedelta(days=40)
    dailies._certified.clear()  # every thread searches, and they race to insert
    barrier = threading.Barrier(6)
    results: list[tuple[int, bool]] = []
    failures: list[BaseException] = []

    def prepare() -> None:
        try:
            barrier.wait()
            challenge, made = dailies.prepare(day)
            results.append((challenge.seed, made))
        except BaseException as error:  # noqa: BLE001
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=prepare) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert len({seed for seed, _ in results}) == 1 and len(results) == 6
    assert sum(made for _, made in results) == 1
    assert DailyChallenge.objects.filter(date=day).count() == 1


# --- hints in a race ---------------------------------------------------------------------------


def winnable(day: dt.date) -> None:
    """Make ``day``'s deal seed 0, whose win is known, before anyone asks for it."""
    DailyChallenge.objects.create(date=day, rules="classic", seed=WIN["seed"], created_at=NOON)


def play(stream, player, commands) -> None:
    for command in commands:
        services.game_command(game_id=stream.game_id, actor=player, command=command)


def own(game_id, user):
    return selectors.game_get(game_id=game_id, viewer=Viewer.of(user)).game


@pytest.mark.django_db
def test_a_race_hint_is_recorded_once_per_position_and_counted(alice, bob) -> None:
    winnable(DAY)
    with at(DAY, 9):
        joined, _ = services.challenge_join(date=DAY, player=alice)
        first = services.game_hint(game=own(joined.game_id, alice), viewer=alice)
        again = services.game_hint(game=own(joined.game_id, alice), viewer=alice)
        other = services.game_hint(game=own(joined.game_id, alice), viewer=bob)
    assert first.recorded and first.game.version == 2
    assert not again.recorded and again.game.version == 2 and again.hint == first.hint
    assert not other.recorded  # only the owner's hint counts
    stored = Event.objects.get(game_id=joined.game_id, seq=2)
    assert stored.type == "hinted" and stored.data["source"] == first.hint.source
    assert Standing.objects.get(game_id=joined.game_id).hints == 1
    with at(DAY, 9, 5):
        play(joined, alice, WIN["actions"][:1])
        assert services.game_hint(game=own(joined.game_id, alice), viewer=alice).recorded
    assert Standing.objects.get(game_id=joined.game_id).hints == 2


@pytest.mark.django_db
def test_a_hint_outside_a_race_records_nothing(alice) -> None:
    written = services.game_create(owner=alice, seed=0)
    result = services.game_hint(game=own(written.game_id, alice), viewer=alice)
    assert not result.recorded and result.game.version == 1
    assert Event.objects.filter(game_id=written.game_id).count() == 1


@pytest.mark.django_db
def test_unaided_wins_rank_first_and_projections_rebuild_with_hints(
    alice, bob, django_user_model
) -> None:
    carol = django_user_model.objects.create_user("carol", password="pw-carol-123")
    winnable(DAY)
    with at(DAY, 9):
        aided, _ = services.challenge_join(date=DAY, player=alice)
        unaided, _ = services.challenge_join(date=DAY, player=bob)
        stuck, _ = services.challenge_join(date=DAY, player=carol)
        services.game_hint(game=own(aided.game_id, alice), viewer=alice)
    with at(DAY, 9, 10):
        play(aided, alice, WIN["actions"])  # the faster win, with a hint
    with at(DAY, 11):
        play(unaided, bob, WIN["actions"])
        play(stuck, carol, WIN["actions"][:5])
        services.game_hint(game=own(stuck.game_id, carol), viewer=carol)
        ranked = selectors.challenge_standings(DAY)
    assert [(e["player"], e["status"], e["hints"]) for e in ranked] == [
        ("bob", "won", 0),
        ("alice", "won", 1),
        ("carol", "playing", 1),
    ]
    before = list(Standing.objects.order_by("game_id").values())
    games_before = list(Game.objects.order_by("id").values())
    projections.rebuild()
    assert list(Standing.objects.order_by("game_id").values()) == before
    assert list(Game.objects.order_by("id").values()) == games_before


# --- post-game analysis ------------------------------------------------------------------------


@pytest.mark.django_db
def test_analysis_only_of_a_finished_game_and_computed_once(alice) -> None:
    written = services.game_create(owner=alice, seed=0)
    viewer = Viewer.of(alice)
    with pytest.raises(GameNotFinished):
        analyses.game_analysis(
            selectors.game_get(game_id=written.game_id, viewer=viewer), requester="test"
        )
    play(written, alice, [{"type": "deal"}, {"type": "resign"}])  # the deal loses seed 0
    seen = selectors.game_get(game_id=written.game_id, viewer=viewer)
    first = analyses.game_analysis(seen, requester="test")
    again = analyses.game_analysis(seen, requester="test")
    assert GameAnalysis.objects.count() == 1 and again.computed_at == first.computed_at
    assert first.winnable is True and first.decided
    assert first.lost_at == 2 and first.last_winnable == 1
    assert replays_to_a_win(CLASSIC, 0, first.line)


@pytest.mark.django_db
def test_analysis_of_a_won_game_and_of_a_game_resigned_while_winnable(alice) -> None:
    won = services.game_create(owner=alice, seed=0)
    play(won, alice, WIN["actions"])
    resigned = services.game_create(owner=alice, seed=0)
    play(resigned, alice, [WIN["actions"][0], {"type": "resign"}])
    viewer = Viewer.of(alice)
    of_won = analyses.game_analysis(
        selectors.game_get(game_id=won.game_id, viewer=viewer), requester="test"
    )
    of_quit = analyses.game_analysis(
        selectors.game_get(game_id=resigned.game_id, viewer=viewer), requester="test"
    )
    assert of_won.winnable and of_won.lost_at is None and of_won.line == []
    assert of_quit.winnable and of_quit.lost_at is None and of_quit.last_winnable == 3
    first = engine.action_from_command(WIN["actions"][0])
    rest = [engine.action_from_command(command) for command in of_quit.line]
    state = engine.replay(CLASSIC, engine.seeded_deal(CLASSIC, 0), [first, *rest])
    assert state.status == engine.WON


@pytest.mark.django_db
def test_no_analysis_of_a_daily_game_while_its_day_is_open(alice) -> None:
    winnable(DAY)
    with at(DAY):
        joined, _ = services.challenge_join(date=DAY, player=alice)
        play(joined, alice, [{"type": "resign"}])
        with pytest.raises(AnalysisNotYet):
            analyses.game_analysis(
                selectors.game_get(game_id=joined.game_id, viewer=Viewer.of(alice)),
                requester="test",
            )
    with at(DAY + dt.timedelta(days=1)):
        seen = selectors.game_get(game_id=joined.game_id, viewer=Viewer.of(None))
        assert analyses.game_analysis(seen, requester="test").winnable is True


def test_analyse_follows_undo_back_to_a_winnable_position() -> None:
    deal = engine.seeded_deal(CLASSIC, 0)
    state = engine.new_game(CLASSIC, deal)
    steps = [analysis.Step(1, state, None)]
    for version, action in enumerate([engine.Deal(), engine.Undo(), engine.Deal()], start=2):
        state = engine.apply(state, action)[0]
        steps.append(analysis.Step(version, state, action))
    result = analysis.analyse(steps, budget=100_000, max_nodes=1_000_000)
    assert result.winnable and result.decided
    assert result.last_winnable == 3 and result.lost_at == 4
