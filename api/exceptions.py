"""The one place where errors become HTTP answers: ``{"code", "detail"}`` plus fields.

``exception_handler`` is DRF's ``EXCEPTION_HANDLER``: it maps DRF's exceptions, Django's
``Http404``/``PermissionDenied``/``RequestDataTooBig``, the domain errors of
``games.errors`` and an unreachable database (503, never 500) to the error shape of
docs/api.md#errors, with ``detail`` translated from the code (:mod:`api.messages`). The
``bad_request``, ``not_found``, ``permission_denied`` and ``server_error`` views answer the
same shape for ``/api/`` paths that never reached a DRF view (Django's ``handler400`` …
``handler500``).
"""

from __future__ import annotations

import logging
import math
from typing import Any

import psycopg
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import csrf, defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from api import messages
from games.errors import DomainError
from scorpion_server.observability import current_request_id

logger = logging.getLogger(__name__)

#: Seconds a client should wait before retrying when the database is unavailable.
UNAVAILABLE_RETRY_AFTER = 5

#: Errors that mean "the database cannot be reached now", not "this request is wrong":
#: Django's wrappers, and psycopg's own (a pool timeout is a ``psycopg.OperationalError``).
_UNAVAILABLE = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)

#: DRF exceptions answered with their status and one of our codes.
_DRF_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "authentication_failed"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
)


def error_body(code: str, **extra: Any) -> dict[str, Any]:
    """The error body of docs/api.md#errors: ``code``, its translated ``detail``, then
    ``extra`` fields, and the request's id (its ``X-Request-ID``) to quote in a report."""
    body = {"code": code, "detail": messages.message(code), **extra}
    request_id = current_request_id()
    if request_id is not None:
        body["request_id"] = request_id
    return body


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler: every error a view raises, in the shape of docs/api.md#errors."""
    response = _response_for(exc)
    if response is not None:
        set_rollback()
    return response


def _response_for(exc: Exception) -> Response | None:
    if isinstance(exc, DomainError):
        headers = {"WWW-Authenticate": "Token"} if exc.status == 401 else {}
        if exc.retry_after is not None:
            headers["Retry-After"] = str(exc.retry_after)
        return Response(error_body(exc.code, **exc.extra), status=exc.status, headers=headers)
    if isinstance(exc, exceptions.ValidationError):
        return Response(error_body("invalid", fields=_fields(exc.detail)), status=400)
    if isinstance(exc, exceptions.ParseError):
        return Response(error_body("invalid", fields={"body": [str(messages.MALFORMED_JSON)]}), 400)
    if isinstance(exc, RequestDataTooBig):
        return Response(messages.too_large_body(current_request_id()), status=413)
    if isinstance(exc, exceptions.Throttled):
        seconds = exc.wait  # type: ignore[attr-defined]  # set in Throttled.__init__
        wait = math.ceil(seconds) if seconds is not None else 1
        headers = {"Retry-After": str(max(wait, 1))}
        return Response(error_body("throttled"), status=429, headers=headers)
    if isinstance(exc, Http404):
        return Response(error_body("not_found"), status=404)
    if isinstance(exc, DjangoPermissionDenied):
        return Response(error_body("permission_denied"), status=403)
    if isinstance(exc, _UNAVAILABLE) or _caused_by_unavailable(exc):
        logger.warning("database unavailable: %r", exc)
        headers = {"Retry-After": str(UNAVAILABLE_RETRY_AFTER)}
        return Response(error_body("unavailable"), status=503, headers=headers)
    if isinstance(exc, exceptions.APIException):
        code = next((code for kind, code in _DRF_CODES if isinstance(exc, kind)), None)
        headers = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        if code is None:
            code = exc.default_code
        return Response(error_body(code), status=exc.status_code, headers=headers)
    return None  # a bug: Django answers 500 (``server_error`` below for API paths)


def _caused_by_unavailable(exc: Exception) -> bool:
    """A database error whose cause is a lost or refused connection."""
    return isinstance(exc, DatabaseError) and isinstance(exc.__cause__, _UNAVAILABLE)


def _fields(detail: Any) -> dict[str, list[str]]:
    """DRF's error detail as ``{name: [messages]}``; errors of the whole body under
    ``non_field_errors``."""
    if isinstance(detail, dict):
        return {str(name): _messages(value) for name, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(detail: Any) -> list[str]:
    if isinstance(detail, list):
        return [text for item in detail for text in _messages(item)]
    if isinstance(detail, dict):  # errors of a list's items or a nested object
        return [f"{key}: {text}" for key, value in detail.items() for text in _messages(value)]
    return [str(detail)]


# --- Django's error views, for /api/ paths that no DRF view handled --------------------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler400``: JSON for API paths (an oversized body is 413 ``too_large``)."""
    if not _is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return JsonResponse(messages.too_large_body(current_request_id()), status=413)
    reason = messages.message("invalid")
    return JsonResponse(error_body("invalid", fields={"body": [reason]}), status=400)


@csrf_exempt  # a POST to an unknown URL is a 404, not a CSRF failure
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``, and the catch-all of ``/api/``: unknown API URLs answer JSON 404,
    whatever the method."""
    if not _is_api(request):
        return defaults.page_not_found(request, exception or Http404())
    return JsonResponse(error_body("not_found"), status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: JSON 403 ``permission_denied`` for API paths."""
    if not _is_api(request):
        return csrf.csrf_failure(request, reason)
    return JsonResponse(error_body("permission_denied"), status=403)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler403``: JSON for API paths."""
    if not _is_api(request):
        return defaults.permission_denied(request, exception)
    return JsonResponse(error_body("permission_denied"), status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: JSON for API paths (a bug; tests keep this from ever happening)."""
    if not _is_api(request):
        return defaults.server_error(request)
    return JsonResponse(error_body("server_error"), status=500)
