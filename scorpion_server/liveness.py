"""``GET /healthz`` answered on the event loop, before Django.

A liveness probe asks one thing: does this process still serve requests? Through Django it
waited, as every request does, for a thread of the pool (``scorpion_server.handler``) and the
middleware chain, so its latency measured how busy the threads were (a p50 of 14 ms idle on
this machine, p99 past 50 ms under a hint flood). Answered here it measures the event loop
alone, which is what a load balancer needs to know, and costs no thread.

The answer is the one the Django view gives (``api.views.ops.healthz``, still there for the
test client and for methods other than GET and HEAD): the same body, the request's
``X-Request-ID``, the security headers the middleware would add, and the request counted and
logged under the route ``healthz``. It does not check ``ALLOWED_HOSTS``: a probe addressed to
the pod's own IP is answered too. ``Strict-Transport-Security`` is left out: no browser
navigates to a probe.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from games import metrics
from scorpion_server.observability import bind_request_id, request_id_for, request_log

PATH = "/healthz"
BODY = b'{"status": "ok"}'
METHODS = frozenset({"GET", "HEAD"})


def _headers() -> list[tuple[bytes, bytes]]:
    """The headers every answer carries but its request id, from the settings that
    Django's security and clickjacking middleware read."""
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(BODY)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"x-content-type-options", b"nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        headers.append((b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        policy = settings.SECURE_CROSS_ORIGIN_OPENER_POLICY
        headers.append((b"cross-origin-opener-policy", policy.encode()))
    headers.append((b"x-frame-options", settings.X_FRAME_OPTIONS.encode()))
    return headers


def liveness(application: Any) -> Any:
    """``application`` with ``GET`` and ``HEAD /healthz`` answered before it."""
    fixed = _headers()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        probe = scope["type"] == "http" and scope["path"] == PATH
        if not probe or scope["method"] not in METHODS:
            await application(scope, receive, send)
            return
        started = time.perf_counter()
        incoming = dict(scope.get("headers") or ()).get(b"x-request-id")
        request_id = request_id_for(incoming.decode("latin-1") if incoming else None)
        bind_request_id(request_id)
        headers = [*fixed, (b"x-request-id", request_id.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        body = b"" if scope["method"] == "HEAD" else BODY
        await send({"type": "http.response.body", "body": body})
        elapsed = time.perf_counter() - started
        metrics.http_requests.labels("healthz", scope["method"], "200").inc()
        metrics.http_seconds.labels("healthz").observe(elapsed)
        request_log.info(
            "%s healthz 200 %.1f ms",
            scope["method"],
            elapsed * 1000,
            extra={
                "method": scope["method"],
                "route": "healthz",
                "status": 200,
                "duration_ms": round(elapsed * 1000, 3),
            },
        )

    return app
