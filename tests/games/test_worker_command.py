"""``manage.py worker``: which queues it serves, and its refusals (the worker itself runs in
tests/e2e/test_jobs.py, as ``manage.py serve`` starts it)."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from games import jobs
from games.management.commands import worker


def test_every_queue_but_the_excluded_ones(monkeypatch) -> None:
    ran: list[tuple[str, ...]] = []
    monkeypatch.setattr(worker, "call_command", lambda *arguments: ran.append(arguments))

    call_command("worker", "--exclude-queues", "solver")
    call_command("worker", "--queues", "solver", "--concurrency", "2")
    call_command("worker")

    assert jobs.QUEUES == ("schedule", "solver", "mail")
    assert ran == [
        ("procrastinate", "worker", "--concurrency", "1", "--queues", "mail,schedule"),
        ("procrastinate", "worker", "--concurrency", "2", "--queues", "solver"),
        ("procrastinate", "worker", "--concurrency", "1"),
    ]


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


def test_behind_a_transaction_pooler_the_worker_polls(monkeypatch, settings) -> None:
    ran: list[tuple[str, ...]] = []
    monkeypatch.setattr(worker, "call_command", lambda *arguments: ran.append(arguments))
    settings.DB_POOLER, settings.JOBS_POLL_SECONDS = "transaction", 0.5

    call_command("worker", "--queues", "solver")

    assert ran == [
        (
            *("procrastinate", "worker", "--concurrency", "1", "--no-listen-notify"),
            *("--fetch-job-polling-interval", "0.5", "--queues", "solver"),
        )
    ]
