"""One's own data to take away (docs/api.md#get-authdata): every game and its events, in
the notation or as NDJSON, each as its owner sees it, so that a game in play or a running
contest's deal shows no hidden card."""

import io
import json

import pytest

from games.dailies import challenges as dailies
from games.store import notation
from games.store.models import Event
from games.writes import services

pytestmark = pytest.mark.django_db


def download(api, fmt: str | None = None):
    response = api.get("/api/v1/auth/data" + (f"?format={fmt}" if fmt else ""))
    assert response.status_code == 200, response
    return response, b"".join(response.streaming_content).decode()


def test_the_notation_holds_every_game_whose_cards_its_owner_may_see(as_alice, alice, bob):
    user = alice[0]
    finished = []
    for seed in (11, 12):
        game = services.game_create(owner=user, seed=seed)
        services.game_command(game_id=game.game_id, actor=user, command={"type": "resign"})
        finished.append(game.game_id)
    playing = services.game_create(owner=user, seed=13)
    services.game_create(owner=bob[0], seed=14)  # someone else's
    dailies.prepare(dailies.today())
    daily, _ = services.challenge_join(date=dailies.today(), player=user)
    services.game_command(game_id=daily.game_id, actor=user, command={"type": "resign"})

    response, text = download(as_alice)

    assert response["Content-Type"] == "text/x-scorpion; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="scorpion-{user.pk}.scorpion"'
    games = list(notation.read(io.StringIO(text)))
    assert [game.game_id for game in games] == finished  # oldest first
    for game in games:
        stored = Event.objects.filter(game_id=game.game_id).order_by("seq")
        assert [e.event.to_json() for e in game.entries] == [e.data for e in stored]
        assert game.player == "alice"
    assert str(playing.game_id) not in text and str(daily.game_id) not in text


def test_ndjson_holds_every_game_masked_where_its_owner_sees_no_more(as_alice, alice):
    user = alice[0]
    done = services.game_create(owner=user, seed=21)
    services.game_command(game_id=done.game_id, actor=user, command={"type": "resign"})
    playing = services.game_create(owner=user, seed=22)

    response, text = download(as_alice, "ndjson")

    assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["game"]["id"] for line in lines] == [str(done.game_id), str(playing.game_id)]
    first, second = lines
    assert first["game"]["seed"] == 21 and first["events"][0]["data"]["seed"] == 21
    assert [e["type"] for e in first["events"]] == ["created", "resigned"]
    assert {e["by"] for e in first["events"]} == {"alice"}
    assert second["game"]["seed"] is None and "reserve_cards" not in second["game"]
    assert second["events"][0]["data"]["deal"] is None
    assert None in second["game"]["columns"][0]  # face-down cards stay face down


def test_a_long_history_comes_in_batches_and_no_game_twice(as_alice, alice, settings):
    from games.reads import mydata

    user = alice[0]
    made = []
    for seed in range(30, 30 + mydata.BATCH + 5):
        game = services.game_create(owner=user, seed=seed)
        services.game_command(game_id=game.game_id, actor=user, command={"type": "resign"})
        made.append(str(game.game_id))
    first, after = mydata.data_batch(user=user, format="ndjson", after=None)
    rest, end = mydata.data_batch(user=user, format="ndjson", after=after)
    ids = [json.loads(line)["game"]["id"] for line in (first + rest).splitlines()]
    assert ids == made and end is None


def test_the_download_needs_an_account_and_a_known_format(api, as_alice):
    assert api.get("/api/v1/auth/data").status_code == 401
    wrong = as_alice.get("/api/v1/auth/data?format=pgn")
    assert wrong.status_code == 400 and "format" in wrong.json()["fields"]
    _, nothing = download(as_alice, "ndjson")  # no game yet: an empty file
    assert nothing == ""
