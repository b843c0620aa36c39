"""The typed events of ``games.store.events``: each converts to and from its stored JSON, and
anything else stored under a game raises one error that names the game and the seq."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from games import clock, engine
from games.errors import MalformedEvent
from games.store import events, streams
from games.store.models import Event
from games.writes import services

GAME = uuid.UUID("00000000-0000-4000-8000-000000000042")

EXAMPLES: list[events.GameEvent] = [
    events.Created(
        rules="classic",
        seed=7,
        deal=("AS", "KH"),
        public=False,
        challenge="2026-11-30",
        engine=engine.ENGINE_VERSION,
    ),
    events.Moved(source=2, index=5, to=7),
    events.CellMoved(cell=1, to=4),
    events.Dealt(),
    events.Undone(),
    events.Restarted(),
    events.Resigned(),
    events.ResultVoided(reason="solver output"),
    events.ResultRestored(reason="false alarm"),
    events.Hinted(move={"type": "move", "from": 2, "index": 5, "to": 7}, source="solver"),
]


@pytest.mark.parametrize("fact", EXAMPLES, ids=lambda fact: type(fact).__name__)
def test_each_event_round_trips_through_its_stored_json(fact: events.GameEvent) -> None:
    stored = fact.to_json()
    again = events.decode(fact.TYPE, stored, version=fact.VERSION, game_id=GAME, seq=3)
    assert again == fact and type(again) is type(fact)


def test_the_vocabulary_names_every_stored_type_once() -> None:
    assert sorted(events.TYPES) == sorted({type(fact).TYPE for fact in EXAMPLES})
    assert len(events.TYPES) == len(set(events.TYPES))


@pytest.mark.parametrize(
    "action",
    [engine.Move(1, 2, 3), engine.CellMove(2, 5), engine.Deal(), engine.Undo(), engine.Resign()],
)
def test_an_action_is_recorded_by_the_event_that_gives_it_back(action: engine.Action) -> None:
    assert events.of_action(action).action() == action


@pytest.mark.parametrize(
    ("kind", "data", "version", "problem"),
    [
        ("shuffled", {}, 1, "unknown event type"),
        ("moved", {"from": 1, "index": 0}, 1, "not from, index, to"),
        ("moved", {"from": 1, "index": 0, "to": 2, "card": "AS"}, 1, "not from, index, to"),
        ("moved", {"from": "1", "index": 0, "to": 2}, 1, "not an integer"),
        ("moved", {"from": True, "index": 0, "to": 2}, 1, "not an integer"),
        ("dealt", {"cards": 3}, 1, "unexpected keys"),
        ("dealt", {}, 2, "version 2 is unknown"),
        ("created", {"rules": "classic"}, 1, "missing"),
        ("created", ["rules"], 1, "not a JSON object"),
        ("result_voided", {"reason": 5}, 1, "not a string"),
    ],
)
def test_anything_else_is_malformed_naming_the_game_and_seq(
    kind: str, data: Any, version: int, problem: str
) -> None:
    with pytest.raises(MalformedEvent) as caught:
        events.decode(kind, data, version=version, game_id=GAME, seq=9)
    assert f"game {GAME} #9" in str(caught.value) and problem in str(caught.value)
    assert (caught.value.game_id, caught.value.seq) == (GAME, 9)


@pytest.mark.django_db
def test_a_malformed_stored_event_stops_the_replay_with_its_game_and_seq(alice) -> None:
    game = services.game_create(owner=alice, seed=5).game_id
    Event.objects.create(
        game_id=game, seq=2, type="moved", data={"from": 1}, actor=alice, at=clock.now()
    )
    streams.cache.clear()
    with pytest.raises(MalformedEvent, match=f"game {game} #2"):
        streams.load(game)
