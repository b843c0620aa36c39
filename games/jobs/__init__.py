"""Background jobs, on the procrastinate job engine (its queue lives in PostgreSQL).

:func:`schedule` runs ``games.writes.schedule`` every minute (a periodic task, which
procrastinate defers once per minute whatever the number of workers); :func:`tidy` deletes
finished jobs older than three days, every night; :func:`fill_pools` keeps every winnable
pool of ``POOL_RULES`` topped up (``games.pools``), every minute, on the ``solver`` queue
with the rest of the solver's work: :func:`analyse`, the post-game analyses that outgrow a
request, and :func:`mine_puzzles`, which looks for puzzles in the games that became public
(``games.puzzles.mining``), every minute; :func:`retry_stalled` runs again, every 15 s,
the jobs whose worker died in the middle of them; :func:`account_mail` sends an account's emails,
on the ``mail`` queue. A worker
is ``manage.py procrastinate worker``: ``manage.py serve`` starts one beside the server
unless ``JOBS_WORKER=external`` (docs/operations.md#background-jobs), and a deployment runs
as many as it likes.
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.db import close_old_connections
from procrastinate import JobContext, builtin_tasks
from procrastinate.contrib.django import app

from games import pools
from games.errors import GameNotFinished, GameNotFound
from games.ratings import predict
from games.writes import evidence, mail
from games.writes.analysis import analysis_compute
from games.writes.puzzles import puzzles_mine
from games.writes.schedule import schedule_run

logger = logging.getLogger(__name__)

#: The queue of the clock's work.
SCHEDULE_QUEUE = "schedule"
#: The queue of the solver's work: filling the pools, analyses (docs/operations.md).
SOLVER_QUEUE = "solver"
#: The queue of the account emails (password resets, address verifications).
MAIL_QUEUE = mail.QUEUE
#: Every queue a job of this module runs on.
QUEUES = (SCHEDULE_QUEUE, SOLVER_QUEUE, MAIL_QUEUE)


@app.periodic(cron="* * * * *", periodic_id="every-minute")
@app.task(name="schedule", queue=SCHEDULE_QUEUE, lock="schedule", queueing_lock="schedule")
def schedule(timestamp: int) -> None:
    """The clock's due work (``games.writes.schedule``), once a minute; at most one run
    waits and one runs at a time."""
    close_old_connections()
    try:
        done = schedule_run()
    finally:
        close_old_connections()
    guests = done.guests.closed + done.guests.deleted
    if (
        done.days
        or done.sealed
        or done.abandoned
        or done.published.games
        or done.written
        or done.puzzle_days
        or guests
    ):
        logger.info(
            "scheduled work: days %s prepared, races %s sealed, %d abandoned daily games"
            " ended, %d games entered the public log, %d entries written, puzzles of %s"
            " chosen, %d idle guests closed and %d deleted",
            done.days,
            done.sealed,
            len(done.abandoned),
            done.published.games,
            done.written,
            done.puzzle_days,
            done.guests.closed,
            done.guests.deleted,
        )


@app.periodic(cron="17 4 * * *", periodic_id="every-night")
@app.task(name="tidy", queue=SCHEDULE_QUEUE, queueing_lock="tidy", pass_context=True)
async def tidy(context: JobContext, timestamp: int) -> None:
    """Delete the jobs that ended more than three days ago (the queue keeps every job)."""
    await builtin_tasks.remove_old_jobs(
        context, max_hours=72, remove_failed=True, remove_cancelled=True, remove_aborted=True
    )


#: A job whose worker has sent no heartbeat for this long (a worker sends one every 10 s)
#: died with it: :func:`retry_stalled` runs it again.
STALLED_SECONDS = 30


# Every 15 s (a sixth field of the cron: seconds): a killed worker's job runs again within
# STALLED_SECONDS and 15 s.
@app.periodic(cron="* * * * * */15", periodic_id="stalled-every-15-seconds")
@app.task(
    name="retry_stalled", queue=SCHEDULE_QUEUE, queueing_lock="retry_stalled", pass_context=True
)
async def retry_stalled(context: JobContext, timestamp: int) -> None:
    """Run again the jobs of workers that died in the middle of them (killed, their machine
    lost): any worker of the job's queue takes it; every job here may run twice."""
    manager = context.app.job_manager
    for job in await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_SECONDS):
        logger.warning("job %s[%s] stalled with its worker: retried", job.task_name, job.id)
        await manager.retry_job(job)


@app.periodic(cron="* * * * *", periodic_id="pools-every-minute")
@app.task(name="fill_pools", queue=SOLVER_QUEUE, lock="fill_pools", queueing_lock="fill_pools")
def fill_pools(timestamp: int) -> None:
    """Top up every winnable pool of ``POOL_RULES`` to ``POOL_TARGET`` fresh deals, at most
    ``POOL_FILL_CANDIDATES`` candidates and an equal share of ``POOL_FILL_SECONDS`` per
    ruleset a run (the next run goes on), so that a run ends soon, and a worker stops
    soon when asked to."""
    close_old_connections()
    share = settings.POOL_FILL_SECONDS / max(1, len(settings.POOL_RULES))
    try:
        for rules in settings.POOL_RULES:
            pools.fill(rules, settings.POOL_TARGET, seconds=share)
            predict.refresh(rules)  # the new deals' ratings, and a refit on new games
    finally:
        close_old_connections()


@app.task(name=mail.TASK, queue=MAIL_QUEUE, retry=3)
def account_mail(kind: str, user_id: int, email: str, origin: str, language: str) -> None:
    """Send an account's email (a password reset or an address verification link), built
    now (``games.writes.mail``): no job's arguments hold a token. Retried three times when
    the mail server fails."""
    close_old_connections()
    try:
        mail.mail_send(kind=kind, user_id=user_id, email=email, origin=origin, language=language)
    finally:
        close_old_connections()


@app.task(name=evidence.TASK, queue=SOLVER_QUEUE, retry=2)
def assess_game(game_id: str) -> None:
    """The evidence of a finished rated or contest game, and its flags for moderators
    (``games.writes.evidence``); queued by the event that finished it."""
    close_old_connections()
    try:
        evidence.evidence_record(uuid.UUID(game_id))
    finally:
        close_old_connections()


@app.task(name="analyse", queue=SOLVER_QUEUE)
def analyse(game_id: str, requester: str) -> None:
    """A finished game's post-game analysis with the full budgets, stored for the request
    that asked for it (``games.writes.analysis``: its lock and queueing lock are the
    game's, and ``requester`` is whose cap it counts in)."""
    close_old_connections()
    try:
        analysis_compute(uuid.UUID(game_id))
    except (GameNotFound, GameNotFinished):
        logger.warning("no analysis of game %s: not a finished game", game_id)
    finally:
        close_old_connections()


@app.periodic(cron="* * * * *", periodic_id="puzzles-every-minute")
@app.task(
    name="mine_puzzles", queue=SOLVER_QUEUE, lock="mine_puzzles", queueing_lock="mine_puzzles"
)
def mine_puzzles(timestamp: int) -> None:
    """Look for puzzles in the finished public games and the daily challenges' lines not
    looked at yet, for at most ``PUZZLE_MINE_SECONDS`` a run (the next run goes on from
    the miner's cursor)."""
    close_old_connections()
    try:
        done = puzzles_mine()
    finally:
        close_old_connections()
    if done.puzzles:
        logger.info(
            "puzzles: %d found in %d games and %d days", done.puzzles, done.games, done.days
        )
