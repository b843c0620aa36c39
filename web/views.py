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
from django.templatetags.static import static
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


#: The modules every page loads before it can draw anything (main.js's own imports).
_CORE = ("api.js", "dom.js", "i18n.js", "lang/en.js", "router.js", "widgets.js")
#: Besides the core, what each page's first view needs, fetched at once instead of one
#: import after another (a game's page picks play.js, watch.js or replay.js by itself).
_PAGE_MODULES = {
    "web-game": ("views/game.js", "board.js", "cards.js", "fit.js", "motion.js", "gamebits.js"),
    "web-lobby": ("views/lobby.js",),
    "web-daily": ("views/daily.js", "standings.js", "live.js"),
    "web-daily-date": ("views/daily.js", "standings.js", "live.js"),
    "web-race": ("views/race.js", "standings.js", "live.js"),
    "web-arena": ("views/arena.js", "standings.js", "live.js"),
    "web-tv": ("views/tv.js", "board.js", "cards.js", "fit.js", "motion.js", "gamebits.js"),
}


#: A game's page shows it one of two ways on a first view: played by its owner (signed in)
#: or watched. The shell names both, and boot.js preloads the one its visitor needs.
_LIKELY_WAYS = {
    "web-game": {"play": ("play.js",), "watch": ("watch.js", "live.js")},
}


@require_safe
def app_shell(request: HttpRequest, **route: str) -> HttpResponse:
    """The client's HTML shell, whatever the client route (the modules read the path),
    naming the modules its page needs first so that the browser fetches them together."""
    match = request.resolver_match
    page = match.url_name if match is not None else None
    preloads = [f"web/js/{name}" for name in (*_CORE, *_PAGE_MODULES.get(page or "", ()))]
    ways = {
        way: " ".join(static(f"web/js/{name}") for name in names)
        for way, names in _LIKELY_WAYS.get(page or "", {}).items()
    }
    response = render(request, "web/app.html", {"preloads": preloads, "ways": ways})
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    # Neither the page's address nor its query ever leaves for another site.
    response["Referrer-Policy"] = "same-origin"
    response["X-Content-Type-Options"] = "nosniff"
    # The shell is tiny and names the modules: always revalidate, so a deploy shows at once.
    response["Cache-Control"] = "no-cache"
    return response
