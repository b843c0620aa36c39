"""Background jobs, on the procrastinate job engine (its queue lives in PostgreSQL).

:func:`schedule` runs ``games.writes.schedule`` every minute (a periodic task, which
procrastinate defers once per minute whatever the number of workers); :func:`tidy` deletes
finished jobs older than three days, every night; :func:`fill_pools` keeps every winnable
pool of ``POOL_RULES`` topped up (``games.pools``), every minute, on the ``solver`` queue
with the rest of the solver's work: :func:`analyse`, the post-game analyses that outgrow a
request, and :func:`mine_puzzles`, which looks for puzzles in the games that became public
(``games.puzzles.mining``), every minute; :func:`retry_stalled` runs again, every 15 s,
the jobs whose worker died in the middle of them (each worker of ``games.jobs.runner`` also
does, every few seconds); :func:`account_mail` sends an account's emails,
on the ``mail`` queue. A worker
is ``manage.py procrastinate worker``: ``manage.py serve`` starts one beside the server
unless ``JOBS_WORKER=external`` (docs/operations.md#background-jobs), and a deployment runs
as many as it likes.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid

from django.conf import settings
from django.db import close_old_connections
from procrastinate import JobContext, RetryStrategy, builtin_tasks
from procrastinate.contrib.django import app
from procrastinate.exceptions import AlreadyEnqueued

from games import pools
from games.engine.solver import limits
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


# Every 15 s (a sixth field of the cron: seconds), besides each worker of ``manage.py
# worker`` every few seconds: a deployment whose workers are procrastinate's own gets it too.
@app.periodic(cron="* * * * * */15", periodic_id="stalled-every-15-seconds")
@app.task(
    name="retry_stalled", queue=SCHEDULE_QUEUE, queueing_lock="retry_stalled", pass_context=True
)
async def retry_stalled(context: JobContext, timestamp: int) -> None:
    """Run again the jobs of workers that died in the middle of them (killed, their machine
    lost), silent for ``JOBS_STALLED_SECONDS``: any worker of the job's queue takes it;
    every job here may run twice (``games.jobs.runner.recover_stalled``)."""
    from games.jobs import runner  # here: the runner imports this module

    await runner.recover_stalled()


@app.periodic(cron="* * * * *", periodic_id="pools-every-minute")
@app.task(name="fill_pools", queue=SOLVER_QUEUE, lock="fill_pools", queueing_lock="fill_pools")
def fill_pools(timestamp: int | None = None) -> None:
    """Certify deals into the winnable pools of ``POOL_RULES``, breadth first (the emptiest
    pool next, ``games.pools.fill_breadth_first``), for at most ``POOL_FILL_SECONDS``: the
    searches end by that deadline, and a worker asked to stop cuts them at once. While a
    pool is still below ``POOL_TARGET`` the run queues the next one as it ends, so that
    filling goes on continuously in short bounded runs; the periodic run, every minute,
    starts the chain again after a pause. Safe to run twice: each candidate's verdict is
    stored with the pool's cursor, and a search cut short is tried again whole."""
    close_old_connections()
    deadline = time.monotonic() + settings.POOL_FILL_SECONDS
    try:
        made = pools.fill_breadth_first(settings.POOL_RULES, settings.POOL_TARGET, deadline)
        low = any(
            count < settings.POOL_TARGET
            for count in pools.fresh_counts(settings.POOL_RULES).values()
        )
    finally:
        close_old_connections()
    if any(made.values()):
        logger.info(
            "pools: %s certified",
            ", ".join(f"{count} {rules}" for rules, count in made.items() if count),
        )
    if limits.interrupted():
        return
    if low:
        with contextlib.suppress(AlreadyEnqueued):  # a run waits already
            fill_pools.defer()
    if any(made.values()):
        with contextlib.suppress(AlreadyEnqueued):
            follow_pools.defer()


@app.periodic(cron="*/5 * * * *", periodic_id="follow-every-five-minutes")
@app.task(
    name="follow_pools",
    queue=SOLVER_QUEUE,
    lock="follow_pools",
    queueing_lock="follow_pools",
    priority=-1,
)
def follow_pools(timestamp: int | None = None) -> None:
    """With ``POOL_FOLLOW_HINTS``, play the hint follower on the certified deals that the
    pool-fill job left unfollowed (``games.pools.follow_up``), for at most
    ``POOL_FOLLOW_SECONDS`` a run, after the solver's other work (a lower priority); then
    rate the new deals and refit each ruleset on new rated games
    (``games.ratings.predict.refresh``; a deal drawn before is rated as it is drawn). A
    run that leaves some queues the next, and a run of the pool fill that made deals
    queues one."""
    close_old_connections()
    left = False
    try:
        if settings.POOL_FOLLOW_HINTS:
            pools.follow_up(time.monotonic() + settings.POOL_FOLLOW_SECONDS)
            left = pools.CertifiedDeal.objects.filter(followed_at__isnull=True).exists()
        for rules in settings.POOL_RULES:
            predict.refresh(rules)  # the new deals' ratings, and a refit on new games
    finally:
        close_old_connections()
    if left and not limits.interrupted():
        with contextlib.suppress(AlreadyEnqueued):
            follow_pools.defer()


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


#: A job cut short by a worker that stops (``games.engine.solver.limits.Interrupted``) is
#: queued again, to run whole on the next worker.
INTERRUPTED_RETRY = RetryStrategy(max_attempts=5, wait=1, retry_exceptions={limits.Interrupted})


@app.task(name=evidence.TASK, queue=SOLVER_QUEUE, retry=2)
def assess_game(game_id: str) -> None:
    """The evidence of a finished rated or contest game, and its flags for moderators
    (``games.writes.evidence``); queued by the event that finished it."""
    close_old_connections()
    try:
        evidence.evidence_record(uuid.UUID(game_id))
    finally:
        close_old_connections()


@app.task(name="analyse", queue=SOLVER_QUEUE, retry=INTERRUPTED_RETRY)
def analyse(game_id: str, requester: str) -> None:
    """A finished game's post-game analysis with the full budgets, stored for the request
    that asked for it (``games.writes.analysis``: its lock and queueing lock are the
    game's, and ``requester`` is whose cap it counts in). Safe to run twice: the analysis
    is stored once (the game is its key), and a second run finds it stored."""
    close_old_connections()
    try:
        analysis_compute(uuid.UUID(game_id))
    except (GameNotFound, GameNotFinished):
        logger.warning("no analysis of game %s: not a finished game", game_id)
    finally:
        close_old_connections()


@app.periodic(cron="* * * * *", periodic_id="puzzles-every-minute")
@app.task(
    name="mine_puzzles",
    queue=SOLVER_QUEUE,
    lock="mine_puzzles",
    queueing_lock="mine_puzzles",
    retry=INTERRUPTED_RETRY,
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
