"""The public log over HTTP: pages by cursor, both formats, the stream, refused cursors,
and nothing of a game that is not everyone's yet (docs/api.md#the-public-log).

The tests commit what they write (``transaction=True``): the log is read below the
high-water mark, which a test's own open transaction would hold back.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import AsyncClient

from games import clock
from games.dailies import challenges as dailies
from games.reads import presenters
from games.store import log, notation
from games.store.models import Event, PublicLogEntry
from games.writes import contests, public_log, services

pytestmark = pytest.mark.django_db(transaction=True)


def settled(timeout: float = 120.0) -> None:
    """Wait until every transaction running now has ended (see tests/games/test_public_log)."""
    end = log.snapshot_end()
    deadline = time.monotonic() + timeout
    while log.horizon() < end:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def finished_games(user, count: int, first_seed: int = 100) -> list[str]:
    ids = []
    for seed in range(first_seed, first_seed + count):
        game = services.game_create(owner=user, seed=seed)
        services.game_command(game_id=game.game_id, actor=user, command={"type": "resign"})
        ids.append(str(game.game_id))
    settled()
    return ids


def test_pages_follow_next_and_end_where_the_log_ends(api, alice) -> None:
    ids = finished_games(alice[0], 3)
    first = api.get("/api/v1/log?limit=2").json()
    assert [entry["game"] for entry in first["results"]] == ids[:2]
    assert first["next"] == first["results"][-1]["cursor"]  # written by PostgreSQL, and here
    rows = PublicLogEntry.objects.order_by("id")
    assert [e["published_at"] for e in first["results"]] == [
        presenters.timestamp(row.published_at) for row in rows[:2]
    ]
    second = api.get(f"/api/v1/log?limit=2&after={first['next']}").json()
    assert [entry["game"] for entry in second["results"]] == ids[2:]
    third = api.get(f"/api/v1/log?after={second['next']}").json()
    assert third == {"results": [], "next": second["next"]}
    assert api.get("/api/v1/log").json()["results"] == first["results"] + second["results"]


@pytest.mark.parametrize(
    "query",
    [
        "after=nope",
        "after=AAAAAAAAAAAAAAAAAAAAAA",  # well-formed, names no entry
        "after=" + "A" * 65,
        "after=x&after=y",
        "limit=501",
        "limit=0",
        "format=xml",
    ],
)
@pytest.mark.parametrize("path", ["/api/v1/log", "/api/v1/log/stream"])
def test_a_query_the_server_did_not_make_is_400(api, path, query) -> None:
    if path.endswith("stream") and query.startswith("limit"):
        pytest.skip("the stream takes no limit")
    response = api.get(f"{path}?{query}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert set(body["fields"]) <= {"after", "limit", "format"}


def test_both_formats_give_the_stored_game_whole(api, alice) -> None:
    (game_id,) = finished_games(alice[0], 1)
    (entry,) = api.get("/api/v1/log?format=scorpion").json()["results"]
    (read,) = notation.read(io.StringIO(entry["notation"]))
    stored = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    assert [(e.event.TYPE, e.event.to_json()) for e in read.entries] == [
        (e.type, e.data) for e in stored
    ]
    (as_json,) = api.get("/api/v1/log?format=json").json()["results"]
    assert as_json["cursor"] == entry["cursor"] and as_json["game"] == game_id
    # The public record names its players by their pseudonyms, never by username.
    pseudonym = alice[0].account.pseudonym
    assert [(e["seq"], e["type"], e["data"], e["by"], e["at"]) for e in as_json["events"]] == [
        (e.seq, e.type, e.data, pseudonym, presenters.timestamp(e.at)) for e in stored
    ]
    assert read.player == pseudonym and "alice" not in entry["notation"]
    assert as_json["events"][0]["data"]["deal"] is not None  # everyone's now: whole
    public_log.public_log_write()  # the stored text is what was written on the fly
    assert api.get("/api/v1/log").json()["results"][0] == entry


def stream(path: str) -> list[dict[str, Any]]:
    async def read() -> bytes:
        response = await AsyncClient().get(path)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/x-ndjson"
        body = b"".join([chunk async for chunk in response.streaming_content])
        await sync_to_async(connections.close_all)()  # the view's thread's connection
        return body

    return [json.loads(line) for line in asyncio.run(read()).decode().splitlines()]


def test_the_stream_sends_each_game_then_ends_with_its_cursor(settings, alice) -> None:
    settings.LOG_STREAM_SECONDS, settings.LOG_POLL_SECONDS = 1, 0.1
    ids = finished_games(alice[0], 3)
    lines = stream("/api/v1/log/stream")
    assert [line["type"] for line in lines] == ["game", "game", "game", "end"]
    assert [line["game"] for line in lines[:3]] == ids
    assert lines[-1]["cursor"] == lines[2]["cursor"]
    again = stream(f"/api/v1/log/stream?after={lines[1]['cursor']}&format=json")
    assert [line.get("game") for line in again] == [ids[2], None]
    assert again[0]["events"][-1]["type"] == "resigned"


def test_streams_are_counted_until_closed_and_past_the_cap_refused(api, settings) -> None:
    from api.views import log as views

    settings.LOG_STREAM_SECONDS, settings.LOG_POLL_SECONDS, settings.LOG_STREAMS_MAX = 1, 0.1, 1
    assert [line["type"] for line in stream("/api/v1/log/stream")] == ["end"]
    assert views._streams == 0  # closed: no longer counted
    views._streams = 1  # one stream open elsewhere in the process
    try:
        assert api.get("/api/v1/log/stream").json()["code"] == "throttled"
    finally:
        views._streams = 0


def test_only_games_open_to_everyone_enter(api, alice, bob, settings) -> None:
    """A private finished game, a public game in play, a finished game of an open day and
    one of a running arena: none is in the log, nor any of their seeds; the finished public
    game is, and the day's and the arena's once they are over."""
    settings.LOG_STREAM_SECONDS, settings.LOG_POLL_SECONDS = 1, 0.1
    noon = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
    moving = {"at": noon}
    user, other = alice[0], bob[0]
    with clock.frozen(lambda: moving["at"]):
        private = services.game_create(owner=user, seed=9_000_000_001, public=False)
        playing = services.game_create(owner=user, seed=9_000_000_002)
        public = services.game_create(owner=user, seed=9_000_000_003)
        day, _ = dailies.prepare(noon.date())
        daily, _ = services.challenge_join(date=day.date, player=other)
        arena = contests.arena_schedule(
            rules="classic", starts_at=noon, ends_at=noon + dt.timedelta(hours=1)
        )
        contested, _ = contests.arena_play(arena=arena, player=other)
        for game, owner in ((private, user), (public, user), (daily, other), (contested, other)):
            services.game_command(game_id=game.game_id, actor=owner, command={"type": "resign"})
        public_log.public_log_seal()
        public_log.public_log_write()
        settled()
        secret_seeds = [str(g.stream.seed) for g in (private, playing, daily, contested)]
        pages = [
            api.get("/api/v1/log").content.decode(),
            api.get("/api/v1/log?format=json").content.decode(),
            json.dumps(stream("/api/v1/log/stream?format=json")),
        ]
        for text in pages:
            assert str(public.game_id) in text
            for game in (private, playing, daily, contested):
                assert str(game.game_id) not in text
            for seed in secret_seeds:
                assert seed not in text
        moving["at"] = noon + dt.timedelta(days=1)
        public_log.public_log_seal()
        settled()
        games = [entry["game"] for entry in api.get("/api/v1/log").json()["results"]]
    assert games == [str(public.game_id), str(daily.game_id), str(contested.game_id)]
