"""No 500 from anything a client sends over REST: generated inputs of three kinds, each
at least 200 cases, against the real application (the Django test client, real
PostgreSQL), every answer a 4xx or 2xx; errors of the API in its JSON shape with a code.

- **Dates at the calendar's edge** in every date, month, week and time a client names: the
  leaderboards' ``at`` (each period), the archive's ``month``, a challenge's day in its
  paths, an export's month, a race's ``starts_at``, and the times inside the cursors the
  server pages by.
- **Odd characters** (NUL, controls, lone surrogates, very long text, percent escapes) in
  every path parameter (game ids, race codes, arena ids, days, usernames, scopes and
  metrics) and every query parameter.
- **Traversal under ``/static/``**, through the ASGI application as the server runs it
  (static files are served by ``ASGIStaticFilesHandler``, which the test client skips).

WebSocket paths and parameters are the subject of ``test_ws_no_server_error.py``.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from channels.testing import HttpCommunicator
from django.test import Client
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from games.boards import metrics as board_metrics
from games.engine import RULESETS
from games.writes import accounts

pytestmark = pytest.mark.django_db(transaction=True)

#: Every generated test draws at least this many cases.
CASES = 200

_SETTINGS = settings(
    max_examples=CASES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# --- what a client may send ----------------------------------------------------------------

_EDGE_DAYS = [dt.date.min, dt.date.max, dt.date(1, 1, 7), dt.date(9999, 12, 25)]
days = st.one_of(st.sampled_from(_EDGE_DAYS), st.dates())
#: Years and months around (and past) the calendar's ends, as text.
years = st.one_of(
    st.sampled_from([0, 1, 2, 1969, 1970, 2026, 9998, 9999]), st.integers(0, 9999)
).map(lambda year: f"{year:04d}")
date_texts = st.one_of(
    days.map(dt.date.isoformat),
    days.map(lambda day: f"{day.year:04d}-{day.month:02d}"),
    days.map(lambda day: "{:04d}-W{:02d}".format(*day.isocalendar()[:2])),
    st.builds("{}-W{:02d}".format, years, st.integers(0, 60)),
    st.builds("{}-{:02d}".format, years, st.integers(0, 13)),
    st.builds("{}-{:02d}-{:02d}".format, years, st.integers(0, 13), st.integers(0, 32)),
    st.sampled_from(["10000-01-01", "-0001-01-01", "+2026-01-01", "today", "2026-W", "W53"]),
)
_EDGE_TIMES = [
    dt.datetime.min.replace(tzinfo=dt.UTC),
    dt.datetime.max.replace(tzinfo=dt.UTC),
    # In UTC these are a day before the first and after the last the calendar has.
    dt.datetime.min.replace(tzinfo=dt.timezone(dt.timedelta(hours=23, minutes=59))),
    dt.datetime.max.replace(tzinfo=dt.timezone(-dt.timedelta(hours=23, minutes=59))),
]
times = st.one_of(
    st.sampled_from(_EDGE_TIMES),
    st.datetimes(timezones=st.sampled_from([dt.UTC, dt.timezone(dt.timedelta(hours=-12))])),
)
time_texts = st.one_of(
    times.map(dt.datetime.isoformat),
    times.map(lambda at: at.isoformat().replace("+00:00", "Z")),
    st.sampled_from(["9999-12-31T23:59:59.999999+00:00", "0001-01-01T00:00:00+14:00"]),
)

#: Odd text: NUL and other controls, lone surrogates, whitespace, escapes, long runs.
odd_texts = st.one_of(
    st.text(
        alphabet=st.characters(exclude_characters="/"),
        min_size=1,
        max_size=40,
    ),
    st.builds(
        "{}{}{}".format,
        st.sampled_from(["", "ABC", "abc123", "2026-12-03", "classic"]),
        st.sampled_from(["\x00", "\x01", "\x1f", "\x7f", "\ud800", "\udfff", "\ufffd", "\u202e"]),
        st.sampled_from(["", "x", "\x00"]),
    ),
    st.sampled_from(["%00", "%", "%zz", "%ff%fe", "..", ".", " ", "a" * 5000, "\\", "'\"`;--"]),
)


def in_path(text: str) -> str:
    """``text`` as one path segment (UTF-8, percent-escaped; a lone surrogate as U+FFFD is
    what a server decoding real bytes would see, so send its escape too)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


# --- what is answered ----------------------------------------------------------------------


def assert_client_error(response: Any, url: str) -> None:
    """Not a server error; an error of the API carries its code."""
    status = response.status_code
    assert status < 500, (url, status, response.content[:300])
    if status >= 400 and url.startswith("/api/"):
        assert response["Content-Type"] == "application/json", (url, response.content[:300])
        assert isinstance(json.loads(response.content).get("code"), str), url


@pytest.fixture
def world(django_user_model) -> dict[str, Any]:
    """A player with a token, their game and their race: ids and codes to aim at."""
    user = django_user_model.objects.create_user("edge", password="pw-edge-123")
    token = accounts.key_issue(user=user)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token}")
    game = client.post("/api/v1/games", {"seed": 1}, content_type="application/json").json()
    race = client.post(
        "/api/v1/races", {"countdown": 60, "time_limit": 600}, content_type="application/json"
    ).json()
    return {"client": client, "game": game["id"], "race": race["code"], "race_id": race["id"]}


# --- dates ---------------------------------------------------------------------------------


def _cursor(*pairs: tuple[str, str]) -> str:
    """A cursor as Django REST framework's cursor pagination writes one."""
    return base64.b64encode(urlencode(pairs).encode()).decode()


def _board_cursor(at: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([3, at, 1]).encode()).decode()


@_SETTINGS
@given(
    day=date_texts,
    at=time_texts,
    period=st.sampled_from(board_metrics.PERIODS),
    scope=st.sampled_from(["daily", *RULESETS]),
)
@example(day="9999-12", at=_EDGE_TIMES[1].isoformat(), period="month", scope="classic")
@example(day="9999-12-31", at=_EDGE_TIMES[2].isoformat(), period="week", scope="daily")
@example(day="0001-01-01", at=_EDGE_TIMES[3].isoformat(), period="week", scope="classic")
def test_dates_at_the_calendars_edge(world, day: str, at: str, period: str, scope: str):
    client = world["client"]
    metric = "streak" if scope == "daily" else "best_time"
    query = urlencode
    for url in (
        f"/api/v1/leaderboards/{scope}/{metric}?" + query({"period": period, "at": day}),
        f"/api/v1/leaderboards/{scope}/wins?"
        + query({"period": period, "cursor": _board_cursor(at)}),
        "/api/v1/challenges?" + query({"month": day}),
        f"/api/v1/challenges/{in_path(day)}",
        f"/api/v1/challenges/{in_path(day)}/standings",
        f"/api/v1/challenges/{in_path(day)}/solution/1",
        "/api/v1/games?" + query({"cursor": _cursor(("p", at))}),
        "/api/v1/races?" + query({"cursor": _cursor(("p", at))}),
        "/api/v1/arenas?" + query({"cursor": _cursor(("p", at), ("r", "1"))}),
        f"/api/v1/exports/{in_path(day)}.scorpion.gz",
        f"/api/v1/exports/{in_path(day)}.scorpion.gz.sha256",
        f"/daily/{in_path(day)}",
        f"/archive/{in_path(day)}",
    ):
        assert_client_error(client.get(url), url)
    url = f"/api/v1/challenges/{in_path(day)}/join"
    assert_client_error(client.post(url), url)
    url = "/api/v1/races"
    body = {"starts_at": at, "time_limit": 600}
    assert_client_error(client.post(url, body, content_type="application/json"), url)


# --- odd characters ------------------------------------------------------------------------

#: Every path of the API with a parameter, ``{}`` where it goes.
_PATHS = [
    "/api/v1/players/{}",
    "/api/v1/games/{}",
    "/api/v1/games/{}/events",
    "/api/v1/games/{}/moves",
    "/api/v1/games/{}/hint",
    "/api/v1/games/{}/analysis",
    "/api/v1/games/{}/states/1",
    "/api/v1/challenges/{}",
    "/api/v1/challenges/{}/standings",
    "/api/v1/challenges/{}/solution/1",
    "/api/v1/leaderboards/{}/wins",
    "/api/v1/leaderboards/classic/{}",
    "/api/v1/races/{}",
    "/api/v1/races/{}/games",
    "/api/v1/races/{}/standings",
    "/api/v1/arenas/{}",
    "/api/v1/arenas/{}/games",
    "/api/v1/arenas/{}/standings",
    "/api/v1/exports/{}",
    # The browser client's pages.
    "/daily/{}",
    "/archive/{}",
    "/races/{}",
    "/arenas/{}",
    "/games/{}",
    "/players/{}",
]
_POSTS = [
    "/api/v1/games/{}/commands",
    "/api/v1/games/{}/hints",
    "/api/v1/challenges/{}/join",
    "/api/v1/races/{}/join",
    "/api/v1/races/{}/games",
    "/api/v1/arenas/{}/play",
]
#: Every query parameter of the API, on a path that reads it.
_QUERIES = [
    ("/api/v1/games", ["owner", "status", "rules", "limit", "cursor"]),
    ("/api/v1/games/live", ["rules", "limit"]),
    ("/api/v1/games/{game}", ["format"]),
    ("/api/v1/games/{game}/events", ["after"]),
    ("/api/v1/challenges", ["month"]),
    ("/api/v1/leaderboards/classic/wins", ["period", "at", "limit", "cursor"]),
    ("/api/v1/races", ["status", "limit", "cursor"]),
    ("/api/v1/arenas", ["status", "limit", "cursor"]),
    ("/api/v1/races/{race}/standings", ["limit"]),
    ("/api/v1/log", ["after", "limit", "format"]),
]


@_SETTINGS
@given(text=odd_texts, prefix=st.sampled_from(["", "race", "game"]))
@example(text="\x00", prefix="race")
@example(text="\ud800", prefix="")
def test_odd_characters_in_paths_and_queries(world, text: str, prefix: str):
    client = world["client"]
    # Glued to a real code or id, the odd part is what reaches the lookup.
    glued = {"": "", "race": world["race"], "game": world["game"]}[prefix] + text
    for path in _PATHS:
        url = path.format(in_path(glued))
        assert_client_error(client.get(url), url)
    for path in _POSTS:
        url = path.format(in_path(glued))
        body = {"type": "draw"} if "commands" in url else {}
        assert_client_error(client.post(url, body, content_type="application/json"), url)
    for path, names in _QUERIES:
        path = path.format(game=world["game"], race=world["race"])
        for name in names:
            url = f"{path}?{name}={in_path(glued)}"
            assert_client_error(client.get(url), url)
    # And in the headers a client sends: its key, a command's Idempotency-Key, a request id.
    header = glued.encode("utf-8", "surrogatepass").decode("latin-1", "replace")
    anyone = Client(raise_request_exception=False)
    url = "/api/v1/auth/me"
    assert_client_error(anyone.get(url, HTTP_AUTHORIZATION=f"Token {header}"), url)
    url = f"/api/v1/games/{world['game']}/commands"
    answer = client.post(
        url, {"type": "resign"}, content_type="application/json", HTTP_IDEMPOTENCY_KEY=header
    )
    assert_client_error(answer, url)
    assert_client_error(client.get("/api/v1/rules", HTTP_X_REQUEST_ID=header), "/api/v1/rules")


# --- traversal under /static/ --------------------------------------------------------------

_CLIMBS = ["..", "%2e%2e", ".%2e", "%2E%2E", "..%2f..", "..\\..", "%2e%2e%5c", "....", "."]
_TARGETS = ["manage.py", "etc/passwd", "scorpion_server/settings.py", ".env", "", "%00", "\x00"]


@_SETTINGS
@given(
    start=st.sampled_from(
        ["", "admin/", "admin/css/", "rest_framework/", "drf_spectacular_sidecar/"]
    ),
    climbs=st.lists(st.sampled_from(_CLIMBS), min_size=1, max_size=8),
    target=st.one_of(st.sampled_from(_TARGETS), odd_texts),
    slash=st.sampled_from(["/", "\\", "%2f", "%5c", "//"]),
)
def test_traversal_under_static(start: str, climbs: list[str], target: str, slash: str):
    from scorpion_server.asgi import application

    path = "/static/" + start + slash.join(climbs) + slash + target
    status, body = asyncio.run(_asgi_get(application, path))
    assert status < 500, (path, status, body[:300])
    assert status in (400, 403, 404), (path, status)
    assert b"root:" not in body and b"SECRET_KEY" not in body


async def _asgi_get(application: Any, path: str) -> tuple[int, bytes]:
    """GET ``path`` from the server's ASGI application as daphne hands it over: the client
    sends it as ASCII (UTF-8 bytes percent-escaped, escapes it wrote left as they are), and
    daphne decodes the escapes (bytes that are not UTF-8 become U+FFFD)."""
    from urllib.parse import unquote

    raw = quote(path.encode("utf-8", "surrogatepass"), safe="/%\\:.")
    communicator = HttpCommunicator(application, "GET", unquote(raw))
    communicator.scope["raw_path"] = raw.encode("ascii")
    response = await communicator.get_response(timeout=10)
    return response["status"], response.get("body", b"")
