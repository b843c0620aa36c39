"""The public log: a month's export (rate and memory) and the log's pages (latency).

    .venv/bin/python bench/log.py [--sizes 1000,10000,100000] [--requests 200]

A fresh database is filled fast: self-played games of every ruleset (``bench/notation.py``'s
``random_game``: moves, deals, undos, hints, a moderator's void) are written in the
notation once, and copied (``COPY``) as many times as the sizes need, each copy a game of
its own id, row and log entry with its stored notation, a thousand entries a transaction;
the first 2,000 games get their events too, for the JSON pages. Each size is a month of its
own. Then:

* **export**: ``games.writes.exports.export_month`` of each month, each in a fresh process
  (``--child-export``), which reports the export's seconds and its peak resident memory
  (``ru_maxrss``) against the process's before it; the baseline, in the same run, reads the
  same rows with psycopg alone and gzips them at the same level, with no file and no hash;
* **pages**: ``GET /api/v1/log?limit=500`` from random cursors, to a real daphne, against
  the same page's rows read with psycopg alone (the floor), interleaved; and JSON pages
  (``format=json``) over the games that have events.

The machine is shared: quote the ratios beside the absolute figures.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import gzip
import io
import json
import os
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    ROOT,
    daphne,
    drop_database,
    fresh_database,
    percentile,
    server_env,
)

#: The template's id, replaced by each copy's own.
TEMPLATE_ID = uuid.UUID(int=0)
LENGTH = 80
WITH_EVENTS = 2000


def months(count: int) -> list[str]:
    """``count`` months, the latest three months ago (over long enough to export)."""
    return [f"2026-{month:02d}" for month in range(9 - count + 1, 10)][-count:]


#: A self-played game: its ruleset, its events ``(type, data, by, at)`` and its text.
Template = tuple[str, list[tuple[str, dict[str, Any], str, dt.datetime | None]], str]


def templates(count: int) -> list[Template]:
    """Self-played games: each one's ruleset, events ``(type, data, by, at)`` and text."""
    from bench.notation import random_game
    from games import engine
    from games.store.notation import Transcript, write

    made = []
    rulesets = list(engine.RULESETS.values())
    for n in range(count):
        game = random_game(rulesets[n % len(rulesets)], LENGTH, 1000 + n)
        game = Transcript(game.entries, TEMPLATE_ID, game.player)
        events = [(e.event.TYPE, e.event.to_json(), e.by or "player", e.at) for e in game.entries]
        made.append((rulesets[n % len(rulesets)].name, events, write(game)))
    return made


def fill(url: str, sizes: list[int]) -> dict[str, int]:
    """Copy the templates into ``sizes`` games, one month each; the games per month."""
    shapes = templates(200)
    per_month = dict(zip(months(len(sizes)), sizes, strict=True))
    with psycopg.connect(url) as db:
        users = {}
        for name in ("player", "moderator"):
            row = db.execute(
                "INSERT INTO auth_user (username, password, is_superuser, first_name, last_name,"
                " email, is_staff, is_active, date_joined) VALUES (%s, '!', false, '', '', '',"
                " false, true, now()) RETURNING id",
                [name],
            ).fetchone()
            assert row is not None
            users[name] = row[0]
        db.commit()
        made = 0
        for month, count in per_month.items():
            start = dt.datetime.fromisoformat(f"{month}-01T00:00:00+00:00")
            for first in range(0, count, 1000):
                batch = range(first, min(first + 1000, count))
                rows = []
                for n in batch:
                    rules, events, text = shapes[(made + n) % len(shapes)]
                    game_id = uuid.uuid4()
                    at = start + dt.timedelta(seconds=n * 20)
                    rows.append((game_id, rules, events, text, at))
                _copy(db, rows, users, with_events=made + first < WITH_EVENTS)
                db.commit()
            made += count
    return per_month


def _copy(
    db: psycopg.Connection[Any], rows: list[Any], users: dict[str, int], *, with_events: bool
) -> None:
    with db.cursor() as cursor:
        with cursor.copy(
            "COPY games_game (id, owner_id, rules, seed, public, version, status, blocked,"
            " score, moves, undos, reserve, removed, revealed, board, challenge, voided,"
            " created_at, updated_at, finished_at, contest, round) FROM STDIN"
        ) as copy:
            for game_id, rules, events, _, at in rows:
                copy.write_row(
                    (game_id, users["player"], rules, None, True, len(events), "resigned",
                     False, 0, 0, 0, 0, "", 0, "{}", None, True, at, at, at, None, None)
                )  # fmt: skip
        with cursor.copy(
            "COPY games_public_log (game_id, published_at, version, notation) FROM STDIN"
        ) as copy:
            for game_id, _, events, text, at in rows:
                copy.write_row(
                    (game_id, at, len(events), text.replace(str(TEMPLATE_ID), str(game_id)))
                )
        if not with_events:
            return
        with cursor.copy(
            "COPY games_event (game_id, seq, type, data, schema_version, actor_id, at) FROM STDIN"
        ) as copy:
            for game_id, _, events, _, _ in rows:
                for seq, (kind, data, by, when) in enumerate(events, start=1):
                    copy.write_row((game_id, seq, kind, json.dumps(data), 1, users[by], when))


# --- export ------------------------------------------------------------------------------------


def child_export(month: str) -> None:
    """In a fresh process: export ``month`` and print its figures as JSON."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
    django.setup()
    from django.db import connection

    from games.writes import exports

    connection.ensure_connection()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    written = exports.export_month(month, replace=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"games": written.export.games, "seconds": seconds, "before_kb": before,
                      "peak_kb": peak, "bytes": written.export.bytes,
                      "streamed": written.streamed}))  # fmt: skip


def export_figures(url: str, month: str, export_dir: str) -> dict[str, Any]:
    env = server_env(url, EXPORT_DIR=export_dir)
    done = subprocess.run(
        [sys.executable, __file__, "--child-export", month],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def baseline_export(url: str, month: str) -> tuple[int, float, int]:
    """The same month's rows read with psycopg alone and gzipped: games, seconds, bytes of
    text."""
    start = dt.datetime.fromisoformat(f"{month}-01T00:00:00+00:00")
    end = (start + dt.timedelta(days=32)).replace(day=1)
    sink = io.BytesIO()
    games = size = 0
    started = time.perf_counter()
    with psycopg.connect(url) as db, db.cursor(name="baseline") as cursor:
        cursor.itersize = 2000
        cursor.execute(
            "SELECT notation FROM games_public_log WHERE published_at >= %s AND published_at < %s"
            " ORDER BY xid, id",
            [start, end],
        )
        with gzip.GzipFile(fileobj=sink, mode="wb", compresslevel=6) as out:
            for (text,) in cursor:
                data = text.encode()
                out.write(data)
                size += len(data)
                games += 1
                if sink.tell() > 1 << 22:
                    sink.seek(0)
                    sink.truncate()
    return games, time.perf_counter() - started, size


# --- pages -------------------------------------------------------------------------------------


def cursors(url: str, count: int, *, limit: int | None = None) -> list[str]:
    """``count`` cursors at random places of the log (of its first ``limit`` entries)."""
    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT xid::text, id FROM games_public_log ORDER BY xid, id"
            + (f" LIMIT {int(limit)}" if limit else "")
        ).fetchall()
    rng = random.Random(7)
    usable = rows[: max(1, len(rows) - 500)]
    picked = [rng.choice(usable) for _ in range(count)]
    return [
        base64.urlsafe_b64encode(struct.pack(">QQ", int(x), i)).rstrip(b"=").decode()
        for x, i in picked
    ]


def raw_page(db: psycopg.Connection[Any], cursor: str) -> float:
    xid, id_ = struct.unpack(">QQ", base64.urlsafe_b64decode(cursor + "=="))
    started = time.perf_counter()
    db.execute(
        "SELECT xid::text, id, game_id, published_at, version, notation FROM games_public_log"
        " WHERE xid < pg_snapshot_xmin(pg_current_snapshot())"
        " AND (xid, id) > (%s::xid8, %s) ORDER BY xid, id LIMIT 500",
        [str(xid), id_],
    ).fetchall()
    return time.perf_counter() - started


def pages(url: str, requests: int) -> None:
    with (
        daphne(server_env(url)) as base,
        httpx.Client(base_url=base, timeout=30) as client,
        psycopg.connect(url, autocommit=True) as db,
    ):
        if True:
            for fmt, picked in (
                ("scorpion", cursors(url, requests)),
                ("json", cursors(url, max(requests // 4, 10), limit=WITH_EVENTS)),
            ):
                http, raw = [], []
                for cursor in picked:
                    started = time.perf_counter()
                    response = client.get(f"/api/v1/log?limit=500&format={fmt}&after={cursor}")
                    http.append(time.perf_counter() - started)
                    assert response.status_code == 200 and len(response.json()["results"]) == 500
                    raw.append(raw_page(db, cursor))
                p50, p95 = percentile(http, 0.5) * 1000, percentile(http, 0.95) * 1000
                r50, r95 = percentile(raw, 0.5) * 1000, percentile(raw, 0.95) * 1000
                print(
                    f"GET /log?limit=500&format={fmt:<8} {len(picked):>4} pages: p50 {p50:6.1f} ms,"
                    f" p95 {p95:6.1f} ms; psycopg alone p50 {r50:5.1f} ms, p95 {r95:5.1f} ms;"
                    f" p95 ratio {p95 / r95:4.1f}x"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="keep the database (bench_log)")
    parser.add_argument("--child-export", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child_export:
        child_export(options.child_export)
        return
    sizes = [int(size) for size in options.sizes.split(",")]
    url = fresh_database("bench_log")
    try:
        started = time.perf_counter()
        per_month = fill(url, sizes)
        print(f"filled {sum(sizes)} games in {time.perf_counter() - started:.0f} s")
        with tempfile.TemporaryDirectory() as export_dir:
            for month, count in per_month.items():
                figures = export_figures(url, month, export_dir)
                games, seconds, text_bytes = baseline_export(url, month)
                assert figures["games"] == games == count
                rate, floor = count / figures["streamed"], games / seconds
                grown = (figures["peak_kb"] - figures["before_kb"]) / 1024
                print(
                    f"export {month}: {count:>7} games streamed in {figures['streamed']:6.2f} s"
                    f" ({figures['seconds']:.1f} s with the wait for open transactions) ="
                    f" {rate:7.0f} games/s (psycopg+gzip alone {floor:7.0f}/s, ratio"
                    f" {rate / floor:4.2f}); resident memory {figures['before_kb'] / 1024:.0f} MB"
                    f" before, peak +{grown:.1f} MB; {figures['bytes'] / count:.0f} bytes a game"
                    f" compressed, {text_bytes / count:.0f} as text"
                )
        pages(url, options.requests)
    finally:
        if not options.keep:
            drop_database(url)


if __name__ == "__main__":
    main()
