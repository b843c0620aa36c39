"""A game in the notation over REST: ``GET /games/{id}`` with ``Accept: text/x-scorpion`` or
``?format=scorpion`` (docs/api.md#the-notation).

The text served is the game's stored stream exactly (read back, its events, times and
authors are the rows'); JSON clients are answered as before; errors stay JSON; and the
notation, which names the deal, is refused wherever the game's hidden cards may not be
shown (the whole matrix is in test_visibility_matrix.py).
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest

from games import clock
from games.dailies.models import DailyChallenge
from games.store.models import Event
from games.store.notation import NotationError, read
from games.writes import moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

NOTATION = "text/x-scorpion"


def play(game_id: Any, owner: Any, commands: list[dict[str, Any]]) -> None:
    for command in commands:
        services.game_command(game_id=game_id, actor=owner, command=command)


@pytest.fixture
def won(alice):
    """Alice's won game of classic seed 0, voided by a moderator, then restored."""
    user, _ = alice
    game_id = services.game_create(owner=user, rules="classic", seed=0).game_id
    play(game_id, user, WIN["actions"])
    mod = type(user).objects.create_user("mod", is_staff=True)
    moderation.result_void(game_id=game_id, moderator=mod, reason='a "bot"?')
    moderation.result_restore(game_id=game_id, moderator=mod, reason="no")
    return game_id


def test_a_finished_game_is_served_as_its_stored_stream(api, won) -> None:
    response = api.get(f"/api/v1/games/{won}", headers={"Accept": NOTATION})
    assert response.status_code == 200
    assert response["Content-Type"] == f"{NOTATION}; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{won}.scorpion"'
    (game,) = read(io.StringIO(response.content.decode()))
    rows = list(Event.objects.filter(game_id=won).select_related("actor").order_by("seq"))
    assert [(e.event.TYPE, e.event.to_json()) for e in game.entries] == [
        (row.type, row.data) for row in rows
    ]
    assert [entry.at for entry in game.entries] == [
        row.at.replace(microsecond=row.at.microsecond // 1000 * 1000) for row in rows
    ]
    assert [entry.by for entry in game.entries] == [row.actor.username for row in rows]
    assert (game.game_id, game.player) == (won, "alice")
    assert '[Result "won"]' in response.content.decode()


def test_format_scorpion_is_the_same_text(api, won) -> None:
    by_accept = api.get(f"/api/v1/games/{won}", headers={"Accept": NOTATION})
    by_format = api.get(f"/api/v1/games/{won}?format=scorpion")
    assert by_format.status_code == 200
    assert by_format.content == by_accept.content
    assert by_format["Content-Type"].startswith(NOTATION)


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "*/*",
        "application/json",
        "application/json, text/plain, */*",  # axios, by default
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",  # a browser
        "text/x-scorpion, application/json",
    ],
)
def test_json_clients_get_json_as_before(api, won, accept) -> None:
    headers = {} if accept is None else {"Accept": accept}
    response = api.get(f"/api/v1/games/{won}", headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["status"] == "won"
    assert response["ETag"] == f'"{response.json()["version"]}"'
    assert "Accept" in response["Vary"]
    assert api.get(f"/api/v1/games/{won}?format=json").json() == response.json()


def test_the_notation_has_its_own_etag(api, won) -> None:
    text = api.get(f"/api/v1/games/{won}", headers={"Accept": NOTATION})
    body = api.get(f"/api/v1/games/{won}").json()
    assert text["ETag"] == f'"{body["version"]}-scorpion"'
    assert "Accept" in text["Vary"]
    again = api.get(
        f"/api/v1/games/{won}", headers={"Accept": NOTATION, "If-None-Match": text["ETag"]}
    )
    assert (again.status_code, again.content) == (304, b"")
    json_etag = {"Accept": NOTATION, "If-None-Match": f'"{body["version"]}"'}
    assert api.get(f"/api/v1/games/{won}", headers=json_etag).status_code == 200


def test_a_game_in_play_is_refused_to_its_owner_and_served_to_staff(as_alice, as_staff, alice):
    user, _ = alice
    game_id = services.game_create(owner=user, rules="classic", seed=0).game_id
    play(game_id, user, WIN["actions"][:3])
    refused = as_alice.get(f"/api/v1/games/{game_id}?format=scorpion")
    assert refused.status_code == 409
    assert refused["Content-Type"] == "application/json"
    assert refused.json() == {
        "code": "game_not_finished",
        "detail": "The analysis and the notation of a game are available once the game is "
        "finished.",
    }
    served = as_staff.get(f"/api/v1/games/{game_id}", headers={"Accept": NOTATION})
    assert served.status_code == 200
    (game,) = read(io.StringIO(served.content.decode()))
    assert len(game.entries) == 4
    assert served.content.decode().endswith(" =playing\n\n")


def test_a_finished_daily_game_is_refused_while_the_day_is_open(api, as_alice, alice):
    day = dt.date(2026, 3, 2)
    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)
    DailyChallenge.objects.create(date=day, rules="classic", seed=0, created_at=noon)
    with clock.frozen(noon):
        written, _ = services.challenge_join(date=day, player=alice[0])
        play(written.game_id, alice[0], [{"type": "resign"}])
        refused = as_alice.get(f"/api/v1/games/{written.game_id}?format=scorpion")
        assert (refused.status_code, refused.json()["code"]) == (403, "challenge_in_progress")
    with clock.frozen(noon + dt.timedelta(days=1)):
        served = api.get(f"/api/v1/games/{written.game_id}?format=scorpion")
        assert served.status_code == 200
        assert '[Challenge "2026-03-02"]' in served.content.decode()


@pytest.mark.parametrize(
    ("path", "headers", "status", "code"),
    [
        (
            "/api/v1/games/5d1c50c4-8c62-4f3c-9b1e-2f2f1d6b0c9a",
            {"Accept": NOTATION},
            404,
            "not_found",
        ),
        ("/api/v1/games/nope?format=scorpion", {}, 404, "not_found"),
        ("/api/v1/games/{id}", {"Accept": "text/html"}, 406, "not_acceptable"),
        (
            "/api/v1/games/{id}?format=scorpion",
            {"Accept": "application/json"},
            406,
            "not_acceptable",
        ),
        ("/api/v1/games/{id}?format=xml", {}, 400, "invalid"),
        ("/api/v1/games/{id}?format=", {}, 400, "invalid"),
        ("/api/v1/games/{id}?format=json&format=scorpion", {}, 400, "invalid"),
        ("/api/v1/games/{id}/events", {"Accept": NOTATION}, 406, "not_acceptable"),
    ],
)
def test_errors_are_json_whatever_was_asked(api, won, path, headers, status, code) -> None:
    response = api.get(path.format(id=won), headers=headers)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == code


def test_a_private_game_is_refused_to_strangers(as_alice, as_bob, alice) -> None:
    game_id = services.game_create(owner=alice[0], rules="classic", seed=1, public=False).game_id
    play(game_id, alice[0], [{"type": "resign"}])
    refused = as_bob.get(f"/api/v1/games/{game_id}?format=scorpion")
    assert (refused.status_code, refused.json()["code"]) == (403, "private_game")
    assert as_alice.get(f"/api/v1/games/{game_id}?format=scorpion").status_code == 200


def test_the_openapi_document_offers_the_notation(api) -> None:
    document = api.client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = document["paths"]["/api/v1/games/{game_id}"]["get"]
    assert set(operation["responses"]["200"]["content"]) == {"application/json", NOTATION}
    assert operation["responses"]["200"]["content"][NOTATION]["schema"]["type"] == "string"
    for status in ("400", "403", "404", "406", "409"):
        assert set(operation["responses"][status]["content"]) == {"application/json"}
    (format_,) = [item for item in operation["parameters"] if item["name"] == "format"]
    assert format_["schema"]["enum"] == ["json", "scorpion"]


def test_a_corrupted_download_is_refused_by_the_reader(api, won) -> None:
    text = api.get(f"/api/v1/games/{won}?format=scorpion").content.decode()
    with pytest.raises(NotationError) as refused:
        list(read(io.StringIO(text.replace('[Score "700"]', '[Score "701"]'))))
    assert refused.value.code == "wrong_result"
