"""A game's first view in the browser: the shell carries the game and the rulesets as the
API answers an anonymous reader (``web/views.py``), so the board is drawn with no API
request for them; a first visit's shell carries the client itself, so that view fetches no
script, and a return visit's names every script the view loads (the client's one script,
``web/bundle.py``), so no module waits for another to arrive.

Each runs in Debian's chromium (Playwright) against a real daphne server; the game's API
request is refused to the page, and the board must show all the same.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from tests.e2e.players import shoot, signed_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param((1280, 800), id="desktop"), pytest.param((390, 844), id="phone")]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def open_game(
    browser: Any, server: Any, game: str, player: Any = None, size: tuple[int, int] = (1280, 800)
) -> tuple[Any, list[str], list[str]]:
    """A fresh context on the game's page, signed in as ``player`` if given, in which every
    request for the game itself (``GET /api/v1/games/{id}``) is refused: the page, the API
    requests it tried for the game, and every script it loaded."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    seed = {"scorpion.lang": "en"}
    if player:
        seed |= {"scorpion.token": player.token, "scorpion.username": player.name}
    context.add_init_script(
        f"for (const [k, v] of Object.entries({json.dumps(seed)})) localStorage.setItem(k, v);"
    )
    refused: list[str] = []
    scripts: list[str] = []

    def refuse(route: Any) -> None:
        refused.append(route.request.url)
        route.abort()

    context.route(lambda url: url.endswith(f"/api/v1/games/{game}"), refuse)
    page = context.new_page()
    # Every request that finished, from the first: the page's idle fetches may be done
    # before a test starts to wait for them.
    page.finished = []
    page.on("requestfinished", lambda request: page.finished.append(request))
    page.set_default_timeout(10_000)
    page.on(
        "request",
        lambda request: scripts.append(request.url) if request.resource_type == "script" else None,
    )
    page.goto(f"{server.http}/games/{game}")
    return page, refused, scripts


@pytest.mark.parametrize("size", SIZES)
def test_the_board_is_drawn_from_the_shell_with_the_game_request_refused(
    browser, server, shots, size
) -> None:
    tag = "d" if size[0] > 600 else "p"
    owner = signed_up(server, f"first{tag}")
    game = owner.api.post("/games", json={"rules": "classic", "seed": 7}).json()["id"]

    # A spectator: the page asks the API nothing for the game, and watches it live.
    page, refused, _ = open_game(browser, server, game, size=size)
    page.wait_for_selector(".tableau .card.up")
    page.wait_for_selector("#connection.conn-live")
    assert refused == []
    shoot(page, shots, "first-view-spectator")
    page.context.close()

    # Its owner plays it: drawn at once; the owner's own copy, asked once it is drawn in case it
    # shows more (it does only to staff), is refused here and changes nothing.
    page, refused, _ = open_game(browser, server, game, owner, size=size)
    page.wait_for_selector(".tableau .card.up")
    page.wait_for_selector("#undo")
    shoot(page, shots, "first-view-player")
    page.click(".tableau .card.up >> nth=-1")  # the board is live: a card can be picked
    page.context.close()


def test_a_private_game_carries_nothing_and_is_read_with_the_token(browser, server) -> None:
    owner = signed_up(server, "private1")
    game = owner.api.post("/games", json={"rules": "classic", "seed": 8, "public": False})
    game_id = game.json()["id"]
    shell = httpx.get(f"{server.http}/games/{game_id}", timeout=30).text
    assert 'id="scorpion-answers"' not in shell  # an anonymous reader may not read it

    page, refused, _ = open_game(browser, server, game_id, owner)
    page.wait_for_selector("#problem")  # the request was refused here: the page says so
    assert refused and all(url.endswith(f"/api/v1/games/{game_id}") for url in refused)
    assert page.locator(".tableau .card").count() == 0  # nothing came: nothing is drawn
    page.context.close()


def test_a_first_visit_fetches_no_script_and_a_return_visit_preloads_what_it_loads(
    browser, server
) -> None:
    owner = signed_up(server, "modules1")
    game = owner.api.post("/games", json={"rules": "classic", "seed": 9}).json()["id"]
    for player in (None, owner):
        # A first visit: the shell carries the client, and the page fetches no script before
        # the board; once idle, it fetches the client's files for the next visit.
        page, _, scripts = open_game(browser, server, game, player)
        page.wait_for_selector(".tableau .card.up")
        assert [url for url in scripts if "/static/web/js/" in url] == []
        for _ in range(100):
            cached = [r for r in page.finished if "/static/web/js/bundle" in r.url]
            if cached:
                break
            page.wait_for_timeout(100)
        assert cached and cached[0].response().status == 200, [r.url for r in page.finished]
        # The next visit links them (the cookie says they are cached), and names every
        # script its first view loads.
        scripts.clear()
        page.goto(f"{server.http}/games/{game}")
        page.wait_for_selector(".tableau .card.up")
        page.wait_for_load_state("networkidle")
        preloaded = page.eval_on_selector_all(
            'link[rel="modulepreload"], script[type="module"]',
            "links => links.map(l => l.href || l.src)",
        )
        loaded = {url for url in scripts if re.search(r"/static/web/js/", url)}
        assert loaded, scripts
        assert sorted(loaded - set(preloaded)) == [], (sorted(loaded), preloaded)
        page.context.close()
