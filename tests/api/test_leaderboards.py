"""Leaderboards over REST: the boards a win reaches, ranks with ties, pages by cursor, the
caller's own row wherever it stands, moderation, periods, and the error codes."""

import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest

from games import clock
from games.writes import moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

#: Monday 30 November 2026 (ISO week 49), 12:00 UTC.
NOON = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
BOARD = "/api/v1/leaderboards"


@pytest.fixture(autouse=True)
def _noon():
    with clock.frozen(NOON):
        yield


def win(user, start: dt.datetime, step: dt.timedelta = dt.timedelta(seconds=2)):
    """A classic game won by ``user`` (through the services: the reads are what is tested
    here), its actions ``step`` apart from ``start``: its time is 49 steps."""
    with clock.frozen(start - dt.timedelta(minutes=1)):
        game = services.game_create(owner=user, rules="classic", seed=WIN["seed"]).game_id
    for number, command in enumerate(WIN["actions"]):
        with clock.frozen(start + number * step):
            services.game_command(game_id=game, actor=user, command=command)
    return game


def resign(user, at: dt.datetime):
    with clock.frozen(at):
        game = services.game_create(owner=user, rules="classic", seed=4).game_id
        services.game_command(game_id=game, actor=user, command={"type": "resign"})
    return game


def rows(body) -> list[tuple[int, str, int]]:
    return [(row["rank"], row["player"], row["value"]) for row in body["results"]]


def test_a_game_won_over_rest_reaches_its_boards(api, alice, as_alice, as_bob) -> None:
    game = as_alice.post("/api/v1/games", {"rules": "classic", "seed": WIN["seed"]}).json()["id"]
    for number, command in enumerate(WIN["actions"]):
        with clock.frozen(NOON + dt.timedelta(seconds=number)):
            assert as_alice.post(f"/api/v1/games/{game}/commands", command).status_code == 201

    wins = api.get(f"{BOARD}/classic/wins")
    assert wins.status_code == 200
    assert wins.json() == {
        "scope": "classic",
        "metric": "wins",
        "period": "all",
        "key": "all",
        "starts_at": None,
        "ends_at": None,
        "results": [
            {
                "rank": 1,
                "player": "alice",
                "value": 1,
                "reached_at": "2026-11-30T12:00:49.000Z",
                "game": None,
            }
        ],
        "next": None,
        "me": None,
    }
    best = as_bob.get(f"{BOARD}/classic/best_time?period=week").json()
    assert (best["key"], best["starts_at"], best["ends_at"]) == (
        "2026-W49",
        "2026-11-30T00:00:00.000Z",
        "2026-12-07T00:00:00.000Z",
    )
    assert rows(best) == [(1, "alice", 49_000)]
    assert best["results"][0]["game"] == game  # a public game: anyone may read it
    assert best["me"] is None  # bob is on no board
    mine = as_alice.get(f"{BOARD}/classic/streak?period=month").json()
    assert mine["key"] == "2026-11" and mine["me"] == mine["results"][0]
    assert mine["me"]["value"] == 1
    # Not on the boards of other scopes or periods.
    assert api.get(f"{BOARD}/daily/wins").json()["results"] == []
    assert api.get(f"{BOARD}/cards4/wins").json()["results"] == []
    assert api.get(f"{BOARD}/classic/wins?period=week&at=2026-W48").json()["results"] == []
    assert api.get(f"{BOARD}/classic/wins?period=month&at=2026-12-01").json()["key"] == "2026-12"


def test_the_boards_index(api) -> None:
    body = api.get(BOARD).json()
    assert body["scopes"][0] == "daily" and "classic" in body["scopes"]
    assert body["metrics"] == ["wins", "best_time", "streak", "arena_points", "rating"]
    assert body["periods"] == ["all", "month", "week"]


@pytest.fixture
def field(player):
    """Six players: ann 3 wins; bea, cat, dan 1 win each, in that order; eve only lost; fay
    never finished a game."""
    users = {name: player(name) for name in ("ann", "bea", "cat", "dan", "eve", "fay")}
    hour = dt.timedelta(hours=1)
    win(users["ann"][0], NOON - 9 * hour, step=dt.timedelta(seconds=3))
    win(users["ann"][0], NOON - 8 * hour)
    win(users["bea"][0], NOON - 7 * hour, step=dt.timedelta(seconds=1))
    win(users["cat"][0], NOON - 6 * hour)  # cat and dan: the same time
    win(users["dan"][0], NOON - 5 * hour)
    win(users["ann"][0], NOON - 4 * hour, step=dt.timedelta(seconds=3))
    resign(users["eve"][0], NOON - 3 * hour)
    return users


def test_ties_share_a_rank_and_pages_follow_the_order(api, field) -> None:
    first = api.get(f"{BOARD}/classic/wins?limit=2").json()
    assert rows(first) == [(1, "ann", 3), (2, "bea", 1)]
    query = parse_qs(urlsplit(first["next"]).query)
    assert query["limit"] == ["2"] and query["period"] == ["all"] and query["at"] == ["all"]
    second = api.get(first["next"]).json()
    assert rows(second) == [(2, "cat", 1), (2, "dan", 1)]  # equal wins: who got there first
    assert second["next"] is None

    times = api.get(f"{BOARD}/classic/best_time").json()
    assert rows(times) == [
        (1, "bea", 49_000),
        (2, "ann", 98_000),  # ann's best of three; she reached it before cat and dan
        (2, "cat", 98_000),
        (2, "dan", 98_000),
    ]
    streaks = api.get(f"{BOARD}/classic/streak").json()
    assert rows(streaks) == [(1, "ann", 3), (2, "bea", 1), (2, "cat", 1), (2, "dan", 1)]


def test_the_callers_row_shows_its_rank_off_the_page(api, field) -> None:
    as_dan = api.as_user(field["dan"][1])
    page = as_dan.get(f"{BOARD}/classic/wins?limit=1").json()
    assert rows(page) == [(1, "ann", 3)]
    assert page["me"] == {
        "rank": 2,
        "player": "dan",
        "value": 1,
        "reached_at": page["me"]["reached_at"],
        "game": None,
    }
    assert as_dan.get(f"{BOARD}/classic/best_time?limit=1").json()["me"]["rank"] == 2
    # Whoever is on no board has no row: eve lost, fay never finished.
    for name in ("eve", "fay"):
        assert api.as_user(field[name][1]).get(f"{BOARD}/classic/wins").json()["me"] is None


def test_banned_players_and_voided_results_leave_the_boards(api, field, staff) -> None:
    moderator = staff[0]
    moderation.player_ban(player=field["bea"][0], moderator=moderator, reason="bot")
    body = api.as_user(field["bea"][1]).get(f"{BOARD}/classic/best_time").json()
    assert rows(body) == [(1, "ann", 98_000), (1, "cat", 98_000), (1, "dan", 98_000)]
    assert body["me"] is None
    ann_games = services_games(field["ann"][0])
    moderation.result_void(game_id=ann_games[1], moderator=moderator, reason="shared deal")
    assert rows(api.get(f"{BOARD}/classic/wins").json()) == [
        (1, "ann", 2),
        (2, "cat", 1),
        (2, "dan", 1),
    ]
    # The voided win leaves the run: the two around it are consecutive now.
    assert rows(api.get(f"{BOARD}/classic/streak").json())[0] == (1, "ann", 2)
    assert rows(api.get(f"{BOARD}/classic/best_time").json())[-1] == (
        3,
        "ann",
        147_000,
    )  # bea is banned
    moderation.player_unban(player=field["bea"][0], moderator=moderator, reason="appeal")
    moderation.result_restore(game_id=ann_games[1], moderator=moderator, reason="cleared")
    assert rows(api.get(f"{BOARD}/classic/best_time").json())[0] == (1, "bea", 49_000)
    assert rows(api.get(f"{BOARD}/classic/streak").json())[0] == (1, "ann", 3)


def services_games(user) -> list[str]:
    """The ids of ``user``'s games, oldest first."""
    from games.store.models import Game

    return [
        str(game)
        for game in Game.objects.filter(owner=user)
        .order_by("created_at")
        .values_list("id", flat=True)
    ]


def test_a_private_best_game_is_linked_only_for_who_may_read_it(api, alice) -> None:
    with clock.frozen(NOON):
        game = services.game_create(
            owner=alice[0], rules="classic", seed=WIN["seed"], public=False
        ).game_id
        for command in WIN["actions"]:
            services.game_command(game_id=game, actor=alice[0], command=command)
    assert api.get(f"{BOARD}/classic/best_time").json()["results"][0]["game"] is None
    mine = api.as_user(alice[1]).get(f"{BOARD}/classic/best_time").json()
    assert mine["results"][0]["game"] == str(game) == mine["me"]["game"]


@pytest.mark.parametrize(
    ("path", "status", "code", "field_name"),
    [
        (f"{BOARD}/chess/wins", 404, "unknown_scope", None),
        (f"{BOARD}/classic/elo", 404, "unknown_metric", None),
        (f"{BOARD}/daily/arena_points", 404, "unknown_metric", None),
        (f"{BOARD}/daily/wins?period=year", 400, "invalid", "period"),
        (f"{BOARD}/daily/wins?period=month&at=2026-13", 400, "invalid", "at"),
        (f"{BOARD}/daily/wins?period=week&at=2026-11", 400, "invalid", "at"),
        (f"{BOARD}/daily/wins?at=2026-W48", 400, "invalid", "at"),
        (f"{BOARD}/daily/wins?cursor=bm90IGEgY3Vyc29y", 400, "invalid", "cursor"),
        (f"{BOARD}/daily/wins?cursor=WzEsICJ4IiwgMl0=", 400, "invalid", "cursor"),
        (f"{BOARD}/daily/wins?limit=0", 400, "invalid", "limit"),
        (f"{BOARD}/daily", 404, "not_found", None),
    ],
)
def test_errors_have_codes(api, path, status, code, field_name) -> None:
    response = api.get(path)
    assert response.status_code == status
    body = response.json()
    assert body["code"] == code
    if field_name is not None:
        assert list(body["fields"]) == [field_name]


def test_errors_follow_accept_language(api) -> None:
    italian = api.in_language("it").get(f"{BOARD}/chess/wins")
    assert italian.json() == {
        "code": "unknown_scope",
        "detail": "Non esiste questo ambito di classifica: usa daily o il nome di un regolamento.",
    }
    assert italian["Content-Language"] == "it"
    spanish = api.in_language("es").get(f"{BOARD}/daily/wins?period=week&at=x").json()
    assert spanish["fields"]["at"][0].startswith("No es un periodo")


@pytest.fixture
def arena_season(player, monkeypatch):
    """An arena of Friday 27 November to Thursday 3 December dealing WIN's deal (the seed
    derivation is tested elsewhere): ann 144 on Saturday (week 48) and 20 on Tuesday 1
    December; bea 147 and dan 147 (dan later, same week 49); cat 10, still playing."""
    from games.dailies import contests as domain
    from games.dailies import secrets
    from games.writes import contests

    monkeypatch.setattr(secrets, "contest_seed", lambda contest, round_: WIN["seed"])
    users = {name: player(name) for name in ("ann", "bea", "cat", "dan", "eve")}
    start = dt.datetime(2026, 11, 27, tzinfo=dt.UTC)
    arena = domain.arena_create(
        rules="classic", starts_at=start, ends_at=start + dt.timedelta(days=6)
    )

    def deal(name: str, at: dt.datetime, actions: list[dict[str, object]], step: float) -> str:
        user = users[name][0]
        with clock.frozen(at):
            game = contests.arena_play(arena=arena, player=user)[0].game_id
        for number, command in enumerate(actions):
            with clock.frozen(at + number * dt.timedelta(seconds=step)):
                services.game_command(game_id=game, actor=user, command=command)
        return str(game)

    sat = dt.datetime(2026, 11, 28, 10, tzinfo=dt.UTC)
    tue = dt.datetime(2026, 12, 1, 10, tzinfo=dt.UTC)
    deal("ann", sat, WIN["actions"], 2)  # 100 + 50 - 98 s // 15 s = 144
    deal("ann", tue, [*WIN["actions"][:46], {"type": "resign"}], 2)  # two runs: 20
    bea = deal("bea", NOON - dt.timedelta(hours=2), WIN["actions"], 1)  # 147
    deal("dan", NOON - dt.timedelta(hours=1), WIN["actions"], 1)  # 147, later
    deal("cat", NOON, WIN["actions"][:38], 1)  # one run, still playing: 10
    return {"users": users, "bea": bea}


def test_arena_points_rank_players_by_their_total(api, arena_season, staff) -> None:
    users = arena_season["users"]
    everyone = api.get(f"{BOARD}/classic/arena_points?period=all").json()
    assert (everyone["metric"], everyone["key"]) == ("arena_points", "all")
    assert rows(everyone) == [(1, "ann", 164), (2, "bea", 147), (2, "dan", 147), (4, "cat", 10)]
    assert everyone["results"][0]["reached_at"] == "2026-12-01T10:01:32.000Z"  # the resign
    assert all(row["game"] is None for row in everyone["results"])
    as_dan = api.as_user(users["dan"][1])
    week = as_dan.get(f"{BOARD}/classic/arena_points?period=week&limit=1").json()
    assert week["key"] == "2026-W49" and rows(week) == [(1, "bea", 147)]
    assert (week["me"]["rank"], week["me"]["value"]) == (1, 147)  # a tie shares the rank
    rest = as_dan.get(week["next"]).json()
    assert rows(rest) == [(1, "dan", 147)] and rest["me"] == week["me"]
    assert rows(as_dan.get(rest["next"]).json()) == [(3, "ann", 20)]
    month = api.get(f"{BOARD}/classic/arena_points?period=month").json()
    assert month["key"] == "2026-11"
    assert rows(month) == [(1, "bea", 147), (1, "dan", 147), (3, "ann", 144), (4, "cat", 10)]
    december = api.get(f"{BOARD}/classic/arena_points?period=month&at=2026-12").json()
    assert rows(december) == [(1, "ann", 20)]
    earlier = api.get(f"{BOARD}/classic/arena_points?period=week&at=2026-W48").json()
    assert rows(earlier) == [(1, "ann", 144)]
    assert api.get(f"{BOARD}/wasp/arena_points").json()["results"] == []
    # eve never played an arena: no row of hers.
    assert api.as_user(users["eve"][1]).get(f"{BOARD}/classic/arena_points").json()["me"] is None

    # A voided deal leaves the totals; restored, it comes back.
    moderator = staff[0]
    moderation.result_void(game_id=arena_season["bea"], moderator=moderator, reason="shared")
    assert rows(api.get(f"{BOARD}/classic/arena_points").json()) == [
        (1, "ann", 164),
        (2, "dan", 147),
        (3, "cat", 10),
    ]
    as_bea = api.as_user(users["bea"][1])
    assert as_bea.get(f"{BOARD}/classic/arena_points").json()["me"] is None
    moderation.result_restore(game_id=arena_season["bea"], moderator=moderator, reason="ok")
    assert as_bea.get(f"{BOARD}/classic/arena_points").json()["me"]["rank"] == 2
