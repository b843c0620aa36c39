"""The command service: appends, refusals, idempotency, optimistic concurrency."""

import uuid

import pytest

from games import engine
from games.errors import (
    BadDeal,
    GameNotFound,
    IdempotencyKeyReused,
    NotOwner,
    RuleRefused,
    StaleCard,
    VersionConflict,
)
from games.reads import presenters, selectors
from games.reads.visibility import ANONYMOUS
from games.store import streams
from games.store.models import Event, Game
from games.writes import services

pytestmark = pytest.mark.django_db

FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


def events_of(game_id) -> list[tuple[int, str]]:
    return list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", "type"))


def test_create_records_rules_seed_deal_and_engine_version(alice) -> None:
    stream = services.game_create(owner=alice, rules="cards4", seed=99, public=False)
    created = Event.objects.get(game_id=stream.game_id)
    assert (created.seq, created.type, created.actor_id) == (1, "created", alice.pk)
    assert created.data["rules"] == "cards4" and created.data["seed"] == 99
    assert created.data["engine"] == engine.ENGINE_VERSION
    expected = engine.seeded_deal(engine.RULESETS["cards4"], 99)
    assert created.data["deal"] == [engine.card_code(card) for card in expected]
    game = Game.objects.get(id=stream.game_id)
    assert (game.version, game.status, game.public, game.owner_id) == (
        1,
        "playing",
        False,
        alice.pk,
    )
    assert game.board["columns"][0][:3] == [engine.card_code(card) for card in expected[:3]]
    assert game.board["down"][0] == 3  # the row holds every card; visibility masks them


def test_create_without_seed_or_deal_picks_a_random_seed(alice) -> None:
    seeds = {services.game_create(owner=alice).stream.seed for _ in range(5)}
    assert len(seeds) == 5 and all(0 <= seed <= engine.MAX_SEED for seed in seeds)


def test_create_from_a_deal_has_no_seed_and_refuses_bad_decks(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal).stream
    assert stream.seed is None
    with pytest.raises(BadDeal) as caught:
        services.game_create(owner=alice, deal=sample_deal[:-1])
    assert "deal" in caught.value.extra["fields"]
    with pytest.raises(BadDeal):
        services.game_create(owner=alice, deal=[*sample_deal[:-1], "ZZ"])
    assert Game.objects.count() == 1


def test_command_appends_one_event_and_updates_the_projection(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    result = services.game_command(game_id=stream.game_id, actor=alice, command=FIRST_MOVE)
    assert (result.event.seq, result.event.type) == (2, "moved")
    assert result.event.data == {"from": 2, "index": 5, "to": 7}
    assert result.stream.effects_of(2) == {"points": 5, "flipped": [], "removed": []}
    game = Game.objects.get(id=stream.game_id)
    assert (game.version, game.score, game.moves) == (2, 5, 1)
    assert game.board["columns"][6][-2:] == ["4H", "7S"]
    assert events_of(stream.game_id) == [(1, "created"), (2, "moved")]


def test_refused_commands_append_nothing(alice, bob, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    game_id = stream.game_id
    with pytest.raises(RuleRefused) as caught:
        services.game_command(game_id=game_id, actor=alice, command={**FIRST_MOVE, "to": 1})
    assert caught.value.code == "wrong_rank"
    with pytest.raises(NotOwner):
        services.game_command(game_id=game_id, actor=bob, command=FIRST_MOVE)
    with pytest.raises(GameNotFound):
        services.game_command(game_id=uuid.uuid4(), actor=alice, command=FIRST_MOVE)
    with pytest.raises(StaleCard):
        services.game_command(game_id=game_id, actor=alice, command={**FIRST_MOVE, "card": "7S"})
    assert events_of(game_id) == [(1, "created")]
    assert Game.objects.get(id=game_id).version == 1


def test_card_of_a_face_down_position_is_left_to_the_rules(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    # Column 2 index 0 is face-down 8S: naming it right or wrong must answer the same.
    for guess in ("8S", "KH"):
        with pytest.raises(RuleRefused) as caught:
            services.game_command(
                game_id=stream.game_id,
                actor=alice,
                command={"type": "move", "from": 2, "index": 0, "to": 7, "card": guess},
            )
        assert caught.value.code == "card_face_down"


def test_expected_version_conflict_carries_the_current_version(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    services.game_command(
        game_id=stream.game_id, actor=alice, command=FIRST_MOVE, expected_version=1
    )
    with pytest.raises(VersionConflict) as caught:
        services.game_command(
            game_id=stream.game_id, actor=alice, command={"type": "deal"}, expected_version=1
        )
    assert caught.value.extra == {"version": 2}
    assert Game.objects.get(id=stream.game_id).version == 2


def test_idempotent_retry_returns_the_first_answer(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    first = services.game_command(
        game_id=stream.game_id, actor=alice, command=FIRST_MOVE, idempotency_key="move-1"
    )
    again = services.game_command(
        game_id=stream.game_id, actor=alice, command=FIRST_MOVE, idempotency_key="move-1"
    )
    assert again.repeated and not first.repeated
    assert again.event.position == first.event.position
    assert again.stream.version == first.stream.version == 2
    services.game_command(game_id=stream.game_id, actor=alice, command={"type": "deal"})
    later = services.game_command(
        game_id=stream.game_id, actor=alice, command=FIRST_MOVE, idempotency_key="move-1"
    )
    assert later.repeated and later.stream.version == 2  # the game as the first answer had it
    with pytest.raises(IdempotencyKeyReused):
        services.game_command(
            game_id=stream.game_id, actor=alice, command={"type": "undo"}, idempotency_key="move-1"
        )
    assert [seq for seq, _ in events_of(stream.game_id)] == [1, 2, 3]


def test_undo_effects_name_the_undone_seq(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    services.game_command(game_id=stream.game_id, actor=alice, command=FIRST_MOVE)
    services.game_command(game_id=stream.game_id, actor=alice, command={"type": "deal"})
    undo = services.game_command(game_id=stream.game_id, actor=alice, command={"type": "undo"})
    assert undo.stream.effects_of(4) == {"points": 0, "flipped": [], "removed": [], "undid": 3}
    undo = services.game_command(game_id=stream.game_id, actor=alice, command={"type": "undo"})
    assert undo.stream.effects_of(5)["undid"] == 2
    assert undo.stream.effects_of(5)["points"] == -5


def test_resign_finishes_and_reveals_the_board(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    result = services.game_command(game_id=stream.game_id, actor=alice, command={"type": "resign"})
    game = Game.objects.get(id=stream.game_id)
    assert game.status == "resigned" and game.finished_at == result.event.at
    body = presenters.game_body(*selectors.game_get(game_id=game.id, viewer=ANONYMOUS))
    assert body["columns"][0][:3] == ["2S", "4S", "5S"]
    assert body["reserve_cards"] == ["6C", "TC", "KC"]
    with pytest.raises(RuleRefused, match="game_over"):
        services.game_command(game_id=stream.game_id, actor=alice, command={"type": "undo"})


def test_a_stale_cache_replays_only_the_tail(alice, sample_deal) -> None:
    stream = services.game_create(owner=alice, deal=sample_deal)
    services.game_command(game_id=stream.game_id, actor=alice, command=FIRST_MOVE)
    old = streams.load(stream.game_id, 2)
    services.game_command(game_id=stream.game_id, actor=alice, command={"type": "deal"})
    streams.cache.clear()
    streams.remember(old)  # as if another process had appended #3
    tail = streams.load(stream.game_id, 3)
    streams.cache.clear()
    full = streams.load(stream.game_id, 3)
    assert tail.version == full.version == 3
    assert tail.state.same_as(full.state) and tail.effects == full.effects
