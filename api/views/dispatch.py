"""One URL served by several one-operation views, each chosen by the request's method."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponseBase
from rest_framework.views import APIView


def by_method(**views: type[APIView]) -> Any:
    """A view for one path that hands ``GET`` to ``views["get"]``, ``POST`` to
    ``views["post"]`` and so on; other methods get the usual 405.

    Each operation keeps its own view class (permissions, throttles, schema); the router
    carries their handlers only so that drf-spectacular documents every method of the
    path from the operation's own ``@extend_schema``.
    """
    handlers = {method: view.as_view() for method, view in views.items()}

    def dispatch(self: APIView, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        handler = handlers.get((request.method or "").lower())
        if handler is None:
            response: HttpResponseBase = APIView.dispatch(self, request, *args, **kwargs)
            return response
        return handler(request, *args, **kwargs)

    attributes: dict[str, Any] = {"dispatch": dispatch, "__doc__": by_method.__doc__}
    for method, view in views.items():
        attributes[method] = getattr(view, method)
    name = "".join(view.__name__.removesuffix("Api") for view in views.values()) + "Api"
    router: type[APIView] = type(name, (APIView,), attributes)
    return router.as_view()
