"""The browser client: one HTML shell for every client page; the rest is static files.

The client (``static/web/``) is plain ES modules and CSS, built only on the public REST and
WebSocket API, with no build step. Every page of it (``web/urls.py``: the lobby, games,
the daily race and its archive, races, arenas, leaderboards, TV, profiles, sign-in, the
account page and its recovery links) answers the same shell, and the modules route in the
browser. The shell is served with a
Content-Security-Policy that allows scripts, styles and connections from this origin only:
no third-party anything, and no inline script or style but the client's own, named by its
hash. A game's page also carries, as JSON data (a ``<script type="application/json">``,
which runs nothing), the API's answers its first view needs, so that the board is drawn
without waiting for a round trip.

A first visit's shell carries the client itself, the stylesheet and the bundle (``web.bundle``)
inline, so that the first view waits for no other file; it is sent compressed (its fixed
head compressed once per process), sets a cookie naming the client's version, and names the
client's files for the page to fetch once it is idle. A visit that brings the cookie, whose
browser has the files cached, gets the shell that links them.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib.staticfiles import finders
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from api.views import games as games_api
from games.dailies import challenges
from games.errors import DomainError
from games.reads import selectors, visibility
from web import bundle, modules


def _policy(scripts: tuple[str, ...] = (), styles: tuple[str, ...] = ()) -> str:
    """Only this origin's own files run, load or connect (CSP level 3's 'self' covers ws: and
    wss: of the same host), and the inline scripts and styles whose hashes are given.
    ``style-src`` without 'unsafe-inline' forbids inline style attributes; the client sets
    CSS custom properties through the CSSOM, which the policy allows."""
    return "; ".join(
        (
            "default-src 'none'",
            " ".join(("script-src 'self'", *scripts)),
            " ".join(("style-src 'self'", *styles)),
            "img-src 'self' data:",
            "connect-src 'self'",
            "manifest-src 'self'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


#: The policy of the shell that links the client's files.
CONTENT_SECURITY_POLICY = _policy()

#: The cookie of a browser that was sent the client inline, naming its version: with it,
#: the shell links the files, which that page fetched for the next visit.
ASSETS_COOKIE = "scorpion_assets"
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")


#: The view module main.js loads for each page (its route table), which the shell preloads
#: with main.js and everything both import (``web.modules`` reads the imports).
_VIEWS = {
    "web-lobby": "views/lobby.js",
    "web-signin": "views/signin.js",
    "web-account": "views/account.js",
    "web-account-step": "views/recover.js",
    "web-daily": "views/daily.js",
    "web-daily-date": "views/daily.js",
    "web-archive": "views/archive.js",
    "web-archive-month": "views/archive.js",
    "web-races": "views/races.js",
    "web-race": "views/race.js",
    "web-arenas": "views/arenas.js",
    "web-arena": "views/arena.js",
    "web-leaderboards": "views/leaderboards.js",
    "web-tv": "views/tv.js",
    "web-game": "views/game.js",
    "web-player": "views/profile.js",
    "web-player-stats": "views/stats.js",
}

#: The ways a game's page shows a game (views/game.js), each a module loaded on demand.
_WAYS = {"play": "play.js", "watch": "watch.js", "replay": "replay.js"}


def _game_page(game_id: str) -> tuple[dict[str, Any], str | None]:
    """What a game's page carries inline: the answers of ``GET /games/{id}`` and
    ``GET /rules`` as the API gives them to an anonymous reader (the page's request carries
    no token: the client's only credential stays in the browser), keyed by the API path the
    client asks; and the way the game will be shown whoever looks, if that is known.

    A game an anonymous reader may not read (a private game, a running contest's deal, an
    open day's daily game) or that does not exist carries nothing: the client asks the API
    with its token, as without the shell's help. What an anonymous reader reads is what any
    reader but staff reads (``games.reads.visibility``): the client takes it as it is,
    and when it hides cards and the visitor is signed in (staff might see them) asks the API
    once more, after the board is drawn."""
    try:
        seen = selectors.game_get(game_id=game_id, viewer=visibility.ANONYMOUS)
    except (DomainError, DatabaseError):
        return {}, None  # the client asks the API, which says what is wrong
    game = games_api.game_json(seen)
    path = f"/games/{quote(game_id, safe=_URI_COMPONENT_SAFE)}"
    answers = {path: game, "/rules": _rules_body(translation.get_language())}
    race_over = game["challenge"] is not None and game["challenge"] < challenges.today().isoformat()
    way = "replay" if race_over or game["status"] != "playing" else None
    return answers, way


@functools.cache
def _rules_body(language: str) -> Any:
    """``GET /rules`` in ``language``: the rulesets are fixed in a process, so it is built
    once per language, by the API's own function."""
    with translation.override(language):
        return games_api.rules_body()


#: What JavaScript's encodeURIComponent leaves as it is (main.js builds the API path so).
_URI_COMPONENT_SAFE = "-_.!~*'()"


@dataclass(frozen=True)
class Inline:
    """The shell's head with the client in it, as a first visit gets it."""

    #: What the cookie names: a digest of the client carried.
    version: str
    #: The head, from the doctype to the client's script, and its gzip compression so far,
    #: with the compressor's state, copied for each page's rest.
    head: bytes
    compressed: bytes
    compressor: Any
    #: The policy that lets the carried style and script run (by their hashes).
    policy: str
    #: The client's files, which the page fetches once idle for the next visit.
    files: str


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline_client() -> Inline | None:
    """The client to carry in a first visit's shell, built once per process (about 0.3 s)
    and again only if the static files' names change (as ``collectstatic`` names them):
    the stylesheet, and the bundle as ``web.bundle`` builds it for a page (``boot.js`` in
    it, the language packs by their URLs); None if either could end its element early."""
    return _inline_client(tuple(static(name) for name in _CLIENT_FILES))


_STYLESHEET = "web/css/app.css"
#: The client's files, in the order a first visit's page fetches them for the next visit.
_CLIENT_FILES = (_STYLESHEET, bundle.NAME, "web/js/boot.js")


@functools.cache
def _inline_client(files: tuple[str, ...]) -> Inline | None:
    """``inline_client`` for the client's files at the URLs ``files`` (its cache key)."""
    stylesheet = finders.find(_STYLESHEET)
    assert isinstance(stylesheet, str)
    css = Path(stylesheet).read_text(encoding="utf-8").strip()
    script = bundle.build(modules.source_root(), located=static)
    if re.search(r"</style", css, re.I) or re.search(r"</script|<!--", script, re.I):
        return None
    head = (
        render_to_string("web/shell_head.html")
        + f'<style>{css}</style>\n<script type="module">{script}</script>\n'
    ).encode()
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: with a gzip header
    compressed = compressor.compress(head)
    return Inline(
        version=hashlib.sha256(head).hexdigest()[:16],
        head=head,
        compressed=compressed,
        compressor=compressor,
        policy=_policy(scripts=(_digest(script),), styles=(_digest(css),)),
        files=" ".join(files),
    )


@require_safe
def app_shell(request: HttpRequest, **route: str) -> HttpResponse:
    """The client's HTML shell, whatever the client route (the modules read the path): the
    client's one script (``web.bundle``), or with ``WEB_BUNDLE`` off its modules as written,
    naming those its page needs first so that the browser fetches them together."""
    match = request.resolver_match
    page = match.url_name if match is not None else None
    answers: dict[str, Any] = {}
    if page == "web-game":
        answers, way = _game_page(route["game_id"])
    if settings.WEB_BUNDLE:
        carried = inline_client()
        if carried is not None and request.COOKIES.get(ASSETS_COOKIE) != carried.version:
            return _first_visit(request, carried, answers)
        # The whole client in one script (web.bundle): nothing to preload.
        response = _shell(request, {"entry": bundle.NAME, "answers": answers or None})
        patch_vary_headers(response, ("Cookie",))
        return response
    view = _VIEWS.get(page or "")
    core = modules.closure("main.js", *([view] if view else []))
    ways: dict[str, str] = {}
    if page == "web-game":
        if way is not None:  # shown the same way to everyone: preloaded with the rest
            core += modules.closure(_WAYS[way], leaving=tuple(core))
        else:
            # Played by its owner or watched: what both ways import (the board) is preloaded
            # at once; boot.js preloads the rest of the one its visitor needs.
            play, watch = (
                modules.closure(_WAYS[n], leaving=tuple(core)) for n in ("play", "watch")
            )
            core += [module for module in play if module in watch]
            ways = {
                name: " ".join(static(module) for module in graph if module not in core)
                for name, graph in (("play", play), ("watch", watch))
            }
    context = {
        "entry": "web/js/main.js",
        "preloads": [m for m in core if m not in ("web/js/main.js", "web/js/boot.js")],
        "ways": ways,
        "answers": answers or None,
    }
    return _shell(request, context)


def _first_visit(request: HttpRequest, carried: Inline, answers: dict[str, Any]) -> HttpResponse:
    """The shell with the client inline: its head as built once, then the page's own rest,
    compressed on from the head's saved state when the browser accepts gzip (the head is
    most of the page, and compressing it again for each page would cost milliseconds)."""
    rest = render_to_string(
        "web/app.html", {"inline": carried, "answers": answers or None}, request
    ).encode()
    if _ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")):
        compressor = carried.compressor.copy()
        body = carried.compressed + compressor.compress(rest) + compressor.flush()
        response = HttpResponse(body, content_type="text/html; charset=utf-8")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(carried.head + rest, content_type="text/html; charset=utf-8")
    patch_vary_headers(response, ("Accept-Encoding", "Cookie"))
    response.set_cookie(
        ASSETS_COOKIE,
        carried.version,
        max_age=365 * 24 * 3600,
        secure=request.is_secure(),
        httponly=True,
        samesite="Lax",
    )
    return _headers(response, carried.policy)


def _shell(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    return _headers(render(request, "web/app.html", context), CONTENT_SECURITY_POLICY)


def _headers(response: HttpResponse, policy: str) -> HttpResponse:
    response["Content-Security-Policy"] = policy
    # Neither the page's address nor its query ever leaves for another site.
    response["Referrer-Policy"] = "same-origin"
    response["X-Content-Type-Options"] = "nosniff"
    # The shell names the client's version: always revalidate, so a deploy shows at once.
    response["Cache-Control"] = "no-cache"
    return response
