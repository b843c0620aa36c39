"""Stored games in the notation: the rows of the event table become transcripts, one game at
a time, and their text reads back as the very rows (type, data, time, author).

The games are played through the services (a cell move, a race's recorded hint, a
moderator's void) and, for every ruleset, the golden streams of test_golden_replays.py.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from games import clock, engine
from games.dailies.models import DailyChallenge
from games.errors import StreamCorrupted
from games.store.models import Event, Game
from games.store.notation import read, stored, write_all
from games.store.summary import GameSummary
from games.writes import moderation, services

pytestmark = pytest.mark.django_db

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def rows_of(game_ids: list[uuid.UUID]) -> Any:
    return (
        Event.objects.filter(game_id__in=game_ids)
        .select_related("actor")
        .order_by("game_id", "seq")
        .iterator(chunk_size=7)
    )


def assert_reads_back_as_stored(game_ids: list[uuid.UUID]) -> None:
    """The games' text, read back, is their rows: type and data exactly, time to the
    millisecond, author."""
    text = "".join(write_all(stored.transcripts(rows_of(game_ids))))
    games = {game.game_id: game for game in read(io.StringIO(text))}
    assert set(games) == set(game_ids)
    for row in rows_of(game_ids):
        entry = games[row.game_id].entries[row.seq - 1]
        assert (entry.event.TYPE, entry.event.to_json()) == (row.type, row.data)
        assert entry.at == row.at.replace(microsecond=row.at.microsecond // 1000 * 1000)
        assert entry.by == row.actor.username
    assert (
        sum(len(game.entries) for game in games.values())
        == Event.objects.filter(game_id__in=game_ids).count()
    )


def test_games_played_through_the_services_read_back_as_stored(alice, bob) -> None:
    first = services.game_create(owner=alice, rules="classic", seed=3).game_id
    for command in ({"type": "deal"}, {"type": "undo"}, {"type": "restart"}):
        services.game_command(game_id=first, actor=alice, command=command)
    services.game_command(game_id=first, actor=alice, command={"type": "resign"})
    mice = engine.RULESETS["three_blind_mice"]
    seed, cell_move = next(
        (seed, move)
        for seed in range(100)
        for move in engine.legal_moves(engine.new_game(mice, engine.seeded_deal(mice, seed)))
        if isinstance(move, engine.CellMove)
    )
    second = services.game_create(owner=bob, rules="three_blind_mice", seed=seed).game_id
    services.game_command(game_id=second, actor=bob, command=engine.action_to_command(cell_move))
    mod = type(alice).objects.create_user("mod", is_staff=True)
    moderation.result_void(game_id=first, moderator=mod, reason='"gg" {ok}; é')
    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)
    DailyChallenge.objects.create(date=noon.date(), rules="classic", seed=5, created_at=noon)
    with clock.frozen(noon):
        third = services.challenge_join(date=noon.date(), player=alice)[0].game_id
        game = GameSummary.from_row(Game.objects.select_related("owner").get(id=third))
        assert services.game_hint(game=game, viewer=alice).recorded
    types = set(Event.objects.filter(game_id__in=[first, second, third]).values_list("type"))
    assert {kind for (kind,) in types} >= {"dealt", "undone", "restarted", "hinted", "moved"}
    assert_reads_back_as_stored([first, second, third])


def test_every_golden_stream_reads_back_as_stored(alice) -> None:
    at = dt.datetime(2026, 1, 1, 0, 0, 0, 123456, tzinfo=dt.UTC)
    game_ids = []
    for number, path in enumerate(GOLDEN):
        golden = json.loads(path.read_text())
        if "events" not in golden:
            continue
        game_id = uuid.UUID(int=number + 1)
        game_ids.append(game_id)
        Event.objects.bulk_create(
            Event(
                game_id=game_id,
                seq=seq,
                type=event["type"],
                data=event["data"],
                actor=alice,
                at=at + dt.timedelta(seconds=seq, microseconds=seq * 977),
            )
            for seq, event in enumerate(golden["events"], start=1)
        )
    rules = {stored.transcript(rows_of([game])).entries[0].event.rules for game in game_ids}
    assert rules == set(engine.RULESETS)
    assert_reads_back_as_stored(game_ids)


def test_rows_that_skip_a_seq_are_refused(alice) -> None:
    game_id = services.game_create(owner=alice, rules="classic", seed=3).game_id
    services.game_command(game_id=game_id, actor=alice, command={"type": "deal"})
    services.game_command(game_id=game_id, actor=alice, command={"type": "resign"})
    rows = [row for row in rows_of([game_id]) if row.seq != 2]
    with pytest.raises(StreamCorrupted, match="#3 after #1"):
        stored.transcript(rows)
