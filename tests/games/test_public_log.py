"""The public log: which games enter it and when, its commit order, the notation it stores,
and the events read in commit order.

Every test commits (``transaction=True``): the log is read below the high-water mark, and a
transaction never sees its own entries below it.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.db import connection

from games import clock, projections
from games.dailies import challenges as dailies
from games.store import log
from games.store.models import Event, PublicLogEntry
from games.writes import contests, moderation, public_log, services

pytestmark = pytest.mark.django_db(transaction=True)

NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


class Moving:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at


@pytest.fixture
def player_staff(django_user_model):
    return django_user_model.objects.create_user("mod", password="pw-mod-123", is_staff=True)


def settled(timeout: float = 120.0) -> None:
    """Wait until every transaction running now (anywhere in the cluster) has ended, so that
    what this test committed is below the high-water mark."""
    end = log.snapshot_end()
    deadline = time.monotonic() + timeout
    while log.horizon() < end:
        assert time.monotonic() < deadline, "a transaction stayed open for two minutes"
        time.sleep(0.05)


def logged() -> list[log.Entry]:
    settled()
    return log.entries(None, 10_000)


def resign(game_id, actor) -> None:
    services.game_command(game_id=game_id, actor=actor, command={"type": "resign"})


def test_a_public_game_enters_when_it_finishes_and_a_private_one_never(alice) -> None:
    public = services.game_create(owner=alice, seed=1)
    private = services.game_create(owner=alice, seed=2, public=False)
    playing = services.game_create(owner=alice, seed=3)
    assert logged() == []
    resign(private.game_id, alice)
    resign(public.game_id, alice)
    entries = logged()
    assert [entry.game_id for entry in entries] == [public.game_id]
    row = PublicLogEntry.objects.get()
    assert row.published_at == Event.objects.get(game_id=public.game_id, seq=2).at
    assert entries[0].notation is None  # the job writes it
    assert public_log.public_log_write() == 1
    (entry,) = logged()
    assert entry.version == 2
    assert f'[Game "{public.game_id}"]' in (entry.notation or "")
    assert "=resigned" in (entry.notation or "")
    assert playing.game_id not in {e.game_id for e in logged()}


def test_the_command_that_finishes_a_public_game_is_still_one_statement(alice) -> None:
    game = services.game_create(owner=alice, seed=4)
    services.game_command(game_id=game.game_id, actor=alice, command={"type": "deal"})
    sent: list[str] = []

    def count(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        resign(game.game_id, alice)
    assert len(sent) == 1, sent
    assert "games_public_log" in sent[0]


def test_a_days_games_enter_once_the_day_is_over_each_once(alice, bob) -> None:
    moving = Moving(NOON)
    with clock.frozen(moving):
        day, _ = dailies.prepare(NOON.date())
        finished, _ = services.challenge_join(date=day.date, player=alice)
        moving.at += dt.timedelta(seconds=1)
        playing, _ = services.challenge_join(date=day.date, player=bob)
        resign(finished.game_id, alice)
        assert public_log.public_log_seal().games == 0
        assert logged() == []  # the day runs: its deal is secret

        moving.at = dt.datetime(2026, 12, 1, 0, 1, tzinfo=dt.UTC)
        sealed = public_log.public_log_seal()
        assert (sealed.games, sealed.days) == (2, 0)  # looked at again until it settles
        moving.at += public_log.SETTLE
        assert public_log.public_log_seal() == public_log.Sealed(0, 1, 0)
        assert public_log.public_log_seal() == public_log.Sealed(0, 0, 0)
    entries = logged()
    assert [entry.game_id for entry in entries] == [finished.game_id, playing.game_id]
    midnight = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    assert {entry.published_at for entry in entries} == {midnight}


def test_contest_games_enter_once_it_is_over_and_a_private_races_never(alice, bob) -> None:
    moving = Moving(NOON)
    with clock.frozen(moving):
        arena = contests.arena_schedule(
            rules="wasp",
            starts_at=NOON - dt.timedelta(hours=1),
            ends_at=NOON + dt.timedelta(hours=1),
        )
        game, _ = contests.arena_play(arena=arena, player=alice)
        race = contests.race_create(
            creator=bob,
            rules="classic",
            deals=1,
            time_limit=dt.timedelta(minutes=10),
            countdown=dt.timedelta(seconds=10),
            public=False,
        )
        moving.at = NOON + dt.timedelta(seconds=20)
        (hidden,), _ = contests.race_games(race=race, player=bob)
        assert public_log.public_log_seal().games == 0
        moving.at = NOON + dt.timedelta(hours=2)
        assert public_log.public_log_seal().games == 1
    assert [entry.game_id for entry in logged()] == [game.game_id]
    assert hidden.game_id not in {entry.game_id for entry in logged()}


def test_a_moderation_act_has_the_notation_written_again(alice, player_staff) -> None:
    game = services.game_create(owner=alice, seed=6)
    resign(game.game_id, alice)
    public_log.public_log_write()
    moderation.result_void(game_id=game.game_id, moderator=player_staff, reason="a bot")
    assert PublicLogEntry.objects.get().notation is None
    public_log.public_log_write()
    (entry,) = logged()
    assert entry.version == 3 and "void" in (entry.notation or "")


def test_a_rebuild_keeps_every_entry_and_writes_the_missing(alice) -> None:
    first = services.game_create(owner=alice, seed=7)
    second = services.game_create(owner=alice, seed=8)
    resign(first.game_id, alice)
    resign(second.game_id, alice)
    before = logged()
    PublicLogEntry.objects.filter(game_id=second.game_id).delete()
    projections.rebuild()
    after = logged()
    assert after[0] == before[0]  # the same place: a subscriber's cursor still holds
    assert [entry.game_id for entry in after] == [first.game_id, second.game_id]


def test_pages_follow_the_cursor_in_commit_order(alice) -> None:
    games = [services.game_create(owner=alice, seed=10 + n) for n in range(5)]
    for game in games:
        resign(game.game_id, alice)
    settled()
    seen, after = [], None
    while page := log.entries(after, 2):
        seen += page
        after = page[-1].cursor
    assert [entry.game_id for entry in seen] == [game.game_id for game in games]
    assert [entry.cursor for entry in seen] == sorted(entry.cursor for entry in seen)
    assert log.Cursor.decode(after.encode()) == after and log.known_cursor(after)


@pytest.mark.parametrize(
    "text", ["", "x", "A" * 21, "A" * 23, "A" * 21 + "=", "A" * 21 + "B", "é" * 22]
)
def test_a_cursor_the_server_did_not_make_is_refused(text) -> None:
    with pytest.raises(log.BadCursor):
        log.Cursor.decode(text)


def test_events_in_commit_order_resume_after_any_event(alice) -> None:
    first = services.game_create(owner=alice, seed=20)
    second = services.game_create(owner=alice, seed=21)
    resign(first.game_id, alice)
    services.game_command(game_id=second.game_id, actor=alice, command={"type": "deal"})
    settled()
    events = list(log.events_in_commit_order())
    assert [(e.game_id, e.seq) for e in events] == [
        (first.game_id, 1),
        (second.game_id, 1),
        (first.game_id, 2),
        (second.game_id, 2),
    ]
    rest = list(log.events_in_commit_order(log.event_cursor(events[1])))
    assert rest == events[2:]
