"""The end screen waits for an analysis that the server's solver worker computes: the
server answers 202 while the job runs, and the page asks again until the verdict is in.
The server is started as production starts it (``manage.py serve``: static files collected
under hashed names, a local job worker), in Debian's chromium (Playwright).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory(
        serve=True,
        JOBS_WORKER="local",
        POOL_RULES="classic",
        POOL_TARGET="1",
        POOL_FOLLOW_HINTS="0",
        ANALYSIS_INLINE_NODES="1",  # no analysis is decided in the request: each is a job
    )


def test_the_end_screen_polls_an_analysis_the_worker_computes(pages, server) -> None:
    api = httpx.Client(base_url=f"{server.http}/api/v1", timeout=30)
    token = api.post("/auth/register", json={"username": "ada", "password": "pw-ada-Cards-1"})
    player = type("Player", (), {"name": "ada", "token": token.json()["token"]})
    api.headers["Authorization"] = f"Token {player.token}"
    game = api.post("/games", json={"rules": "classic", "seed": WIN["seed"]}).json()
    page = pages(player, path=f"/games/{game['id']}", size=(1280, 800))
    statuses: list[int] = []

    def answered(response: Any) -> None:
        if response.url.endswith(f"/games/{game['id']}/analysis"):
            statuses.append(response.status)

    page.on("response", answered)
    page.wait_for_selector(".tableau .card")
    # A first visit's shell carries the client and names its files, for the page to fetch
    # for the next visit, by their hashed names, which are cached for good.
    files = page.get_attribute("meta[name='scorpion:prefetch']", "content") or ""
    main = next(name for name in files.split() if "/bundle." in name)
    assert len(main.split(".")) == 3, main
    page.keyboard.press("x")
    page.click("dialog [data-value=yes]")
    assert page.locator("#end-analysis").text_content().startswith("Asking the solver")
    verdict = page.wait_for_selector("#end-analysis[data-verdict=winnable]", timeout=90_000)
    assert verdict.text_content().startswith("The game could still be won when it ended.")
    assert statuses[0] == 202 and statuses[-1] == 200, statuses
    assert set(statuses[1:-1]) <= {202}, statuses
    page.wait_for_selector("#end-line")
