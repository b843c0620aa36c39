"""A subscriber that follows the public log by cursor sees every public game exactly once,
in the log's order, and never a private game or one of a running contest, while many
writers race, some of them holding their transaction open after they took their place.

The held writers are the trap: each finishes a game inside a transaction that then sleeps,
so its entry's id is smaller than those of entries other writers commit meanwhile. A
naive subscriber that resumes "after the largest id read", following the same writers,
skips it: the test checks that it did (so the trap was sprung) and that the cursor, read
below the high-water mark, still missed nothing.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
import time
import uuid

import pytest
from django.db import connections, transaction

from games import clock
from games.store import log
from games.writes import contests, services

pytestmark = pytest.mark.django_db(transaction=True)

WRITERS = 8
HELD = 3
GAMES = 12
HOLD_SECONDS = 0.6


def resign(game_id: uuid.UUID, user) -> None:
    services.game_command(game_id=game_id, actor=user, command={"type": "resign"})


def test_a_subscriber_sees_every_public_game_once_in_order(django_user_model) -> None:
    users = [
        django_user_model.objects.create_user(f"writer{n}", password="pw-writer-123")
        for n in range(WRITERS + HELD)
    ]
    now = clock.now()
    arena = contests.arena_schedule(
        rules="classic", starts_at=now - dt.timedelta(hours=1), ends_at=now + dt.timedelta(hours=1)
    )
    public: set[uuid.UUID] = set()
    hidden: set[uuid.UUID] = set()
    lock = threading.Lock()
    errors: list[BaseException] = []
    writing = threading.Event()
    writing.set()

    def plain(n: int) -> None:
        rng = random.Random(n)
        user = users[n]
        for _ in range(GAMES):
            kind = rng.choice(["public", "public", "private", "arena"])
            if kind == "arena":
                game = contests.arena_play(arena=arena, player=user)[0]
            else:
                game = services.game_create(owner=user, public=kind == "public")
            resign(game.game_id, user)
            with lock:
                (public if kind == "public" else hidden).add(game.game_id)
            time.sleep(rng.random() * 0.02)

    def held(n: int) -> None:
        user = users[WRITERS + n]
        for _ in range(3):
            game = services.game_create(owner=user)
            with transaction.atomic():
                resign(game.game_id, user)  # its place taken now...
                time.sleep(HOLD_SECONDS)  # ...committed after the others'
            with lock:
                public.add(game.game_id)

    seen: list[log.Entry] = []
    naive: set[uuid.UUID] = set()

    def subscriber() -> None:
        after = None
        while True:
            done = not writing.is_set()
            page = log.entries(after, 7)
            seen.extend(page)
            if page:
                after = page[-1].cursor
            elif done and log.horizon() >= drained_at[0]:
                return
            else:
                time.sleep(0.01)

    drained_at = [2**63]

    def by_id() -> None:
        """The trap's victim: every committed row after the largest id read so far."""
        last = 0
        while writing.is_set():
            with connections["default"].cursor() as cursor:
                cursor.execute(
                    "SELECT id, game_id FROM games_public_log WHERE id > %s ORDER BY id LIMIT 7",
                    [last],
                )
                rows = cursor.fetchall()
            for id_, game_id in rows:
                naive.add(game_id)
                last = id_
            time.sleep(0.005)

    def run(target, *args) -> None:
        try:
            target(*args)
        except BaseException as error:  # surfaced in the test's thread
            errors.append(error)
        finally:
            connections.close_all()

    reader = threading.Thread(target=run, args=(subscriber,))
    victim = threading.Thread(target=run, args=(by_id,))
    victim.start()
    writers = [threading.Thread(target=run, args=(plain, n)) for n in range(WRITERS)]
    writers += [threading.Thread(target=run, args=(held, n)) for n in range(HELD)]
    reader.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=240)
    drained_at[0] = log.snapshot_end()  # every writer's transaction began before this
    writing.clear()
    reader.join(timeout=240)
    victim.join(timeout=60)
    assert not errors, errors
    assert not reader.is_alive()

    games = [entry.game_id for entry in seen]
    assert len(games) == len(set(games)), "a game was seen twice"
    assert set(games) == public, "a public game was missed, or something else was seen"
    assert not set(games) & hidden
    assert [entry.cursor for entry in seen] == sorted(entry.cursor for entry in seen)
    assert seen == log.entries(None, 10_000)  # the log's order, as any later reader reads it
    assert public - naive, "no writer committed after a later one: the test proved nothing"
    assert len(public) == len(seen) and len(hidden) > 0
