"""Operations endpoints for load balancers and orchestrators: liveness and readiness.

Plain Django views (not DRF): they must answer even when authentication, the database or
the channel layer cannot.
"""

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from games.jobs import health

logger = logging.getLogger(__name__)

# A readiness probe must answer quickly; a dependency slower than this counts as down.
CHECK_TIMEOUT_SECONDS = 3.0

#: The database check runs on threads of its own: the request's thread is free to answer
#: when the cap is reached, whatever the check is still waiting for (a connection, the
#: pool), and the check's thread is done within the connection and pool timeouts.
_probes = ThreadPoolExecutor(max_workers=3, thread_name_prefix="readyz")


async def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the process serves requests. Touches no dependency."""
    return JsonResponse({"status": "ok"})


async def readyz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers ``SELECT 1``, a message makes a round trip through the
    channel layer and (with ``READYZ_JOBS``) the background work is served: a worker
    heartbeats on every queue the server needs, and no due job has waited past
    ``JOBS_READY_WAIT_SECONDS`` (``games.jobs.health``). Else 503 ``{"code":
    "unavailable", ...}`` naming what failed; ``jobs`` then says what is wrong with them."""
    checks: list[Any] = [_check_database(), _check_channel_layer()]
    if settings.READYZ_JOBS:
        checks.append(_check_jobs())
    database, channel_layer, *more = await asyncio.gather(*checks)
    jobs: str | dict[str, str] = more[0] if more else "ok"
    if database == channel_layer == jobs == "ok":
        body = {"status": "ok", "database": "ok", "channel_layer": "ok"}
        if settings.READYZ_JOBS:
            body["jobs"] = "ok"
        return JsonResponse(body)
    if database != "ok" and settings.READYZ_JOBS:
        jobs = "unknown"  # read from the database
    failing = [
        name
        for name, state in (("database", database), ("channel_layer", channel_layer))
        if state != "ok"
    ]
    if isinstance(jobs, dict):
        failing.extend(f"jobs ({problem})" for problem in jobs.values())
    answer: dict[str, Any] = {
        "code": "unavailable",
        "detail": _("Not ready: %(failing)s unavailable; retry later.")
        % {"failing": ", ".join(failing)},
        "database": database,
        "channel_layer": channel_layer,
    }
    if settings.READYZ_JOBS:
        answer["jobs"] = jobs
    response = JsonResponse(answer, status=503)
    # Not ready is a state a server passes through (starting, a dependency restarting), not
    # a fault of this request: a warning, where Django would log every probe's 503 as an
    # error.
    logger.warning("readyz: not ready: %s", ", ".join(failing))
    response._has_been_logged = True  # type: ignore[attr-defined]  # django.utils.log
    return response


async def _check_jobs() -> str | dict[str, str]:
    try:
        probe = asyncio.wrap_future(_probes.submit(_job_problems))
        found: dict[str, str] = await asyncio.wait_for(probe, CHECK_TIMEOUT_SECONDS)
    except Exception as error:
        logger.warning("readyz: jobs check failed: %r", error)
        return "unknown"
    return found or "ok"


def _job_problems() -> dict[str, str]:
    try:
        return health.problems()
    finally:
        connection.close()


async def _check_database() -> str:
    try:
        probe = asyncio.wrap_future(_probes.submit(_select_one))
        await asyncio.wait_for(probe, CHECK_TIMEOUT_SECONDS)
    except Exception as error:  # any failure means "not ready", never a 500
        logger.warning("readyz: database check failed: %r", error)
        return "unavailable"
    return "ok"


def _select_one() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()  # back to the pool; a broken one is dropped


async def _check_channel_layer() -> str:
    try:
        await asyncio.wait_for(_channel_layer_round_trip(), CHECK_TIMEOUT_SECONDS)
    except Exception as error:
        logger.warning("readyz: channel layer check failed: %r", error)
        return "unavailable"
    return "ok"


async def _channel_layer_round_trip() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = await layer.new_channel(prefix="readyz")
    await layer.send(channel, {"type": "readyz.ping"})
    message = await layer.receive(channel)
    if message.get("type") != "readyz.ping":
        raise RuntimeError(f"channel layer returned an unexpected message: {message!r}")
