"""Racing commands on one game: contiguous seqs, one event per acknowledged command,
409 for the losers of an ``expected_version`` race."""

import threading
from collections import Counter

import pytest
from django.db import connections

from games.errors import VersionConflict
from games.store import streams
from games.store.models import Event, Game
from games.writes import services

THREADS = 12
ATTEMPTS = 8


def race(worker) -> None:
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait()
            worker(index)
        except BaseException as error:  # surfaced below, in the test's thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors


def assert_contiguous(game_id) -> list[int]:
    seqs = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert Game.objects.get(id=game_id).version == len(seqs)
    return seqs


@pytest.mark.django_db(transaction=True)
def test_expected_version_race_has_one_winner_per_version(alice) -> None:
    game_id = services.game_create(owner=alice, seed=5).game_id
    won: list[int] = []
    lost: Counter[int] = Counter()
    lock = threading.Lock()

    def worker(index: int) -> None:
        for _ in range(ATTEMPTS):
            version = Game.objects.values_list("version", flat=True).get(id=game_id)
            try:
                result = services.game_command(
                    game_id=game_id,
                    actor=alice,
                    command={"type": "restart"},
                    expected_version=version,
                )
            except VersionConflict as conflict:
                assert conflict.extra["version"] > version
                with lock:
                    lost[version] += 1
            else:
                assert result.event.seq == version + 1
                with lock:
                    won.append(result.event.seq)

    race(worker)
    seqs = assert_contiguous(game_id)
    assert sorted(won) == seqs[1:]  # every acknowledged command is exactly one event
    assert len(won) + sum(lost.values()) == THREADS * ATTEMPTS
    assert sum(lost.values()) > 0


@pytest.mark.django_db(transaction=True)
def test_commands_without_expected_version_all_apply_in_turn(alice) -> None:
    game_id = services.game_create(owner=alice, seed=5).game_id
    acknowledged: list[int] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        for attempt in range(ATTEMPTS):
            result = services.game_command(
                game_id=game_id,
                actor=alice,
                command={"type": "restart"},
                idempotency_key=f"t{index}-{attempt}",
            )
            with lock:
                acknowledged.append(result.event.seq)

    race(worker)
    seqs = assert_contiguous(game_id)
    assert sorted(acknowledged) == seqs[1:] and len(seqs) == 1 + THREADS * ATTEMPTS
    streams.cache.clear()
    assert streams.load(game_id).state.undos == 0


@pytest.mark.django_db(transaction=True)
def test_racing_retries_of_one_key_append_once(alice) -> None:
    game_id = services.game_create(owner=alice, seed=5).game_id
    answers: list[int] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        result = services.game_command(
            game_id=game_id, actor=alice, command={"type": "deal"}, idempotency_key="same"
        )
        with lock:
            answers.append(result.event.position)

    race(worker)
    assert len(set(answers)) == 1 and len(answers) == THREADS
    assert assert_contiguous(game_id) == [1, 2]
