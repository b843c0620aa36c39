"""The served OpenAPI document agrees with the API: every route documented, and real
responses (successes and errors) valid against it.

The ``api`` client of conftest validates every response whose status is documented; these
tests make sure each endpoint's success and the main error bodies are among them, and that
the validation would catch a body that drifted from the document.
"""

import datetime as dt
import gzip
import hashlib
import json

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.db import OperationalError, connection
from django.utils.http import urlsafe_base64_encode
from openapi_core.exceptions import OpenAPIError

from games import clock
from games.dailies import challenges as dailies
from games.dailies import contests
from games.dailies.models import DailyChallenge
from games.writes import accounts, mail, services
from games.writes import puzzles as puzzle_writes
from tests.golden import WIN
from tests.puzzle_helpers import make_puzzle

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("/api/v1/auth/register", "post"): ("account_register", 201),
    ("/api/v1/auth/token", "post"): ("token_create", 200),
    ("/api/v1/auth/token", "delete"): ("token_revoke", 204),
    ("/api/v1/auth/me", "get"): ("account_me", 200),
    ("/api/v1/auth/preferences", "get"): ("preferences_get", 200),
    ("/api/v1/auth/preferences", "put"): ("preferences_set", 200),
    ("/api/v1/auth/password", "post"): ("password_change", 200),
    ("/api/v1/auth/keys", "get"): ("key_list", 200),
    ("/api/v1/auth/keys/{key_id}", "delete"): ("key_revoke", 204),
    ("/api/v1/auth/ws-ticket", "post"): ("ws_ticket_create", 201),
    ("/api/v1/auth/guest", "post"): ("guest_play", 201),
    ("/api/v1/auth/keys", "delete"): ("key_revoke_all", 204),
    ("/api/v1/auth/email", "post"): ("email_set", 202),
    ("/api/v1/auth/email", "delete"): ("email_remove", 204),
    ("/api/v1/auth/email/verify", "post"): ("email_verify", 200),
    ("/api/v1/auth/password/reset", "post"): ("password_reset", 202),
    ("/api/v1/auth/password/reset/confirm", "post"): ("password_reset_confirm", 200),
    ("/api/v1/auth/data", "get"): ("account_data", 200),
    ("/api/v1/auth/close", "post"): ("account_close", 204),
    ("/api/v1/players/{username}", "get"): ("player_get", 200),
    ("/api/v1/players/{username}/ratings", "get"): ("player_ratings", 200),
    ("/api/v1/players/{username}/stats/{rules}", "get"): ("player_stats", 200),
    ("/api/v1/players/{username}/ratings/{rules}", "get"): ("player_rating", 200),
    ("/api/v1/rules", "get"): ("rules_list", 200),
    ("/api/v1/games", "get"): ("game_list", 200),
    ("/api/v1/games", "post"): ("game_create", 201),
    ("/api/v1/games/{game_id}", "get"): ("game_get", 200),
    ("/api/v1/games/{game_id}/commands", "post"): ("game_command", 201),
    ("/api/v1/games/{game_id}/events", "get"): ("game_events", 200),
    ("/api/v1/games/{game_id}/moves", "get"): ("game_moves", 200),
    ("/api/v1/games/{game_id}/hint", "get"): ("game_hint", 200),
    ("/api/v1/games/{game_id}/hints", "post"): ("game_hint_take", 200),
    ("/api/v1/games/{game_id}/finish", "get"): ("game_finish", 200),
    ("/api/v1/games/{game_id}/analysis", "get"): ("game_analysis", 200),
    ("/api/v1/games/{game_id}/states/{version}", "get"): ("game_state", 200),
    ("/api/v1/games/live", "get"): ("game_live", 200),
    ("/api/v1/tv", "get"): ("tv_get", 200),
    ("/api/v1/challenges", "get"): ("challenge_month", 200),
    ("/api/v1/challenges/{date}/solution/{step}", "get"): ("challenge_solution", 200),
    ("/api/v1/challenges/today", "get"): ("challenge_today", 200),
    ("/api/v1/challenges/{date}", "get"): ("challenge_get", 200),
    ("/api/v1/challenges/{date}/join", "post"): ("challenge_join", 201),
    ("/api/v1/challenges/{date}/standings", "get"): ("challenge_standings", 200),
    ("/api/v1/challenges/{date}/stakes", "get"): ("challenge_stakes", 200),
    ("/api/v1/leaderboards", "get"): ("leaderboards_list", 200),
    ("/api/v1/leaderboards/{scope}/{metric}", "get"): ("leaderboard_get", 200),
    ("/api/v1/races", "get"): ("race_list", 200),
    ("/api/v1/races", "post"): ("race_create", 201),
    ("/api/v1/races/{race}", "get"): ("race_get", 200),
    ("/api/v1/races/{race}/join", "post"): ("race_join", 201),
    ("/api/v1/races/{race}/games", "get"): ("race_games", 200),
    ("/api/v1/races/{race}/games", "post"): ("race_deal", 201),
    ("/api/v1/races/{race}/standings", "get"): ("race_standings", 200),
    ("/api/v1/arenas", "get"): ("arena_list", 200),
    ("/api/v1/arenas", "post"): ("arena_create", 201),
    ("/api/v1/arenas/{arena}", "get"): ("arena_get", 200),
    ("/api/v1/arenas/{arena}/play", "post"): ("arena_play", 201),
    ("/api/v1/arenas/{arena}/games", "get"): ("arena_games", 200),
    ("/api/v1/arenas/{arena}/standings", "get"): ("arena_standings", 200),
    ("/api/v1/log", "get"): ("log_page", 200),
    ("/api/v1/log/stream", "get"): ("log_stream", 200),
    ("/api/v1/exports", "get"): ("export_list", 200),
    ("/api/v1/exports/{name}", "get"): ("export_get", 200),
    ("/api/v1/puzzles/next", "post"): ("puzzle_next", 200),
    ("/api/v1/puzzles/themes", "get"): ("puzzle_themes", 200),
    ("/api/v1/puzzles/daily", "get"): ("puzzle_day", 200),
    ("/api/v1/puzzles/daily", "post"): ("puzzle_day_play", 200),
    ("/api/v1/puzzles/streak", "get"): ("puzzle_streak", 200),
    ("/api/v1/puzzles/streak", "post"): ("puzzle_streak_play", 200),
    ("/api/v1/puzzles/attempts/{attempt}", "get"): ("puzzle_attempt", 200),
    ("/api/v1/puzzles/attempts/{attempt}/moves", "post"): ("puzzle_move", 200),
    ("/api/v1/puzzles/attempts/{attempt}/give-up", "post"): ("puzzle_give_up", 200),
    ("/api/v1/puzzles/exports", "get"): ("puzzle_export_list", 200),
    ("/api/v1/puzzles/exports/{name}", "get"): ("puzzle_export_get", 200),
    ("/api/v1/players/{username}/puzzles", "get"): ("puzzle_dashboard", 200),
}
FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


@pytest.fixture(scope="module")
def document(openapi):
    """The served document as plain JSON."""
    with (openapi.spec / "").open() as contents:
        return json.loads(json.dumps(contents))


def test_every_route_is_documented_with_its_operation_id(document):
    documented = {
        (path, method): operation["operationId"]
        for path, item in document["paths"].items()
        for method, operation in item.items()
    }

    assert documented == {key: operation for key, (operation, _) in OPERATIONS.items()}


def test_every_operation_documents_its_errors_with_the_error_schema(document):
    for (path, method), (_, success) in OPERATIONS.items():
        responses = document["paths"][path][method]["responses"]
        assert str(success) in responses
        assert {"429", "503"} <= set(responses), (path, method)
        for status, response in responses.items():
            if status.startswith(("4", "5")):
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}
    commands = document["paths"]["/api/v1/games/{game_id}/commands"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "422"} <= set(commands)


def test_the_game_schema_declares_exactly_the_keys_games_carry(document, as_staff, alice):
    stream = services.game_create(owner=alice[0], rules="three_blind_mice", seed=6)
    game = as_staff.get(f"/api/v1/games/{stream.game_id}").json()  # with cells, reserve_cards

    schema = document["components"]["schemas"]["Game"]
    # contest games only; games dealt from a winnable pool only
    assert set(schema["properties"]) - set(game) == {"contest", "round", "certified", "rating"}
    assert set(schema["required"]) == set(game) - {"cells", "reserve_cards"}


def test_the_event_and_error_schemas_declare_their_keys(document):
    schemas = document["components"]["schemas"]
    assert set(schemas["Event"]["properties"]) == {
        "seq",
        "type",
        "data",
        "by",
        "at",
        "effects",
        "card",
    }
    assert set(schemas["Effects"]["properties"]) == {"points", "flipped", "removed", "undid"}
    assert set(schemas["Error"]["properties"]) == {
        "code",
        "detail",
        "fields",
        "version",
        "request_id",
    }
    assert sorted(schemas["Error"]["required"]) == ["code", "detail"]


def test_every_success_body_validates(api, alice, bob, sample_deal, settings, tmp_path):
    anyone = api
    game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id
    base = f"/api/v1/games/{game_id}"

    anyone.post("/api/v1/auth/register", {"username": "carol", "password": "x7-lantern-Q"})
    signed_in = anyone.post("/api/v1/auth/token", {"username": "alice", "password": "pw-alice-123"})
    session = api.as_user(signed_in.json()["token"])
    session.get("/api/v1/auth/me")
    session.get("/api/v1/auth/preferences")
    session.put(
        "/api/v1/auth/preferences",
        {
            "card_size": "small",
            "theme": "dark",
            "sound": True,
            "animations": False,
            "auto_finish": True,
        },
    )
    keys = session.get("/api/v1/auth/keys").json()["results"]
    session.post("/api/v1/auth/ws-ticket")
    session.delete(f"/api/v1/auth/keys/{next(k['id'] for k in keys if not k['current'])}")
    session.post(
        "/api/v1/auth/password", {"password": "pw-alice-123", "new_password": "n3w-Lantern-x"}
    )
    player = api.as_user(
        anyone.post(
            "/api/v1/auth/token", {"username": "alice", "password": "n3w-Lantern-x"}
        ).json()["token"]
    )
    api.as_user(
        anyone.post(
            "/api/v1/auth/token", {"username": "alice", "password": "n3w-Lantern-x"}
        ).json()["token"]
    ).delete("/api/v1/auth/token")
    anyone.get("/api/v1/players/alice")
    anyone.get("/api/v1/rules")
    player.post("/api/v1/games", {"rules": "double", "seed": 3})
    anyone.get("/api/v1/games?limit=1")
    player.post(f"{base}/commands", FIRST_MOVE, headers={"Idempotency-Key": "one"})
    player.post(f"{base}/commands", FIRST_MOVE, headers={"Idempotency-Key": "one"})
    anyone.get(base)
    anyone.get(base, headers={"If-None-Match": '"2"'})
    anyone.get(f"{base}/events?after=1")
    anyone.get(f"{base}/moves")
    anyone.get(f"{base}/hint")
    player.post(f"{base}/hints")
    anyone.get(f"{base}/states/1")
    player.post(f"{base}/commands", {"type": "resign"})
    anyone.get(f"{base}/hint")  # {"move": null}
    player.get(f"{base}/finish")  # 409: over
    ready = services.game_create(owner=alice[0], rules="classic", seed=WIN["seed"])
    for command in WIN["actions"][:-3]:  # every card face up, the reserve dealt
        services.game_command(game_id=ready.game_id, actor=alice[0], command=command)
    player.get(f"/api/v1/games/{ready.game_id}/finish")
    anyone.get(f"{base}/analysis")
    anyone.get(f"{base}/states/2")  # revealed
    dailies.prepare(dailies.today())  # as the scheduled job would
    anyone.get("/api/v1/challenges/today")
    player.get("/api/v1/challenges/today/stakes")
    player.post("/api/v1/challenges/today/join")
    player.post("/api/v1/challenges/today/join")  # 200: joined before
    anyone.get("/api/v1/players/alice/stats/classic")
    anyone.get("/api/v1/players/alice/ratings")  # the daily game made a classic rating
    anyone.get("/api/v1/players/alice/ratings/classic?limit=1")
    anyone.get("/api/v1/challenges/today/standings")
    anyone.get(f"/api/v1/challenges/{dailies.today().isoformat()}")
    yesterday = dailies.today() - dt.timedelta(days=1)
    DailyChallenge.objects.create(
        date=yesterday, rules="classic", seed=0, solution=[{"type": "deal"}], created_at=clock.now()
    )
    player.get("/api/v1/challenges")
    anyone.get(f"/api/v1/challenges?month={yesterday:%Y-%m}")
    anyone.get(f"/api/v1/challenges/{yesterday}/solution/1")
    anyone.get("/api/v1/games/live")
    anyone.get("/api/v1/tv")
    anyone.get("/api/v1/leaderboards")
    player.get("/api/v1/leaderboards/classic/wins?period=week")
    later = player.post("/api/v1/races", {"countdown": 60, "time_limit": 60}).json()
    now = player.post("/api/v1/races", {"countdown": 0, "time_limit": 60, "deals": 2}).json()
    api.as_user(bob[1]).post(f"/api/v1/races/{later['code']}/join")
    anyone.get("/api/v1/races")
    anyone.get(f"/api/v1/races/{later['code']}")
    player.post(f"/api/v1/races/{now['id']}/games")
    player.get(f"/api/v1/races/{now['id']}/games")
    anyone.get(f"/api/v1/races/{now['id']}/standings")
    arena = contests.arena_create(
        rules="classic",
        starts_at=clock.now() - dt.timedelta(hours=1),
        ends_at=clock.now() + dt.timedelta(hours=1),
    )
    player.post("/api/v1/arenas", {"duration": 600, "public": False})
    anyone.get("/api/v1/arenas")
    anyone.get(f"/api/v1/arenas/{arena.id}")
    player.post(f"/api/v1/arenas/{arena.id}/play")
    player.get(f"/api/v1/arenas/{arena.id}/games")
    anyone.get(f"/api/v1/arenas/{arena.id}/standings")
    anyone.get("/api/v1/log?format=json")
    settings.LOG_STREAM_SECONDS, settings.LOG_POLL_SECONDS = 1, 0.1
    anyone.get("/api/v1/log/stream?format=json")  # ends within the second
    settings.EXPORT_DIR = tmp_path  # an export as manage.py export_games leaves it
    gzipped = gzip.compress(b"")
    (tmp_path / "2026-11.scorpion.gz").write_bytes(gzipped)
    digest = hashlib.sha256(gzipped).hexdigest()
    (tmp_path / "2026-11.scorpion.gz.sha256").write_text(f"{digest}  2026-11.scorpion.gz\n")
    manifest = {"month": "2026-11", "games": 0, "bytes": len(gzipped), "sha256": digest}
    (tmp_path / "2026-11.json").write_text(json.dumps(manifest))
    assert anyone.get("/api/v1/exports").json()["results"][0]["sha256"] == digest
    assert b"".join(anyone.get("/api/v1/exports/2026-11.scorpion.gz").streaming_content) == gzipped
    anyone.get("/api/v1/exports/2026-11.scorpion.gz.sha256")
    # Puzzles: a rated one played, one given up, the day's, a streak, the dashboard.
    for name in ("hidden_only_move", "open_two_ways", "reveal_then_open"):
        make_puzzle(name)
    anyone.get("/api/v1/puzzles/themes")
    attempt = player.post("/api/v1/puzzles/next").json()
    player.get(f"/api/v1/puzzles/attempts/{attempt['id']}")
    player.post(f"/api/v1/puzzles/attempts/{attempt['id']}/moves", attempt["legal"][0])
    other = player.post("/api/v1/puzzles/next").json()
    player.post(f"/api/v1/puzzles/attempts/{other['id']}/give-up")
    player.post("/api/v1/puzzles/streak")
    player.get("/api/v1/puzzles/streak")
    puzzle_writes.puzzle_days_prepare(clock.now().date())
    anyone.get("/api/v1/puzzles/daily")
    player.post("/api/v1/puzzles/daily")
    anyone.get("/api/v1/players/alice/puzzles")
    settings.PUZZLE_EXPORT_DIR = tmp_path
    (tmp_path / "2026-11.puzzles.csv.gz").write_bytes(gzipped)
    (tmp_path / "2026-11.puzzles.csv.gz.sha256").write_text(f"{digest}  2026-11.puzzles.csv.gz\n")
    manifest = {"month": "2026-11", "puzzles": 0, "bytes": len(gzipped), "sha256": digest}
    (tmp_path / "2026-11.puzzles.json").write_text(json.dumps(manifest))
    assert anyone.get("/api/v1/puzzles/exports").json()["results"][0]["puzzles"] == 0
    anyone.get("/api/v1/puzzles/exports/2026-11.puzzles.csv.gz")
    anyone.get("/api/v1/puzzles/exports/2026-11.puzzles.csv.gz.sha256")
    player.get("/api/v1/auth/data")
    player.get("/api/v1/auth/data?format=ndjson")
    anyone.post("/api/v1/auth/guest")
    player.post("/api/v1/auth/email", {"email": "alice@example.com"})
    token = mail.verify_token(user_id=alice[0].pk, email="alice@example.com", current="")
    anyone.post("/api/v1/auth/email/verify", {"token": token})
    anyone.post("/api/v1/auth/password/reset", {"email": "alice@example.com"})
    player.delete("/api/v1/auth/email")
    dave = get_user_model().objects.create_user("dave", password="pw-dave-123")
    link = {
        "uid": urlsafe_base64_encode(str(dave.pk).encode()),
        "token": default_token_generator.make_token(dave),
    }
    anyone.post("/api/v1/auth/password/reset/confirm", {**link, "new_password": "x7-Harbour-q"})
    api.as_user(bob[1]).delete("/api/v1/auth/keys")
    erin = api.as_user(
        accounts.key_issue(
            user=get_user_model().objects.create_user("erin", password="pw-erin-123")
        )
    )
    erin.post("/api/v1/auth/close", {"password": "pw-erin-123"})

    successes = {(path, method, status) for path, method, status in api.validated}
    assert {(*key, status) for key, (_, status) in OPERATIONS.items()} <= successes
    assert ("/api/v1/games/{game_id}", "get", 304) in api.validated
    assert ("/api/v1/challenges/{date}/join", "post", 200) in api.validated


def test_error_bodies_validate(api, alice, bob, sample_deal, settings):
    player, stranger = api.as_user(alice[1]), api.as_user(bob[1])
    game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id
    private = services.game_create(owner=alice[0], seed=1, public=False).game_id
    commands = f"/api/v1/games/{game_id}/commands"

    statuses = [
        player.post("/api/v1/games", {"seed": "x"}).status_code,  # 400 with fields
        api.post("/api/v1/auth/token", {"username": "alice", "password": "no"}).status_code,
        api.post(commands, FIRST_MOVE).status_code,  # 401
        stranger.post(commands, FIRST_MOVE).status_code,  # 403 not_owner
        api.get(f"/api/v1/games/{private}").status_code,  # 403 private_game
        api.get("/api/v1/games/00000000-0000-4000-8000-000000000000").status_code,  # 404
        player.post(commands, {**FIRST_MOVE, "card": "KS"}).status_code,  # 409 stale_card
        player.post(commands, {**FIRST_MOVE, "expected_version": 7}).status_code,  # 409
        player.post(commands, {**FIRST_MOVE, "to": 1}).status_code,  # 422
        player.get(f"/api/v1/games/{game_id}/states/9").status_code,  # 404
    ]
    with connection.execute_wrapper(_refuse):
        statuses.append(api.get("/api/v1/games").status_code)  # 503

    assert statuses == [400, 401, 401, 403, 403, 404, 409, 409, 422, 404, 503]
    validated = {status for _, _, status in api.validated}
    assert {400, 401, 403, 404, 409, 422, 503} <= validated


def _refuse(execute, sql, params, many, context):
    error = OperationalError("connection refused")
    error.__cause__ = psycopg.OperationalError("connection refused")
    raise error


@pytest.mark.parametrize(
    "drift",
    [{"status": "sleeping"}, {"score": "lots"}, {"columns": None}, {"version": None}],
)
def test_a_body_that_drifted_from_the_document_fails_validation(as_alice, alice, drift):
    game_id = services.game_create(owner=alice[0], seed=1).game_id
    response = as_alice.get(f"/api/v1/games/{game_id}")
    response.content = json.dumps({**response.json(), **drift}).encode()

    with pytest.raises(OpenAPIError):
        as_alice.check(response)
