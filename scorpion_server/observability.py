"""What an operator sees of a running process: request ids, logs and ``/metrics``.

- :class:`RequestIdMiddleware` (first of ``MIDDLEWARE``) gives every HTTP request an id: the
  client's ``X-Request-ID`` if it is sane (1 to 128 letters, digits, ``.``, ``_``, ``:``,
  ``-``), else a new one. The id is in the ``X-Request-ID`` header of the answer, in every
  error body (``api.exceptions.error_body``) and in every log line written while the
  request is served. It also counts requests and their latency by route.
- ``LOG_FORMAT=json`` (:class:`JsonFormatter`) writes one JSON object per line, with the
  request id; the default ``plain`` format shows it in brackets.
- :func:`metrics_view` serves ``/metrics`` in Prometheus' text format, if
  ``METRICS_ENABLED``, to clients from ``METRICS_ALLOWED_NETWORKS`` or presenting
  ``Authorization: Bearer <METRICS_TOKEN>``; anyone else gets 403. Each daphne process
  exports its own figures (scrape every process); with ``PROMETHEUS_MULTIPROC_DIR`` set the
  processes of one host write to files there and any of them answers for all. The figures
  of the background work (queues, workers, pools: ``games.jobs.health``) are read from the
  database at each scrape, the same from every process (``METRICS_JOBS``).
"""

from __future__ import annotations

import atexit
import contextvars
import datetime as dt
import hmac
import ipaddress
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from games import metrics

_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
request_log = logging.getLogger("scorpion.request")
logger = logging.getLogger(__name__)


def current_request_id() -> str | None:
    """The id of the HTTP request this thread serves, if any."""
    return _request_id.get()


def bind_request_id(request_id: str) -> None:
    """Name the request this thread or task serves in the log lines written from now on."""
    _request_id.set(request_id)


def request_id_for(incoming: str | None) -> str:
    """The client's ``X-Request-ID`` if it is sane, else a new id."""
    if incoming is not None and _SANE_ID.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Names each request (``X-Request-ID``), and counts and logs it once answered."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request_id = request_id_for(request.headers.get("X-Request-ID"))
        # Not reset on the way out: Django logs a failed request after the middleware has
        # answered, and that line must carry the id too; the next request sets its own.
        bind_request_id(request_id)
        started = time.perf_counter()
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        elapsed = time.perf_counter() - started
        match = request.resolver_match
        route = (match.url_name or "unnamed") if match is not None else "unmatched"
        method = request.method if request.method in _METHODS else "other"
        metrics.http_requests.labels(route, method, str(response.status_code)).inc()
        metrics.http_seconds.labels(route).observe(elapsed)
        request_log.info(
            "%s %s %s %.1f ms",
            method,
            route,
            response.status_code,
            elapsed * 1000,
            extra={
                "method": method,
                "route": route,
                "status": response.status_code,
                "duration_ms": round(elapsed * 1000, 3),
            },
        )
        return response


# --- logs ------------------------------------------------------------------------------------


class RequestIdFilter(logging.Filter):
    """Gives every record the current request id (``None`` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _request_id.get()
        return True


#: Attributes of every ``LogRecord``; anything else on a record was passed as ``extra``.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "request_id"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id, extras, and the
    exception's traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str)


# --- /metrics --------------------------------------------------------------------------------


def _client_address(request: HttpRequest) -> str:
    """The client's address as the throttles see it: behind ``NUM_PROXIES`` proxies, the
    address they forwarded; else the peer's."""
    proxies: int = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0  # type: ignore[assignment]
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies and forwarded:
        addresses = [part.strip() for part in forwarded.split(",") if part.strip()]
        if addresses:
            return str(addresses[-min(proxies, len(addresses))])
    return str(request.META.get("REMOTE_ADDR", ""))


def _allowed(request: HttpRequest) -> bool:
    token: str = settings.METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "")
        if hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            return True
    try:
        address = ipaddress.ip_address(_client_address(request))
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


def _registry() -> CollectorRegistry:
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return registry


class _PoolCollector:
    """``scorpion_pool_deals{rules,state}``: the winnable pools as the database holds them,
    read at each scrape (the workers certify, any process deals: no one process's counter
    could say it). A database that does not answer leaves the family out."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "scorpion_pool_deals",
            "Deals of each ruleset's winnable pool, by state: certified (all), dealt (from "
            "the pool, to anyone), rated (dealt to a rated game, once each), ready (seen by "
            "nobody: what rated games may still be dealt)",
            labels=["rules", "state"],
        )
        from games import pools  # the models: not while settings import this module

        try:
            found = pools.counts(settings.POOL_RULES)
        except DatabaseError:
            logger.warning("pool counts unavailable for /metrics", exc_info=True)
            return
        for rules, states in sorted(found.items()):
            for state in pools.STATES:
                family.add_metric([rules, state], states[state])
        yield family


_POOLS = CollectorRegistry(auto_describe=False)
_POOLS.register(_PoolCollector())


def metrics_view(request: HttpRequest) -> HttpResponse:
    """``/metrics``: 404 when turned off, 403 for a client it is not for."""
    if not settings.METRICS_ENABLED:
        return HttpResponse("not found\n", status=404, content_type="text/plain")
    if not _allowed(request):
        return HttpResponse("forbidden\n", status=403, content_type="text/plain")
    body = generate_latest(_registry()) + generate_latest(_POOLS)
    if settings.METRICS_JOBS:
        body += _jobs_metrics()
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


def _jobs_metrics() -> bytes:
    """The background work's figures, read from the database at each scrape
    (``games.jobs.health``); none while the database does not answer."""
    from games.jobs import health  # here: the job engine's app loads with the models

    registry = CollectorRegistry(auto_describe=False)
    registry.register(health.JobsCollector())
    try:
        return generate_latest(registry)
    except Exception as error:
        logging.getLogger(__name__).warning("metrics: the jobs' figures failed: %r", error)
        return b""


if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):

    @atexit.register
    def _mark_dead() -> None:  # the live gauges of a process that ended stop counting
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
