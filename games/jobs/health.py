"""What the background work looks like from outside: queues, workers, pools, incidents.

Read straight from PostgreSQL (procrastinate's tables and the pools'), so that any server
process answers for every worker: ``/readyz`` asks :func:`problems` what stops the server
being ready, ``/metrics`` adds :class:`JobsCollector`'s figures at each scrape, and
``manage.py status`` prints :func:`snapshot`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from games import clock

#: The queues a server needs a live worker on (``games.jobs.QUEUES``).
NEEDED_QUEUES = ("schedule", "solver", "mail")
#: The fill rate of a pool is counted over this many minutes.
RATE_MINUTES = 10


@dataclass(frozen=True)
class Queue:
    name: str
    #: Jobs due now and waiting, and jobs running.
    waiting: int
    running: int
    #: Seconds the oldest due job has waited (0: none waits).
    oldest_seconds: float


@dataclass(frozen=True)
class Worker:
    worker_id: int
    #: None: every queue.
    queues: tuple[str, ...] | None
    host: str
    pid: int
    heartbeat_age: float
    running: int


@dataclass(frozen=True)
class Pool:
    rules: str
    fresh: int
    deals: int
    unfollowed: int
    #: Deals certified a minute, over the last :data:`RATE_MINUTES` minutes.
    per_minute: float


@dataclass(frozen=True)
class Snapshot:
    queues: list[Queue]
    workers: list[Worker]
    pools: list[Pool]
    incidents: dict[str, int]


def queues() -> list[Queue]:
    """Every needed queue and any other that has jobs to do or running."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT queue_name,"
            " count(*) FILTER (WHERE status = 'todo' AND (scheduled_at IS NULL"
            "  OR scheduled_at <= now())),"
            " count(*) FILTER (WHERE status = 'doing'),"
            " COALESCE(EXTRACT(EPOCH FROM now() - min(COALESCE(scheduled_at, e.at))"
            "  FILTER (WHERE status = 'todo' AND (scheduled_at IS NULL OR scheduled_at <= now()))"
            " ), 0)"
            " FROM procrastinate_jobs j LEFT JOIN LATERAL ("
            "  SELECT max(at) AS at FROM procrastinate_events"
            "  WHERE job_id = j.id AND type IN ('deferred', 'deferred_for_retry', 'retried')"
            " ) e ON true"
            " WHERE status IN ('todo', 'doing') GROUP BY queue_name"
        )
        found = {
            name: Queue(name, waiting, running, float(oldest))
            for name, waiting, running, oldest in cursor.fetchall()
        }
    for name in NEEDED_QUEUES:
        found.setdefault(name, Queue(name, 0, 0, 0.0))
    return sorted(found.values(), key=lambda queue: queue.name)


def workers() -> list[Worker]:
    """The workers that heartbeat (within ``JOBS_STALLED_SECONDS``), with their queues."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w.id, g.queues, g.host, g.pid, EXTRACT(EPOCH FROM now() - w.last_heartbeat),"
            " (SELECT count(*) FROM procrastinate_jobs j"
            "  WHERE j.worker_id = w.id AND j.status = 'doing')"
            " FROM procrastinate_workers w LEFT JOIN games_job_worker g ON g.worker_id = w.id"
            " WHERE w.last_heartbeat > now() - make_interval(secs => %s) ORDER BY w.id",
            [settings.JOBS_STALLED_SECONDS],
        )
        return [
            Worker(
                worker_id,
                None if not queues else tuple(queues.split(",")),
                host or "?",
                pid or 0,
                float(age),
                running,
            )
            for worker_id, queues, host, pid, age, running in cursor.fetchall()
        ]


def pools() -> list[Pool]:
    """Each pool of ``POOL_RULES``: its fresh deals, all its deals, those the follower has
    not played yet, and its fill rate."""
    since = clock.now() - dt.timedelta(minutes=RATE_MINUTES)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rules, count(*) FILTER (WHERE draws = 0), count(*),"
            " count(*) FILTER (WHERE followed_at IS NULL),"
            " count(*) FILTER (WHERE created_at > %s)"
            " FROM games_certified_deal GROUP BY rules",
            [since],
        )
        rows = {row[0]: row[1:] for row in cursor.fetchall()}
    return [Pool(name, *_counts(rows.get(name, (0, 0, 0, 0)))) for name in settings.POOL_RULES]


def _counts(row: tuple[int, ...]) -> tuple[int, int, int, float]:
    fresh, deals, unfollowed, recent = row
    return fresh, deals, unfollowed, recent / RATE_MINUTES


def incidents() -> dict[str, int]:
    """How many jobs were retried after a stall, and workers started again, ever."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT kind, count(*) FROM games_job_incident GROUP BY kind")
        counts = dict(cursor.fetchall())
    return {kind: counts.get(kind, 0) for kind in ("stalled", "restart")}


def snapshot() -> Snapshot:
    return Snapshot(queues(), workers(), pools(), incidents())


def uncovered(live: list[Worker]) -> list[str]:
    """The needed queues no live worker runs."""
    covered: set[str] = set()
    for worker in live:
        if worker.queues is None:
            return []
        covered.update(worker.queues)
    return [name for name in NEEDED_QUEUES if name not in covered]


def problems() -> dict[str, str]:
    """What keeps the background work from being ready, by what (empty: nothing): a
    needed queue with no live worker, or a queue whose oldest due job has waited past
    ``JOBS_READY_WAIT_SECONDS``. Database errors are the caller's to catch."""
    found: dict[str, str] = {}
    missing = uncovered(workers())
    if missing:
        found["workers"] = "no worker heartbeats on the queues " + ", ".join(missing)
    late = [
        f"{queue.name} ({queue.oldest_seconds:.0f} s)"
        for queue in queues()
        if queue.oldest_seconds > settings.JOBS_READY_WAIT_SECONDS
    ]
    if late:
        found["queues"] = "the oldest due job has waited too long on " + ", ".join(late)
    return found


class JobsCollector(Collector):
    """The queues, workers, pools' fill rates and incidents as Prometheus metrics, read at
    each scrape (the pools' sizes are ``scorpion_server.observability``'s)."""

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        seen = snapshot()
        depth = GaugeMetricFamily(
            "scorpion_queue_jobs", "Jobs due and waiting, by queue", labels=["queue"]
        )
        oldest = GaugeMetricFamily(
            "scorpion_queue_oldest_seconds",
            "Seconds the oldest due job of a queue has waited",
            labels=["queue"],
        )
        running = GaugeMetricFamily(
            "scorpion_queue_running_jobs", "Jobs running, by queue", labels=["queue"]
        )
        for queue in seen.queues:
            depth.add_metric([queue.name], queue.waiting)
            oldest.add_metric([queue.name], queue.oldest_seconds)
            running.add_metric([queue.name], queue.running)
        live = GaugeMetricFamily("scorpion_job_workers", "Job workers that heartbeat")
        live.add_metric([], len(seen.workers))
        stalled = CounterMetricFamily(
            "scorpion_jobs_stalled_retried", "Jobs retried because their worker stopped"
        )
        stalled.add_metric([], seen.incidents["stalled"])
        restarts = CounterMetricFamily(
            "scorpion_job_worker_restarts", "Job workers started again after they died"
        )
        restarts.add_metric([], seen.incidents["restart"])
        rate = GaugeMetricFamily(
            "scorpion_pool_fill_per_minute",
            f"Deals certified a minute into a pool, over the last {RATE_MINUTES} minutes",
            labels=["rules"],
        )
        for pool in seen.pools:
            rate.add_metric([pool.rules], pool.per_minute)
        yield from (depth, oldest, running, live, stalled, restarts, rate)
