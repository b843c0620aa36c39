"""``manage.py worker``: run a job worker of ``games.jobs`` (procrastinate's worker, on the
server's database, kept going by ``games.jobs.runner``: it comes back after a database
outage, retries the jobs of workers that stopped heartbeating, and stops within seconds).
``manage.py serve`` starts two with ``--die-with-parent``, one for the solver's queue and
one for the rest; a deployment runs as many as it likes, each on the queues it names
(``--queues``) or on every queue but some (``--exclude-queues``)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games import jobs
from games.jobs import runner


class Command(BaseCommand):
    help = "Run a job worker (games.jobs): every queue, or those --queues names."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--queues", default="", help="comma-separated (default: every one)")
        parser.add_argument(
            "--exclude-queues",
            default="",
            help="comma-separated: every queue of games.jobs but these (not with --queues)",
        )
        parser.add_argument("--concurrency", type=int, default=1, help="jobs run at once")
        parser.add_argument(
            "--nice",
            type=int,
            default=0,
            help="lower this process's CPU priority by this much (the solver's worker: the "
            "web processes on the same machine keep answering first)",
        )
        parser.add_argument(
            "--die-with-parent",
            action="store_true",
            help="stop when the process that started this one ends (manage.py serve)",
        )

    def handle(self, *args: Any, queues: str, concurrency: int, **options: Any) -> None:
        if concurrency < 1:
            raise CommandError("--concurrency must be at least 1")
        excluded = {name for name in options["exclude_queues"].split(",") if name}
        if excluded:
            if queues:
                raise CommandError("give --queues or --exclude-queues, not both")
            queues = ",".join(sorted(set(jobs.QUEUES) - excluded))
        if options["nice"] > 0:
            _lower_priority(options["nice"])
        if options["die_with_parent"]:
            _die_with_parent()
        runner.run([name for name in queues.split(",") if name] or None, concurrency)


def _lower_priority(by: int) -> None:
    """Lower this process's CPU priority by ``by`` (its threads inherit it). It stays in the
    session of the server that started it: a session of its own at a low priority (Linux
    ``sched_autogroup``) was measured to starve outright on a saturated machine."""
    os.nice(by)


def _die_with_parent() -> None:
    """Ask Linux for SIGTERM when the parent process dies (elsewhere: nothing), and stop at
    once if it is gone already."""
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:
        raise SystemExit(0)
