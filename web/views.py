"""The browser client: one HTML shell for every client page; the rest is static files.

The client (``static/web/``) is plain ES modules and CSS, built only on the public REST and
WebSocket API, with no build step. Every page of it (``web/urls.py``: the lobby, games,
the daily race and its archive, races, arenas, leaderboards, TV, profiles, sign-in) answers
the same shell, and the modules route in the browser. The shell is served with a
Content-Security-Policy that allows scripts, styles and connections from this origin only:
no inline script, no third-party anything.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

#: Only this origin's own files run, load or connect (CSP level 3's 'self' covers ws: and
#: wss: of the same host). ``style-src 'self'`` forbids inline style attributes; the client
#: sets CSS custom properties through the CSSOM, which the policy allows.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


@require_safe
def app_shell(request: HttpRequest, **route: str) -> HttpResponse:
    """The client's HTML shell, whatever the client route (the modules read the path)."""
    response = render(request, "web/app.html")
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    # Neither the page's address nor its query ever leaves for another site.
    response["Referrer-Policy"] = "same-origin"
    response["X-Content-Type-Options"] = "nosniff"
    # The shell is tiny and names the modules: always revalidate, so a deploy shows at once.
    response["Cache-Control"] = "no-cache"
    return response
