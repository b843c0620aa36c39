"""A job worker that heals itself: ``manage.py worker`` runs :func:`run`.

procrastinate's worker (on its own psycopg connector, with LISTEN/NOTIFY) runs inside a
loop of this module's that keeps it going:

- **It comes back.** When the worker ends for any reason but a stop (the database went
  away: its listener or its fetch failed), it starts again after a backoff that doubles
  from 0.5 s up to 30 s, for as long as the outage lasts, and each start counts as a
  ``restart`` incident (``games.store.models.JobIncident``). It also polls for due jobs every
  ``JOBS_POLL_SECONDS``, so that a lost notification never leaves a job waiting (behind a
  pooler in transaction mode, ``DB_POOLER=transaction``, it only polls).
- **It heartbeats, and retries the jobs of those that do not.** The worker heartbeats every
  ``JOBS_STALLED_SECONDS / 3``; every few seconds each worker asks procrastinate for the
  jobs of workers that have not heartbeaten for ``JOBS_STALLED_SECONDS``
  (``JobManager.get_stalled_jobs``) and retries them (``JobManager.retry_job``: back to
  ``todo``, their lock freed). One whose queueing lock another waiting job holds already is
  ended as failed instead: that one does the work. Each retry counts as a ``stalled``
  incident.
- **It stops in time.** On SIGTERM or SIGINT it stops fetching, cuts every search of the
  process (``games.engine.solver.limits.interrupt``: a pool fill ends, an analysis is
  queued again by its retry strategy) and gives its jobs ``JOBS_STOP_SECONDS``; a job
  still running then is queued again (``retry_job``) and the process exits.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Iterable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.db.models.expressions import RawSQL
from procrastinate import exceptions, jobs, worker
from procrastinate.contrib.django import app

import games.jobs as tasks
from games import clock
from games.engine.solver import limits
from games.store.models import JobIncident, JobWorker

logger = logging.getLogger("scorpion.worker")

#: The first wait before a worker starts again, and the longest.
BACKOFF_FIRST = 0.5
BACKOFF_MOST = 30.0
#: A worker that ran this long before it ended starts again after the first wait.
BACKOFF_RESET = 60.0


def heartbeat_seconds() -> float:
    """How often a worker heartbeats: three times within ``JOBS_STALLED_SECONDS``."""
    return float(settings.JOBS_STALLED_SECONDS) / 3


def run(queues: Iterable[str] | None, concurrency: int) -> None:
    """Run a worker on ``queues`` (None: every queue) until SIGTERM or SIGINT."""
    asyncio.run(_supervise(None if queues is None else list(queues), concurrency))
    exit_now(0)


def exit_now(code: int) -> None:
    """Exit at once: the ``atexit`` handlers run (an embedded PostgreSQL this process
    started stops), then the process ends without tearing its modules down, which took
    0.7 to 2.4 s of a stop on a loaded machine. Child processes of ``multiprocessing`` (the
    solver's pool) are ended first: its exit handler joins them."""
    for child in multiprocessing.active_children():
        child.terminate()
    atexit._run_exitfuncs()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


async def _supervise(queues: list[str] | None, concurrency: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    backoff = BACKOFF_FIRST
    shown = ",".join(queues) if queues else "every queue"
    starts = 0
    while not stop.is_set():
        if starts:
            await _record(JobIncident.RESTART, f"worker on {shown}: database lost")
        starts += 1
        started = time.monotonic()
        try:
            ended = await _run_once(queues, concurrency, stop)
        except Exception as error:  # the database went away: start again after a wait
            logger.warning("job worker on %s failed: %r; starting again", shown, error)
            ended = False
        if ended or stop.is_set():
            break
        if time.monotonic() - started > BACKOFF_RESET:
            backoff = BACKOFF_FIRST
        logger.info("job worker on %s: starting again in %.1f s", shown, backoff)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), backoff)
        backoff = min(BACKOFF_MOST, backoff * 2)


def worker_options(queues: list[str] | None, concurrency: int) -> dict[str, Any]:
    """What procrastinate's ``Worker`` is given: the queues, the jobs at once, polling besides
    listening (only polling behind a pooler in transaction mode), heartbeats and a graceful
    stop; the signals are this module's."""
    return {
        "queues": queues,
        "concurrency": concurrency,
        "install_signal_handlers": False,
        "fetch_job_polling_interval": settings.JOBS_POLL_SECONDS,
        # No LISTEN through a pooler in transaction mode: it polls alone.
        "listen_notify": settings.DB_POOLER != "transaction",
        "update_heartbeat_interval": heartbeat_seconds(),
        "stalled_worker_timeout": settings.JOBS_STALLED_SECONDS,
        "shutdown_graceful_timeout": settings.JOBS_STOP_SECONDS,
        "name": "worker",
    }


async def _run_once(queues: list[str] | None, concurrency: int, stop: asyncio.Event) -> bool:
    """One worker's life: True when it stopped because it was asked to."""
    connector = app.connector.get_worker_connector()  # type: ignore[attr-defined]
    with app.replace_connector(connector) as worker_app:
        async with worker_app.open_async():
            job_worker = worker.Worker(worker_app, **worker_options(queues, concurrency))
            running = asyncio.create_task(job_worker.run(), name="worker")  # type: ignore[no-untyped-call]
            recovering = asyncio.create_task(_recover_stalled(job_worker, queues), name="recover")
            stopping = asyncio.create_task(stop.wait(), name="stop")
            try:
                await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if running.done():
                    running.result()  # raises what ended it
                    return stop.is_set()
                return await _stop(job_worker, running, worker_app)
            finally:
                recovering.cancel()
                stopping.cancel()


async def _stop(job_worker: worker.Worker, running: asyncio.Task[None], worker_app: object) -> bool:
    """Stop the worker within ``JOBS_STOP_SECONDS`` (and a second for its own ending); a job
    still running is queued again, and the process exits at once."""
    job_worker.stop()  # type: ignore[no-untyped-call]
    limits.interrupt()
    done, _ = await asyncio.wait({running}, timeout=settings.JOBS_STOP_SECONDS + 1.0)
    if done:
        return True
    # procrastinate keeps no public list of the jobs a worker runs (pinned: pyproject.toml).
    left = [context.job for context in job_worker._running_jobs.values()]
    for job in left:
        try:
            await app.job_manager.retry_job(job)
            logger.info("job %s %s queued again: its worker stops", job.task_name, job.id)
        except exceptions.ConnectorException as error:
            logger.warning("job %s %s not queued again: %r", job.task_name, job.id, error)
    logging.shutdown()
    os._exit(0)  # a synchronous job's thread cannot be stopped; it is queued again


async def _recover_stalled(job_worker: worker.Worker, queues: list[str] | None) -> None:
    """Say which queues the worker runs once it is registered, start the pools filling if it
    runs the solver's queue (rather than wait for the minute's run), then every
    ``heartbeat_seconds()`` retry the jobs of workers silent for ``JOBS_STALLED_SECONDS``."""
    while job_worker.worker_id is None:
        await asyncio.sleep(0.05)
    await sync_to_async(_register, thread_sensitive=False)(job_worker.worker_id, queues)
    if queues is None or tasks.SOLVER_QUEUE in queues:
        for task in (tasks.fill_pools, tasks.follow_pools):
            with contextlib.suppress(exceptions.AlreadyEnqueued):
                await task.defer_async()
    await recover_stalled()
    while True:
        await asyncio.sleep(heartbeat_seconds())
        try:
            await recover_stalled()
        except exceptions.ConnectorException as error:
            logger.warning("stalled jobs not looked for: %r", error)


async def recover_stalled() -> list[int]:
    """Retry every job whose worker stopped heartbeating; the ids of those retried."""
    stalled = await app.job_manager.get_stalled_jobs(
        seconds_since_heartbeat=settings.JOBS_STALLED_SECONDS
    )
    retried = []
    for job in stalled:
        assert job.id is not None
        try:
            await app.job_manager.retry_job(job)
        except exceptions.UniqueViolation:
            # Another run of it waits already (its queueing lock): that one does the work.
            await app.job_manager.finish_job(job, status=jobs.Status.FAILED, delete_job=False)
        except exceptions.ConnectorException:
            continue  # another worker retried it first
        retried.append(job.id)
        logger.warning("job %s %s retried: its worker stopped heartbeating", job.task_name, job.id)
        await _record(JobIncident.STALLED, f"{job.task_name} {job.id}")
    return retried


async def _record(kind: str, detail: str) -> None:
    try:
        await sync_to_async(_insert, thread_sensitive=False)(kind, detail)
    except Exception as error:  # counting must never stop a worker
        logger.warning("job incident %s not recorded: %r", kind, error)


def _register(worker_id: int, queues: list[str] | None) -> None:
    """Record the queues of worker ``worker_id``; forget those of workers gone."""
    close_old_connections()
    try:
        JobWorker.objects.exclude(
            worker_id__in=RawSQL("SELECT id FROM procrastinate_workers", [])
        ).delete()
        JobWorker.objects.update_or_create(
            worker_id=worker_id,
            defaults={
                "queues": ",".join(queues or []),
                "host": socket.gethostname()[:100],
                "pid": os.getpid(),
                "started_at": clock.now(),
            },
        )
    finally:
        close_old_connections()


def _insert(kind: str, detail: str) -> None:
    close_old_connections()
    try:
        JobIncident.objects.create(kind=kind, detail=detail[:200], at=clock.now())
    finally:
        close_old_connections()


def record_restart(detail: str) -> None:
    """Count a worker started again by the process that supervises it (``manage.py
    serve``); never raises."""
    try:
        _insert(JobIncident.RESTART, detail)
    except Exception as error:
        logger.warning("job incident restart not recorded: %r", error)
