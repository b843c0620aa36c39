"""Closing an account keeps the public record intact (docs/operations.md#closing-an-account):
the public log and the exports name players by pseudonym only; a closure takes the name
from every page, board and future export, keeps the games under the pseudonym, and
changes no export already written."""

import datetime as dt
import gzip
import hashlib

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType

from games import clock
from games.store.models import Account
from games.writes import exports, public_log
from tests.api.test_guests import win
from tests.api.test_public_log import settled

pytestmark = pytest.mark.django_db(transaction=True)

NOVEMBER = dt.datetime(2026, 11, 20, 12, tzinfo=dt.UTC)
DECEMBER = dt.datetime(2026, 12, 10, 12, tzinfo=dt.UTC)


def everything_public(api) -> str:
    """Every page a stranger can read that could name a player, as one text."""
    pages = [
        "/api/v1/games?limit=200",
        "/api/v1/games/live",
        "/api/v1/leaderboards/classic/wins?period=all",
        "/api/v1/leaderboards/classic/best_time?period=all",
        "/api/v1/log?format=scorpion",
        "/api/v1/log?format=json",
    ]
    return "\n".join(api.get(page).content.decode() for page in pages)


def test_a_closed_account_leaves_every_page_board_and_later_export(
    api, alice, bob, settings, tmp_path
):
    settings.EXPORT_DIR = tmp_path
    user, key = alice
    with clock.frozen(NOVEMBER):
        won = win(user)
        resigned = api.as_user(key).post("/api/v1/games", {"seed": 5}).json()["id"]
        api.as_user(key).post(f"/api/v1/games/{resigned}/commands", {"type": "resign"})
        win(bob[0])
    pseudonym = Account.objects.get(user=user).pseudonym
    with clock.frozen(dt.datetime(2026, 12, 1, 1, tzinfo=dt.UTC)):
        november = exports.export_month("2026-11")
    november_file = tmp_path / "2026-11.scorpion.gz"
    before = november_file.read_bytes()
    text = gzip.decompress(before).decode()
    assert november.export.games == 3 and pseudonym in text and "alice" not in text
    board = api.get("/api/v1/leaderboards/classic/wins?period=all").json()["results"]
    assert sorted(row["player"] for row in board) == ["alice", "bob"]
    LogEntry.objects.log_action(
        user_id=bob[0].pk,
        content_type_id=ContentType.objects.get_for_model(get_user_model()).pk,
        object_id=str(user.pk),
        object_repr="alice",
        action_flag=CHANGE,
    )

    wrong = api.as_user(key).post("/api/v1/auth/close", {"password": "not-it-123"})
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password"
    closed = api.as_user(key).post("/api/v1/auth/close", {"password": "pw-alice-123"})
    assert closed.status_code == 204

    assert api.as_user(key).get("/api/v1/auth/me").status_code == 401
    signed_in = api.post("/api/v1/auth/token", {"username": "alice", "password": "pw-alice-123"})
    assert signed_in.status_code == 401
    assert api.get("/api/v1/players/alice").status_code == 404
    public = everything_public(api)
    assert "alice" not in public
    board = api.get("/api/v1/leaderboards/classic/wins?period=all").json()["results"]
    assert [row["player"] for row in board] == ["bob"]  # off the boards, as a ban
    for game in (won, resigned):  # the games stay, under the pseudonym
        body = api.get(f"/api/v1/games/{game}").json()
        assert body["owner"] == pseudonym and body["status"] in ("won", "resigned")
        events = api.get(f"/api/v1/games/{game}/events").json()["results"]
        assert {event["by"] for event in events} == {pseudonym}
    assert api.get(f"/api/v1/players/{pseudonym}").json()["played"] == 2
    row = get_user_model().objects.get(pk=user.pk)
    assert (row.username, row.email, row.is_active, row.has_usable_password()) == (
        pseudonym,
        "",
        False,
        False,
    )
    assert set(LogEntry.objects.values_list("object_repr", flat=True)) == {pseudonym}

    with clock.frozen(DECEMBER):
        win(bob[0])
    public_log.public_log_write()
    settled()
    with clock.frozen(dt.datetime(2027, 1, 1, 1, tzinfo=dt.UTC)):
        december = exports.export_month("2026-12")
    assert december.export.games == 1
    assert "alice" not in gzip.decompress(december.path.read_bytes()).decode()
    # The export published before the closure is as it was: its checksum still holds.
    assert november_file.read_bytes() == before
    checksum = (tmp_path / "2026-11.scorpion.gz.sha256").read_text().split()[0]
    assert hashlib.sha256(november_file.read_bytes()).hexdigest() == checksum
    assert exports.verify(november_file) == 3

    # The name is free again: whoever takes it starts with nothing of the closed account's.
    again = api.post("/api/v1/auth/register", {"username": "alice", "password": "x7-lantern-Q"})
    assert again.status_code == 201
    assert api.get("/api/v1/players/alice").json()["played"] == 0


def test_closing_needs_the_password_and_a_guest_has_none(api, alice):
    guest = api.post("/api/v1/auth/guest").json()
    refused = api.as_user(guest["token"]).post("/api/v1/auth/close", {"password": "anything"})
    assert refused.status_code == 403 and refused.json()["code"] == "wrong_password"
    blank = api.as_user(alice[1]).post("/api/v1/auth/close", {"password": ""})
    assert blank.status_code == 400
    assert api.as_user(alice[1]).get("/api/v1/auth/me").status_code == 200
