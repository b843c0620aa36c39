"""Content-Security-Policy for the server's own HTML pages outside the browser client: the
admin and the API's documentation (the client's shell sets its own: ``web.views``).

Each runs and loads only this origin's files. The API docs page is drf-spectacular's
Swagger UI split into HTML and a script file, with its inline style moved to a file
(``api/templates/api/swagger_ui.html``); the admin's own pages have no inline script or
style either (the replay's style is a file). So neither allows any inline code.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase


def _policy() -> str:
    return "; ".join(
        (
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


#: The policy of each path prefix.
POLICIES = {
    "/admin/": _policy(),
    "/api/docs/": _policy(),
}


class ContentSecurityPolicyMiddleware:
    """Adds the policy of :data:`POLICIES` to the answers under its path prefixes."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        for prefix, policy in POLICIES.items():
            if request.path.startswith(prefix):
                response.headers.setdefault("Content-Security-Policy", policy)
                break
        return response
