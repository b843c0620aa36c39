"""GET /games/{id}/moves (every legal action) and GET /games/{id}/hint (from the public
board only)."""

import pytest

from games import engine
from games.reads import selectors
from games.store import streams
from games.writes import services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_time_limit(settings):
    """Past its time limit a hint depends on the machine's load too; these tests check what
    it computes from the view, so they give it all the time it needs."""
    settings.HINT_TIME_LIMIT = 0


@pytest.fixture
def game(alice, sample_deal):
    return str(services.game_create(owner=alice[0], deal=sample_deal).game_id)


def test_moves_lists_every_legal_action_with_its_card(api, game):
    response = api.get(f"/api/v1/games/{game}/moves")

    assert response.status_code == 200
    assert response.json() == {
        "moves": [
            {"type": "move", "from": 2, "index": 5, "to": 7, "card": "4H"},
            {"type": "move", "from": 7, "index": 3, "to": 2, "card": "6S"},
            {"type": "move", "from": 7, "index": 4, "to": 3, "card": "2H"},
            {"type": "deal"},
        ]
    }


def test_every_listed_move_is_accepted(as_alice, alice, sample_deal):
    for index in range(4):
        game_id = services.game_create(owner=alice[0], deal=sample_deal).game_id
        entry = as_alice.get(f"/api/v1/games/{game_id}/moves").json()["moves"][index]
        response = as_alice.post(f"/api/v1/games/{game_id}/commands", entry)
        assert response.status_code == 201, (entry, response.json())


def test_moves_of_three_blind_mice_include_cell_moves(api, alice):
    stream = services.game_create(owner=alice[0], rules="three_blind_mice", seed=6)

    moves = api.get(f"/api/v1/games/{stream.game_id}/moves").json()["moves"]

    assert {"type": "move", "cell": 1, "to": 9, "card": "3D"} in moves
    assert {"type": "move", "cell": 2, "to": 7, "card": "5D"} in moves


def test_a_finished_game_has_no_moves_and_no_hint(api, alice, game):
    services.game_command(game_id=game, actor=alice[0], command={"type": "resign"})

    assert api.get(f"/api/v1/games/{game}/moves").json() == {"moves": []}
    hint = api.get(f"/api/v1/games/{game}/hint").json()
    assert hint["move"] is None and hint["source"] == "none" and hint["samples"] == 0


def test_the_hint_recommends_a_listed_move(api, game, settings):
    response = api.get(f"/api/v1/games/{game}/hint")

    assert response.status_code == 200
    assert response.json()["move"] in api.get(f"/api/v1/games/{game}/moves").json()["moves"]
    body = response.json()
    assert body["samples"] == settings.HINT_SAMPLES and body["recorded"] is False


def test_the_hint_reads_only_the_public_board(api, game, monkeypatch):
    def no_replay(*args, **kwargs):
        raise AssertionError("the hint must not rebuild the hidden state")

    # But for the boards of the game's line of play, which hold only what the player saw
    # (the next test).
    monkeypatch.setattr(selectors, "_line_boards", lambda game: frozenset())
    monkeypatch.setattr(streams, "load", no_replay)
    monkeypatch.setattr(streams, "at_version", no_replay)
    monkeypatch.setattr(selectors, "game_stream", no_replay)

    move = api.get(f"/api/v1/games/{game}/hint").json()["move"]
    assert move.get("card") in ("4H", "6S", "2H", None)


def test_the_hint_is_the_same_whatever_the_hidden_cards(api, alice, sample_deal):
    # Swap two face-down cards of column 1: the visible board, and so the hint, stay alike.
    other = list(sample_deal)
    other[0], other[1] = other[1], other[0]
    hints = []
    for deal in (sample_deal, other):
        game_id = services.game_create(owner=alice[0], deal=deal).game_id
        hints.append(api.get(f"/api/v1/games/{game_id}/hint").json())
    assert hints[0] == hints[1]


def test_the_hint_knows_the_line_of_play_as_the_player_saw_it(alice, sample_deal):
    # Two deals that differ only in two face-down cards, played alike: the boards of their
    # lines of play are the same, and an undone move's board is not among them.
    other = list(sample_deal)
    other[0], other[1] = other[1], other[0]
    move = {"type": "move", "from": 2, "index": 5, "to": 7}
    lines = []
    for deal in (sample_deal, other):
        game_id = services.game_create(owner=alice[0], deal=deal).game_id
        line = []
        for command in (move, {"type": "undo"}, move):
            done = services.game_command(game_id=game_id, actor=alice[0], command=command)
            line.append(selectors._line_boards(done.summary))
        lines.append(line)
    assert lines[0] == lines[1]
    moved, undone, again = lines[0]
    assert len(moved) == 2 and len(undone) == 1 and again == moved
    assert undone < moved


def test_the_hint_can_be_a_deal(api, alice):
    # Classic seed 523 starts with no move at all: the deal is the only action.
    rules = engine.RULESETS["classic"]
    assert engine.legal_actions(engine.new_game(rules, engine.seeded_deal(rules, 523))) == [
        engine.Deal()
    ]
    game_id = services.game_create(owner=alice[0], seed=523).game_id

    assert api.get(f"/api/v1/games/{game_id}/hint").json()["move"] == {"type": "deal"}
    assert api.get(f"/api/v1/games/{game_id}/moves").json() == {"moves": [{"type": "deal"}]}


def test_moves_and_hint_follow_visibility(api, as_alice, alice):
    game_id = services.game_create(owner=alice[0], seed=1, public=False).game_id

    for endpoint in ("moves", "hint"):
        assert api.get(f"/api/v1/games/{game_id}/{endpoint}").status_code == 403
        assert as_alice.get(f"/api/v1/games/{game_id}/{endpoint}").status_code == 200
