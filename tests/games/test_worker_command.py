"""``manage.py worker``: which queues it serves, and its refusals (the worker itself runs in
tests/e2e/test_jobs.py and tests/e2e/test_job_faults.py, as ``manage.py serve`` starts
it)."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from games import jobs
from games.jobs import runner


def test_every_queue_but_the_excluded_ones(monkeypatch) -> None:
    ran: list[tuple[list[str] | None, int]] = []
    monkeypatch.setattr(
        runner, "run", lambda queues, concurrency: ran.append((queues, concurrency))
    )

    call_command("worker", "--exclude-queues", "solver")
    call_command("worker", "--queues", "solver", "--concurrency", "2")
    call_command("worker")

    assert jobs.QUEUES == ("schedule", "solver", "mail")
    assert ran == [(["mail", "schedule"], 1), (["solver"], 2), (None, 1)]


@pytest.mark.parametrize(
    "arguments",
    [
        ("--queues", "solver", "--exclude-queues", "solver"),
        ("--concurrency", "0"),
    ],
)
def test_refused_arguments(arguments: tuple[str, ...]) -> None:
    with pytest.raises(CommandError):
        call_command("worker", *arguments)


def test_the_worker_polls_besides_listening_and_only_polls_behind_a_pooler(settings) -> None:
    settings.JOBS_POLL_SECONDS, settings.JOBS_STALLED_SECONDS = 0.5, 30.0

    direct = runner.worker_options(["solver"], 2)
    settings.DB_POOLER = "transaction"
    pooled = runner.worker_options(["solver"], 2)

    assert direct["listen_notify"] is True and pooled["listen_notify"] is False
    for options in (direct, pooled):
        assert options["fetch_job_polling_interval"] == 0.5
        assert options["update_heartbeat_interval"] == 10.0  # three within the stall
        assert options["stalled_worker_timeout"] == 30.0
        assert options["queues"] == ["solver"] and options["concurrency"] == 2
