"""The browser client, in Debian's chromium (Playwright) against a real daphne server.

    .venv/bin/python bench/web.py [--quick]

Three figures, each over cold browser contexts (no cache) or many frames:

* bytes of the first board view: everything the page fetches (HTML, CSS, modules, API
  answers, and for a spectator the WebSocket snapshot) until the board is drawn, for the
  player's own game and for a spectator of it. Target: at most 150 KB (no compression:
  daphne sends bodies as they are, so these are the uncompressed sizes).
* the first board on localhost: from navigation start to the board's first drawing (the
  client's ``scorpion:board-drawn`` mark). Baseline, in the same page right after: one
  ``GET /api/v1/games/{id}`` from the page, the least any board must wait for; printed as
  a ratio (how many such round trips the first board costs).
* a WebSocket frame to the board: a spectator's page, while the player plays a legal line
  over REST; the client measures from the frame's arrival to the board, the score and the
  move list updated and laid out (``scorpion:frame-to-board``). Target: p95 at most 16 ms,
  one frame at 60 Hz (printed as a ratio to 16.7 ms). Baseline, in the same page right
  after, as often and as far apart: the cheapest change a page can make (one class on the
  board toggled, then laid out), which shows how much of a frame's time a busy machine adds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    daphne,
    drop_database,
    fresh_database,
    percentile,
    register,
    server_env,
)
from games import engine  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
RULES = "wasp"  # long legal lines: every card may go to an empty column
SEED = 7
BYTES_TARGET = 150 * 1024
FRAME_BUDGET_MS = 1000 / 60


def legal_commands(count: int) -> list[dict[str, Any]]:
    rules = engine.RULESETS[RULES]
    line = engine.legal_line(rules, engine.seeded_deal(rules, SEED), count)
    return [engine.action_to_command(action) for action in line]


def open_page(browser: Any, base: str, path: str, who: tuple[str, str] | None) -> Any:
    """A page in a fresh context (empty cache), signed in as ``who`` if given; counts bytes."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if who:
        seed = {"scorpion.token": who[1], "scorpion.username": who[0], "scorpion.lang": "en"}
        context.add_init_script(
            f"for (const [k, v] of Object.entries({json.dumps(seed)})) localStorage.setItem(k, v);"
        )
    page = context.new_page()
    page.received = 0

    def finished(request: Any) -> None:
        sizes = request.sizes()
        page.received += sizes["responseBodySize"] + sizes["responseHeadersSize"]

    def websocket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: add(len(payload.encode())))

    def add(count: int) -> None:
        page.received += count

    page.on("requestfinished", finished)
    page.on("websocket", websocket)
    page.goto(base + path)
    page.wait_for_selector(".tableau .card")
    return page


def first_view(browser: Any, base: str, game: str, who: tuple[str, str] | None) -> dict[str, float]:
    page = open_page(browser, base, f"/games/{game}", who)
    page.wait_for_load_state("networkidle")
    drawn = page.evaluate("performance.getEntriesByName('scorpion:board-drawn')[0].startTime")
    round_trip = page.evaluate(
        f"""async () => {{
            const start = performance.now();
            await (await fetch('/api/v1/games/{game}', {{cache: 'no-store'}})).json();
            return performance.now() - start;
        }}"""
    )
    result = {"bytes": float(page.received), "drawn_ms": drawn, "round_trip_ms": round_trip}
    page.context.close()
    return result


def frames(browser: Any, base: str, token: str, count: int) -> tuple[list[float], list[float]]:
    """A spectator's frame-to-board times while the owner plays ``count`` commands, and as
    many times of the baseline change in the same page."""
    with httpx.Client(
        base_url=base, headers={"Authorization": f"Token {token}"}, timeout=30
    ) as client:
        game = client.post("/api/v1/games", json={"rules": RULES, "seed": SEED}).json()["id"]
        page = open_page(browser, base, f"/games/{game}", None)
        page.wait_for_selector("#connection.conn-live")
        for played, command in enumerate(legal_commands(count), start=1):
            response = client.post(
                f"/api/v1/games/{game}/commands", json={**command, "expected_version": played}
            )
            response.raise_for_status()
            time.sleep(0.03)  # a brisk player, one frame at a time
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            shown = page.inner_text("#stat-moves")
            if shown == str(count):
                break
            time.sleep(0.1)
        times: list[float] = page.evaluate(
            "performance.getEntriesByName('scorpion:frame-to-board').map(e => e.duration)"
        )
        baseline: list[float] = page.evaluate(
            """async (count) => {
                const board = document.querySelector('.board');
                const times = [];
                for (let i = 0; i < count; i++) {
                    await new Promise((resolve) => setTimeout(resolve, 30));
                    const start = performance.now();
                    board.classList.toggle('bench-toggle');
                    board.getBoundingClientRect();
                    times.push(performance.now() - start);
                }
                return times;
            }""",
            count,
        )
        page.context.close()
    return times, baseline


def kb(value: float) -> str:
    return f"{value / 1024:6.1f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer loads and frames")
    args = parser.parse_args()
    loads, count = (3, 30) if args.quick else (10, 150)
    if not os.access(CHROMIUM, os.X_OK):
        sys.exit(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    database = fresh_database("scorpion_bench_web")
    try:
        with daphne(server_env(database)) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            token = register(base, "bench-player")
            with httpx.Client(
                base_url=base, headers={"Authorization": f"Token {token}"}, timeout=30
            ) as client:
                game = client.post("/api/v1/games", json={"rules": "classic", "seed": SEED})
                game_id = game.json()["id"]
            first_view(browser, base, game_id, None)  # warm the server up
            print(f"first board view, {loads} cold loads each (median):")
            for label, who in (("player", ("bench-player", token)), ("spectator", None)):
                views = [first_view(browser, base, game_id, who) for _ in range(loads)]
                received = statistics.median(v["bytes"] for v in views)
                drawn = statistics.median(v["drawn_ms"] for v in views)
                trip = statistics.median(v["round_trip_ms"] for v in views)
                print(
                    f"  {label:9}  bytes {kb(received)}  ({received / BYTES_TARGET:.2f}x the"
                    f" 150 KB target)   first board {drawn:6.1f} ms  vs one API GET"
                    f" {trip:5.1f} ms: {drawn / trip:5.1f}x",
                    flush=True,
                )
            times, baseline = frames(browser, base, token, count)
            p50, p95, worst = percentile(times, 0.5), percentile(times, 0.95), max(times)
            b50, b95 = percentile(baseline, 0.5), percentile(baseline, 0.95)
            print(
                f"frame to board, {len(times)} frames: p50 {p50:5.2f} ms  p95 {p95:5.2f} ms"
                f"  max {worst:5.2f} ms   p95 / 16.7 ms frame: {p95 / FRAME_BUDGET_MS:.2f}x"
                f"  (target p95 <= 16 ms)"
            )
            print(
                f"  baseline, the cheapest change laid out: p50 {b50:5.2f} ms  p95 {b95:5.2f} ms"
                f"   frame / baseline: p50 {p50 / max(b50, 0.01):5.1f}x"
                f"  p95 {p95 / max(b95, 0.01):5.1f}x"
            )
            browser.close()
    finally:
        drop_database(database)


if __name__ == "__main__":
    main()
