"""``manage.py status``: the background work at a glance, read from the database: each
winnable pool, each queue, each live worker, and what the self-healing did
(``games.jobs.health``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from games.jobs import health


class Command(BaseCommand):
    help = "Show each winnable pool, the job queues and the live job workers."

    def handle(self, *args: Any, **options: Any) -> None:
        seen = health.snapshot()
        out = self.stdout
        out.write(f"pools (target {settings.POOL_TARGET} fresh deals each):")
        out.write(f"  {'rules':<17} {'fresh':>6} {'deals':>6} {'unfollowed':>10} {'per min':>8}")
        for pool in seen.pools:
            out.write(
                f"  {pool.rules:<17} {pool.fresh:>6} {pool.deals:>6} {pool.unfollowed:>10}"
                f" {pool.per_minute:>8.1f}"
            )
        out.write("queues:")
        out.write(f"  {'queue':<10} {'due':>5} {'running':>8} {'oldest':>8}")
        for queue in seen.queues:
            out.write(
                f"  {queue.name:<10} {queue.waiting:>5} {queue.running:>8}"
                f" {queue.oldest_seconds:>7.0f}s"
            )
        out.write(f"workers ({len(seen.workers)} heartbeating):")
        for worker in seen.workers:
            queues = ",".join(worker.queues) if worker.queues else "every queue"
            out.write(
                f"  #{worker.worker_id} on {queues}: {worker.host} pid {worker.pid},"
                f" heartbeat {worker.heartbeat_age:.0f}s ago, {worker.running} running"
            )
        missing = health.uncovered(seen.workers)
        if missing:
            out.write(f"  no live worker on: {', '.join(missing)}")
        out.write(
            f"self-healing: {seen.incidents['stalled']} jobs retried after a stall,"
            f" {seen.incidents['restart']} worker restarts"
        )
