"""Ratings in the browser: a rated game from the lobby, its rating change on the end
screen, the rating and its history chart on the profile, and the rating board on the
leaderboards page. In Debian's chromium (Playwright) against a real daphne server, at
1280×800 and 390×844, with screenshots.
"""

from __future__ import annotations

import pytest

from games import pools
from tests.e2e.players import shoot, signed_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param((1280, 800), id="desktop"), pytest.param((390, 844), id="phone")]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


@pytest.fixture(autouse=True)
def _quick_pools(settings):
    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000


@pytest.mark.parametrize("size", SIZES)
def test_a_rated_game_from_the_lobby_its_change_and_the_profiles_chart(
    pages, server, shots, size
) -> None:
    pools.fill("classic", 4)
    player = signed_up(server, f"rated{size[0]}")
    # An earlier rated game, lost through the API, so that the chart has two points.
    first = player.api.post("/games", json={"rules": "classic", "rated": True})
    assert first.status_code == 201, first.text
    player.api.post(f"/games/{first.json()['id']}/commands", json={"type": "resign"})
    # One left in play: a new rated game would resign it, so the lobby asks first.
    unfinished = player.api.post("/games", json={"rules": "classic", "rated": True}).json()

    page = pages(player, path="/", size=size, touch=size[0] < 600)
    page.click("#start-rated")
    page.wait_for_selector("dialog #rated-open")
    shoot(page, shots, "ratings-abandon")
    page.click("dialog [data-value=cancel]")
    assert player.api.get(f"/games/{unfinished['id']}").json()["status"] == "playing"
    page.click("#start-rated")
    page.click("dialog [data-value=yes]")
    page.wait_for_selector("#rated-tag")
    assert player.api.get(f"/games/{unfinished['id']}").json()["status"] == "resigned"
    assert page.locator("#certified").count() == 1  # a certified deal, its difficulty shown
    page.wait_for_selector(".tableau .card")
    page.keyboard.press("x")
    page.click("dialog [data-value=yes]")
    change = page.wait_for_selector("#rating-change")
    game_id = page.url.rsplit("/", 1)[1]
    rating = player.api.get(f"/games/{game_id}").json()["rating"]
    assert rating["score"] == 0 and rating["change"] < 0
    assert change.text_content() == f"−{round(-rating['change'])}"
    assert page.locator("#end-rating").text_content().startswith(f"{round(rating['after'])}?")
    shoot(page, shots, "ratings-end-screen")

    page.keyboard.press("Escape")
    page.goto(f"{server.http}/players/{player.name}")
    value = page.wait_for_selector("#rating-classic")
    assert value.text_content() == f"{round(rating['after'])}?"
    chart = page.wait_for_selector("#chart-classic")
    points = chart.eval_on_selector("polyline", "line => line.getAttribute('points')").split()
    assert len(points) == 3  # two resigned, one abandoned: three losses
    # Each newer, lower rating is drawn lower (SVG's y grows downwards).
    heights = [float(point.split(",")[1]) for point in points]
    assert heights == sorted(heights) and heights[0] < heights[-1]
    assert "3 changes" in chart.get_attribute("aria-label")
    shoot(page, shots, "ratings-profile")


def test_the_rating_board_is_a_ruleset_tab_with_periods(pages, server, shots) -> None:
    player = signed_up(server, "boardwatcher")
    page = pages(player, path="/leaderboards?scope=classic&metric=rating", size=(1280, 800))
    page.wait_for_selector("#leaderboard")
    assert page.locator("#metric-tabs [aria-selected=true]").text_content() == "Rating"
    assert "all time" in page.locator("#rating-note").text_content()
    shoot(page, shots, "ratings-board")
    page.locator("#period-tabs [role=tab]", has_text="Week").click()
    page.wait_for_selector("#period-at")
    assert "in this period" in page.locator("#rating-note").text_content()
    assert "period=week" in page.url
    page.goto(f"{server.http}/leaderboards?scope=daily&metric=rating")
    page.wait_for_selector("#leaderboard")
    assert "Rating" not in page.locator("#metric-tabs").text_content()


def test_play_this_deal_from_a_replay_and_a_casual_game_when_no_rated_deal_is_ready(
    pages, server, shots
) -> None:
    """A finished game's replay (and its row on a profile) offers its deal as a casual game,
    which says it is casual and is never rated. A rated game's "again" with no rated deal
    ready offers a casual game instead of an error."""
    pools.fill("classic", 1)
    owner = signed_up(server, "dealer")
    finished = owner.api.post("/games", json={"rules": "classic", "seed": 777}).json()
    owner.api.post(f"/games/{finished['id']}/commands", json={"type": "resign"})
    visitor = signed_up(server, "copier")

    page = pages(visitor, path=f"/games/{finished['id']}", size=(1280, 800))
    page.wait_for_selector("#scrubber")
    assert page.locator(f"[data-play-deal='{finished['id']}']").get_attribute("title") == (
        "A casual game of this deal, from its start: never rated."
    )
    shoot(page, shots, "play-this-deal-replay")
    page.click(f"[data-play-deal='{finished['id']}']")
    page.wait_for_url(lambda url: not url.endswith(finished["id"]))
    page.wait_for_selector(".tableau .card")
    assert page.locator("#casual-tag").count() == 1  # the copy says it is casual
    assert page.locator("#rated-tag").count() == 0
    copy = page.url.rsplit("/", 1)[1]
    assert copy != finished["id"]
    body = visitor.api.get(f"/games/{copy}").json()
    assert body["owner"] == "copier" and body["rated"] is False and body["seed"] is None
    page.keyboard.press("x")
    page.click("dialog [data-value=yes]")
    page.wait_for_selector("dialog .end-lead")
    copied = visitor.api.get(f"/games/{copy}").json()
    assert copied["seed"] == 777 and copied["rated"] is False and "rating" not in copied
    page.keyboard.press("Escape")

    # The profile's finished games offer their deals too; a game in play does not.
    playing = owner.api.post("/games", json={"rules": "classic"}).json()
    page.goto(f"{server.http}/players/dealer")
    page.wait_for_selector(f"[data-play-deal='{finished['id']}']")
    assert page.locator(f"[data-play-deal='{playing['id']}']").count() == 0
    page.set_viewport_size({"width": 390, "height": 844})
    shoot(page, shots, "play-this-deal-profile")

    # The one rated deal, played; "again" finds none ready and offers a casual game.
    rated = visitor.api.post("/games", json={"rules": "classic", "rated": True}).json()
    page.goto(f"{server.http}/games/{rated['id']}")
    page.wait_for_selector("#rated-tag")
    page.wait_for_selector(".tableau .card")
    page.keyboard.press("x")
    page.click("dialog [data-value=yes]")
    page.click("dialog [data-value=again]")
    page.wait_for_selector("dialog #pool-empty")
    shoot(page, shots, "pool-empty-offer")
    page.click("dialog [data-value=casual]")
    page.wait_for_url(lambda url: not url.endswith(rated["id"]))
    page.wait_for_selector("#casual-tag")
    casual = visitor.api.get(f"/games/{page.url.rsplit('/', 1)[1]}").json()
    assert casual["rated"] is False and casual["status"] == "playing"
