"""No 1011 from anything a client sends to open a WebSocket: generated paths and query
strings of three kinds, at least 200 cases each, against the server's ASGI application
(Channels' communicator, real PostgreSQL). Each connection either opens onto a feed or is
closed with a 44xx code; none ends in an exception (which daphne sends as 1011).

- **Paths the router does not know**: anything outside the four feeds, and each feed's
  path without its final ``/``, with a segment too many, or with an empty parameter.
- **Odd characters** (NUL, controls, lone surrogates, long text) in every path parameter
  and every query parameter (``after``, ``watchers``, ``ticket``, ``token``).
- **Dates at the calendar's edge** in a daily challenge's feed.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from api import ws_limits
from games.writes import accounts
from scorpion_server.asgi import application

from .test_no_server_error import date_texts, odd_texts

pytestmark = pytest.mark.django_db(transaction=True)

CASES = 200

_SETTINGS = settings(
    max_examples=CASES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def as_sent(path: str) -> str:
    """``path`` as a client sends it: percent-escaped UTF-8 (a lone surrogate too). The
    communicator decodes it as daphne does (bytes that are not UTF-8 become U+FFFD)."""
    return quote(path.encode("utf-8", "surrogatepass"), safe="/%?=&")


async def opening(path: str) -> int | None:
    """Open ``path``: ``None`` if a feed accepted it and stays open, else the close code."""
    ws_limits.reset()
    communicator = WebsocketCommunicator(application, as_sent(path))
    connected, code = await communicator.connect(timeout=10)
    if not connected:
        return int(code or 1000)
    try:
        while not await communicator.receive_nothing(timeout=0.05):
            message = await communicator.receive_output(timeout=5)
            if message["type"] == "websocket.close":
                return int(message.get("code", 1000))
        return None  # open, sending frames or waiting for some
    finally:
        await communicator.disconnect()


def assert_refused_with_a_code(code: int | None, path: str) -> None:
    assert code is None or 4000 <= code < 5000, (path, code)


@pytest.fixture
def ids(django_user_model) -> dict[str, Any]:
    """A real game and race, so that a path can be a real one with something glued on."""
    from django.test import Client

    user = django_user_model.objects.create_user("edge", password="pw-edge-123")
    client = Client(HTTP_AUTHORIZATION=f"Token {accounts.key_issue(user=user)}")
    game = client.post("/api/v1/games", {"seed": 1}, content_type="application/json").json()
    race = client.post(
        "/api/v1/races", {"countdown": 60, "time_limit": 600}, content_type="application/json"
    ).json()
    return {"game": game["id"], "race": race["code"], "arena": race["id"]}


_FEEDS = ["games", "challenges", "races", "arenas"]
segments = st.one_of(
    st.sampled_from(["", "ws", *_FEEDS, "today", "x", "..", "%", "api", "v1", "static"]),
    st.text(alphabet=st.characters(exclude_characters="/?#"), max_size=12),
)


@_SETTINGS
@given(
    parts=st.lists(segments, max_size=5),
    prefix=st.sampled_from(["/", "/ws/", "//", "/ws/games/", "/ws/races/"]),
    slash=st.booleans(),
)
@example(parts=["ws", "games", "GAME"], prefix="/", slash=False)
@example(parts=["nothing"], prefix="/ws/", slash=True)
def test_paths_the_router_does_not_know(ids, parts: list[str], prefix: str, slash: bool):
    path = prefix + "/".join(ids["game"] if part == "GAME" else part for part in parts)
    path += "/" if slash else ""
    code = asyncio.run(opening(path))
    known = path.startswith("/ws/") and path.count("/") == 4 and path.endswith("/")
    if known and all(path.split("/")[2:4]) and path.split("/")[2] in _FEEDS:
        assert_refused_with_a_code(code, path)  # maybe a feed, maybe not found
    else:
        assert code == 4404, (path, code)


@_SETTINGS
@given(
    text=odd_texts,
    where=st.sampled_from(
        ["games", "challenges", "races", "arenas", "after", "watchers", "ticket", "token"]
    ),
    glue=st.booleans(),
)
@example(text="\x00", where="races", glue=True)
@example(text="\x00", where="arenas", glue=False)
@example(text="\ud800", where="after", glue=False)
@example(text="\x00", where="ticket", glue=False)
def test_odd_characters_in_feed_paths_and_queries(ids, text: str, where: str, glue: bool):
    real = {"games": ids["game"], "challenges": "today", "races": ids["race"]}
    real["arenas"] = ids["arena"]
    if where in ("after", "watchers", "ticket", "token"):
        value = quote(text.encode("utf-8", "surrogatepass"), safe="")
        path = f"/ws/games/{ids['game']}/?{where}={value}"
    else:
        path = f"/ws/{where}/{(real[where] if glue else '') + text}/"
    assert_refused_with_a_code(asyncio.run(opening(path)), path)


@_SETTINGS
@given(day=date_texts)
@example(day="9999-12-31")
@example(day="0001-01-01")
def test_dates_at_the_calendars_edge_in_the_challenge_feed(day: str):
    path = f"/ws/challenges/{day}/"
    assert_refused_with_a_code(asyncio.run(opening(path)), path)
