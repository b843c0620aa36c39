"""Races between friends over REST, with the clock moved by the test (``games.clock``):
creating, joining by code until the start, dealing at the start, no peeking while the race
runs, the end by the time limit or when everyone finished, then everything public."""

from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Any

import pytest

from games import clock
from games.dailies import secrets
from games.dailies.models import Contest, ContestResult, Entrant
from games.writes import contests as services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at

    def move(self, **delta: float) -> None:
        self.at += dt.timedelta(**delta)


@pytest.fixture
def now():
    moving = Clock(T0)
    with clock.frozen(moving):
        yield moving


def make_race(api: Any, **body: Any) -> dict[str, Any]:
    defaults = {"deals": 2, "time_limit": 600, **({} if "starts_at" in body else {"countdown": 60})}
    response = api.post("/api/v1/races", {**defaults, **body})
    assert response.status_code == 201, response.content
    return response.json()


def test_a_race_from_creation_to_public_replays(now, as_alice, as_bob, as_staff, api, player):
    race = make_race(as_alice)
    assert race["status"] == "scheduled" and race["seeds"] is None and race["racers"] == 1
    assert race["starts_at"] == "2026-11-30T12:01:00.000Z"
    assert race["ends_at"] == "2026-11-30T12:11:00.000Z" and race["time_limit"] == 600
    code = race["code"]
    # Join by the short code (any case), or by the id; twice is the same entry.
    assert as_bob.post(f"/api/v1/races/{code.lower()}/join").status_code == 201
    again = as_bob.post(f"/api/v1/races/{race['id']}/join")
    assert again.status_code == 200 and again.json()["racers"] == 2
    # No deal before the start, for anyone.
    early = as_alice.post(f"/api/v1/races/{code}/games")
    assert early.status_code == 403 and early.json()["code"] == "contest_not_started"

    now.move(seconds=60)
    _, carol = player("carol")
    late = api.as_user(carol).post(f"/api/v1/races/{code}/join")
    assert late.status_code == 403 and late.json()["code"] == "race_started"
    outsider = api.as_user(carol).post(f"/api/v1/races/{code}/games")
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_entrant"

    dealt = as_alice.post(f"/api/v1/races/{code}/games")
    assert dealt.status_code == 201
    mine = dealt.json()["results"]
    assert [(g["round"], g["contest"], g["seed"]) for g in mine] == [
        (1, race["id"], None),
        (2, race["id"], None),
    ]
    assert as_alice.post(f"/api/v1/races/{code}/games").json()["results"] == mine
    bobs = as_bob.post(f"/api/v1/races/{code}/games").json()["results"]
    # The same deals: the same face-up cards.
    assert [g["columns"] for g in bobs] == [g["columns"] for g in mine]

    # While it runs, nobody opens another racer's game: not a racer, not a stranger.
    for reader in (as_bob, api):
        for path in ("", "/events", "/moves", "/hint", "/states/1"):
            refused = reader.get(f"/api/v1/games/{mine[0]['id']}{path}")
            assert refused.status_code == 403, path
            assert refused.json()["code"] == "contest_in_progress"
    listed = as_bob.get(f"/api/v1/races/{code}/games").json()["results"]
    assert {g["id"] for g in listed} == {g["id"] for g in bobs}
    assert mine[0]["id"] not in str(as_bob.get("/api/v1/games?limit=200").json())
    # Staff may read it, but not its deal: the secret is everyone's race.
    seen = as_staff.get(f"/api/v1/games/{mine[0]['id']}").json()
    assert seen["seed"] is None and "reserve_cards" not in seen

    played = as_alice.post(f"/api/v1/games/{mine[0]['id']}/commands", {"type": "resign"})
    assert played.status_code == 201
    standings = api.get(f"/api/v1/races/{code}/standings").json()
    assert standings["status"] == "running"
    assert [(r["player"], r["finished"]) for r in standings["results"]] == [
        ("alice", 1),
        ("bob", 0),
    ]
    # Its rows name the games their reader may read: one's own, and every one to staff.
    path = f"/api/v1/races/{code}/standings"
    ids = {"alice": [g["id"] for g in mine], "bob": [g["id"] for g in bobs]}
    for reader, shown in ((as_alice, {"alice"}), (api, set()), (as_staff, {"alice", "bob"})):
        rows = reader.get(path).json()["results"]
        assert {r["player"]: r["games"] for r in rows} == {
            name: ids[name] if name in shown else None for name in ids
        }

    # The time limit ends it: no more commands, and everything is public.
    now.move(minutes=10)
    closed = as_bob.post(f"/api/v1/games/{bobs[0]['id']}/commands", {"type": "resign"})
    assert closed.status_code == 403 and closed.json()["code"] == "contest_closed"
    over = api.get(f"/api/v1/races/{code}").json()
    assert over["status"] == "finished" and over["finished_at"] == "2026-11-30T12:11:00.000Z"
    contest = Contest.objects.get(id=race["id"])
    assert over["seeds"] == [secrets.contest_seed(contest.id, n) for n in (1, 2)]
    public = as_bob.get(f"/api/v1/games/{mine[0]['id']}").json()
    assert public["seed"] == over["seeds"][0] and "reserve_cards" in public
    created = api.get(f"/api/v1/games/{mine[1]['id']}/events").json()["results"][0]
    assert created["data"]["seed"] == over["seeds"][1] and len(created["data"]["deal"]) == 52
    assert len(api.get(f"/api/v1/races/{code}/games").json()["results"]) == 4
    rows = api.get(f"/api/v1/races/{code}/standings").json()["results"]
    assert {r["player"]: r["games"] for r in rows} == ids
    assert mine[0]["id"] in str(api.get("/api/v1/games?limit=200").json())


def test_a_race_ends_when_everyone_has_finished(now, as_alice, as_bob, api):
    race = make_race(as_alice, deals=1, countdown=5)
    as_bob.post(f"/api/v1/races/{race['code']}/join")
    now.move(seconds=5)
    games = {
        name: client.post(f"/api/v1/races/{race['id']}/games").json()["results"][0]["id"]
        for name, client in (("alice", as_alice), ("bob", as_bob))
    }
    as_alice.post(f"/api/v1/games/{games['alice']}/commands", {"type": "resign"})
    assert api.get(f"/api/v1/races/{race['id']}").json()["status"] == "running"
    assert as_alice.get(f"/api/v1/games/{games['bob']}").status_code == 403
    as_bob.post(f"/api/v1/games/{games['bob']}/commands", {"type": "resign"})
    over = api.get(f"/api/v1/races/{race['id']}").json()
    assert over["status"] == "finished" and over["finished_at"] == "2026-11-30T12:00:05.000Z"
    assert as_alice.get(f"/api/v1/games/{games['bob']}").json()["seed"] == over["seeds"][0]


def test_creating_a_race_checks_its_input(now, as_alice, api):
    assert api.post("/api/v1/races", {"time_limit": 60}).status_code == 401
    for body, field in (
        ({"time_limit": 60, "deals": 6}, "deals"),
        ({"time_limit": 60, "deals": 0}, "deals"),
        ({"time_limit": 5}, "time_limit"),
        ({}, "time_limit"),
        ({"time_limit": 60, "rules": "chess"}, "rules"),
        ({"time_limit": 60, "countdown": 5, "starts_at": "2026-11-30T13:00:00Z"}, None),
        ({"time_limit": 60, "colour": "red"}, "colour"),
        ({"time_limit": 60, "starts_at": "2026-11-30T11:59:00Z"}, "starts_at"),
        ({"time_limit": 60, "starts_at": "2026-12-30T11:59:00Z"}, "starts_at"),
        ({"time_limit": 60, "countdown": 86401}, "countdown"),
    ):
        refused = as_alice.post("/api/v1/races", body)
        assert refused.status_code == 400, body
        assert (field or "non_field_errors") in refused.json()["fields"]
    at = make_race(as_alice, starts_at="2026-11-30T13:00:00Z", public=False, rules="wasp")
    assert at["starts_at"] == "2026-11-30T13:00:00.000Z" and at["rules"] == "wasp"
    # A private race is not listed for others, but its link and code work.
    assert at["id"] not in str(api.get("/api/v1/races").json())
    assert at["id"] in str(as_alice.get("/api/v1/races").json())
    assert api.get(f"/api/v1/races/{at['code']}").json()["id"] == at["id"]
    assert api.get("/api/v1/races/NOSUCH").status_code == 404


def test_races_are_paged_by_cursor(now, as_alice, api):
    made = [make_race(as_alice, countdown=60 + n)["id"] for n in range(5)]
    page = api.get("/api/v1/races?limit=2").json()
    seen = [r["id"] for r in page["results"]]
    while page["next"]:
        page = api.get(page["next"].split("testserver")[-1]).json()
        seen += [r["id"] for r in page["results"]]
    assert seen == list(reversed(made))
    assert api.get("/api/v1/races?status=scheduled").json()["results"]
    assert api.get("/api/v1/races?status=running").json()["results"] == []
    assert api.get("/api/v1/races?cursor=bogus").status_code == 400


def test_errors_follow_accept_language(now, as_alice, api, player):
    race = make_race(as_alice, countdown=5)
    now.move(seconds=5)
    _, carol = player("carol")
    refused = api.as_user(carol).in_language("it").post(f"/api/v1/races/{race['id']}/join")
    assert refused.status_code == 403 and refused.json()["code"] == "race_started"
    assert refused.json()["detail"].startswith("Questa gara")


@pytest.mark.django_db(transaction=True)
def test_a_concurrent_join_at_the_moment_of_start(django_user_model):
    """Players join while the start seals the racers: each join either is in the race or
    is refused, and the racers are exactly those who joined before the seal."""
    users = [
        django_user_model.objects.create_user(f"p{n}", password="pw-racer-123") for n in range(12)
    ]
    start = clock.now() + dt.timedelta(seconds=2)
    race = services.race_create(
        creator=users[0],
        rules="classic",
        deals=1,
        starts_at=start,
        time_limit=dt.timedelta(minutes=5),
    )
    outcomes: dict[str, str] = {}
    barrier = threading.Barrier(len(users))

    def join(user: Any) -> None:
        from django.db import connection

        try:
            connection.ensure_connection()
            barrier.wait()
            # Spread the joins around the start instant: -0.2 s to +0.1 s.
            target = start + dt.timedelta(seconds=(users.index(user) % 4 - 2) * 0.1)
            while clock.now() < target:
                time.sleep(0.001)
            try:
                services.race_join(race=race, player=user)
                outcomes[user.username] = "joined"
            except Exception as error:  # noqa: BLE001
                outcomes[user.username] = getattr(error, "code", repr(error))
        finally:
            connection.close()

    sealed_by: list[object] = []

    def seal() -> None:
        from django.db import connection

        from games.dailies import contests as domain

        try:
            connection.ensure_connection()
            barrier.wait()
            while clock.now() < start:
                time.sleep(0.001)
            sealed_by.append(domain.race_start(race))
        except Exception as error:  # noqa: BLE001  (a thread's error must fail the test)
            sealed_by.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(u,)) for u in users[1:]]
    threads.append(threading.Thread(target=seal))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(sealed_by) == 1 and isinstance(sealed_by[0], Contest), sealed_by
    assert set(outcomes.values()) <= {"joined", "race_started"}
    assert "joined" in outcomes.values() and "race_started" in outcomes.values()
    sealed = Contest.objects.get(id=race.id)
    assert sealed.started_at is not None and sealed.started_at >= start
    racers = set(Entrant.objects.filter(contest=race).values_list("player__username", flat=True))
    assert racers == {"p0"} | {name for name, outcome in outcomes.items() if outcome == "joined"}
    assert all(
        joined < start
        for joined in Entrant.objects.filter(contest=race).values_list("joined_at", flat=True)
    )
    # Every racer is dealt; nobody else is.
    for user in users:
        if user.username in racers:
            games, _ = services.race_games(race=sealed, player=user)
            assert len(games) == 1


def test_arena_points_are_one_figure_wherever_they_are_read(now, alice) -> None:
    from games.dailies import arenas
    from games.dailies import contests as domain
    from games.dailies.models import ContestResult
    from games.store import streams
    from games.writes import services as game_services

    user = alice[0]
    arena = domain.arena_create(rules="classic", starts_at=T0, ends_at=T0 + dt.timedelta(hours=1))
    game, _ = services.arena_play(arena=arena, player=user)
    now.move(seconds=20)
    done = game_services.game_command(game_id=game.game_id, actor=user, command={"type": "resign"})
    assert done.summary.status == "resigned"
    stored = ContestResult.objects.get(game_id=game.game_id).points
    stream = streams.load(game.game_id)
    assert arenas.stream_points(stream) == stored == 0
    # A win 150 s after the deal's start: 100, plus 50 less one point a 15 s.
    won = game_services.game_create(owner=user, seed=WIN["seed"])
    now.move(seconds=150)
    for command in WIN["actions"]:
        last = game_services.game_command(game_id=won.game_id, actor=user, command=command)
    assert last.summary.status == "won"
    assert arenas.stream_points(last.stream) == 140
    assert arenas.POINTS_TABLE == {
        "win": 100,
        "speed_bonus": 50,
        "speed_step_seconds": 15,
        "aided_win": 80,
        "sequence": 10,
    }


# --- hints: unaided wins rank first --------------------------------------------------------------


def won_contest(make: Any, rules: str, rounds: int, winning_line: Any) -> tuple[Any, list[Any]]:
    """A contest made by ``make()`` whose first ``rounds`` secret deals the solver wins
    (contests are made until one's are), with the winning commands of each deal."""
    for _attempt in range(30):
        contest = make()
        key = contest["id"] if isinstance(contest, dict) else contest.id
        lines = [winning_line(rules, secrets.contest_seed(key, n)) for n in range(1, rounds + 1)]
        if None not in lines:
            return contest, lines
    raise AssertionError("no contest with won deals in 30 tries")


def play(client: Any, game: str, commands: list[dict[str, Any]]) -> dict[str, Any]:
    for command in commands:
        answer = client.post(f"/api/v1/games/{game}/commands", command)
        assert answer.status_code == 201, answer.content
    return answer.json()["game"]


def hint(client: Any, game: str) -> None:
    answer = client.post(f"/api/v1/games/{game}/hints")
    assert answer.status_code == 201 and answer.json()["recorded"] is True, answer.content


def test_a_race_ranks_unaided_wins_first_and_shows_the_hints(
    now, as_alice, as_bob, api, player, winning_line
):
    """Alice wins both deals first, with two hints in the first; Bob wins both later,
    unaided: he ranks first. Carol wins one deal, unaided and first of all: most deals won
    still comes before everything else."""
    race, lines = won_contest(
        lambda: make_race(as_alice, rules="wasp", deals=2), "wasp", 2, winning_line
    )
    _, carol_token = player("carol")
    as_carol = api.as_user(carol_token)
    for client in (as_bob, as_carol):
        assert client.post(f"/api/v1/races/{race['code']}/join").status_code == 201
    now.move(seconds=60)
    games = {
        name: [g["id"] for g in client.post(f"/api/v1/races/{race['id']}/games").json()["results"]]
        for name, client in (("alice", as_alice), ("bob", as_bob), ("carol", as_carol))
    }
    now.move(seconds=5)
    play(as_carol, games["carol"][0], lines[0])
    now.move(seconds=5)
    hint(as_alice, games["alice"][0])
    play(as_alice, games["alice"][0], lines[0][:3])
    hint(as_alice, games["alice"][0])
    assert play(as_alice, games["alice"][0], lines[0][3:])["status"] == "won"
    now.move(seconds=5)
    play(as_alice, games["alice"][1], lines[1])
    now.move(seconds=60)
    play(as_bob, games["bob"][0], lines[0])
    play(as_bob, games["bob"][1], lines[1])
    hint(as_carol, games["carol"][1])  # hints in a deal not won rank nothing

    standings = api.get(f"/api/v1/races/{race['id']}/standings").json()
    assert standings["status"] == "running"
    assert [
        (r["rank"], r["player"], r["won"], r["unaided"], r["hints"], r["elapsed_ms"])
        for r in standings["results"]
    ] == [
        (1, "bob", 2, 2, 0, 75_000),
        (2, "alice", 2, 1, 2, 15_000),
        (3, "carol", 1, 1, 1, 5_000),
    ]
    results = ContestResult.objects.filter(contest_id=race["id"])
    assert sorted(results.values_list("player__username", "round", "hints")) == [
        ("alice", 1, 2),
        ("alice", 2, 0),
        ("bob", 1, 0),
        ("bob", 2, 0),
        ("carol", 1, 0),
        ("carol", 2, 1),
    ]


def test_an_arena_win_with_hints_scores_below_an_unaided_one(
    now, as_alice, as_bob, api, winning_line
):
    """Alice wins the deal at once with a hint: 80 points, no speed bonus. Bob wins it
    unaided after 20 minutes: 100, no bonus left, and still first, on the arena's table
    and on the ruleset's arena_points boards."""
    from games.dailies import contests as domain

    arena, (line,) = won_contest(
        lambda: domain.arena_create(
            rules="wasp", starts_at=T0, ends_at=T0 + dt.timedelta(hours=1), title="hints"
        ),
        "wasp",
        1,
        winning_line,
    )
    mine = as_alice.post(f"/api/v1/arenas/{arena.id}/play").json()["id"]
    hint(as_alice, mine)
    play(as_alice, mine, line)
    bobs = as_bob.post(f"/api/v1/arenas/{arena.id}/play").json()["id"]
    now.move(minutes=20)
    play(as_bob, bobs, line)

    table = api.get(f"/api/v1/arenas/{arena.id}/standings").json()["results"]
    assert [(r["player"], r["points"], r["won"], r["hints"]) for r in table] == [
        ("bob", 100, 1, 0),
        ("alice", 80, 1, 1),
    ]
    board = api.get("/api/v1/leaderboards/wasp/arena_points").json()["results"]
    assert [(r["rank"], r["player"], r["value"]) for r in board] == [
        (1, "bob", 100),
        (2, "alice", 80),
    ]
    assert api.get(f"/api/v1/arenas/{arena.id}").json()["points"]["aided_win"] == 80


def test_a_players_arena_by_code_listed_or_not(now, as_alice, as_bob, api) -> None:
    body = {"title": "Friday", "rules": "wasp", "countdown": 600, "duration": 3600}
    made = as_alice.post("/api/v1/arenas", {**body, "public": False})
    assert made.status_code == 201, made.content
    arena = made.json()
    assert made["Location"] == f"/api/v1/arenas/{arena['id']}"
    assert (arena["creator"], arena["public"], arena["rules"], arena["status"]) == (
        "alice", False, "wasp", "scheduled",
    )  # fmt: skip
    assert arena["ends_at"] == "2026-11-30T13:10:00.000Z" and len(arena["code"]) == 6
    # Private: listed for its creator only, reached by its code (any case) or its id.
    assert [a["id"] for a in as_alice.get("/api/v1/arenas").json()["results"]] == [arena["id"]]
    assert as_bob.get("/api/v1/arenas").json()["results"] == []
    assert as_bob.get(f"/api/v1/arenas/{arena['code'].lower()}").json()["id"] == arena["id"]
    early = as_bob.post(f"/api/v1/arenas/{arena['code']}/play")
    assert early.status_code == 403 and early.json()["code"] == "contest_not_started"
    now.move(minutes=10)
    played = as_bob.post(f"/api/v1/arenas/{arena['code']}/play")
    assert played.status_code == 201 and played.json()["contest"] == arena["id"]
    assert [a["id"] for a in as_bob.get("/api/v1/arenas").json()["results"]] == [arena["id"]]
    public = as_bob.post("/api/v1/arenas", {**body, "countdown": 0}).json()
    assert {a["id"] for a in api.get("/api/v1/arenas").json()["results"]} == {public["id"]}


def test_creating_an_arena_checks_its_input_and_the_caller(now, as_alice, api) -> None:
    refused = {
        "duration": {"rules": "classic"},
        "rules": {"rules": "chess", "duration": 600},
        "starts_at": {"duration": 600, "starts_at": "2026-11-30T11:00:00Z"},
    }
    for field, body in refused.items():
        answer = as_alice.post("/api/v1/arenas", body)
        assert answer.status_code == 400 and field in answer.json()["fields"], answer.content
    too_long = as_alice.post("/api/v1/arenas", {"duration": 8 * 86400})
    assert too_long.status_code == 400 and "duration" in too_long.json()["fields"]
    assert api.post("/api/v1/arenas", {"duration": 600}).status_code == 401
    guest = api.as_user(api.post("/api/v1/auth/guest").json()["token"])
    as_guest = guest.post("/api/v1/arenas", {"duration": 600})
    assert as_guest.status_code == 403 and as_guest.json()["code"] == "account_required"


def test_the_default_rotation_makes_a_daily_classic_and_a_weekly_wasp_arena(now, api) -> None:
    from django.conf import settings

    from games.writes.schedule import schedule_run

    schedule_run()
    arenas = api.get("/api/v1/arenas?status=running").json()["results"]
    assert sorted((a["rules"], a["ends_at"]) for a in arenas) == [
        ("classic", "2026-12-01T00:00:00.000Z"),
        ("wasp", "2026-12-07T00:00:00.000Z"),
    ]
    assert settings.ARENA_ROTATION == "classic:daily,wasp:weekly"
    coming = api.get("/api/v1/arenas?status=scheduled").json()["results"]
    assert sorted(a["starts_at"] for a in coming) == [
        "2026-12-01T00:00:00.000Z",
        "2026-12-07T00:00:00.000Z",
    ]
