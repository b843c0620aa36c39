"""A player's first minutes and the reasons to come back, in the browser: rated or casual
said in the lobby, what starts next, an empty pool that offers a casual game, arenas made by
players, a late join to a race that offers to watch it; the daily's stakes before it, its
streak and the hour of its verdict after it, and a ruleset's statistics page. In Debian's
chromium (Playwright) against a real daphne server, at 1280×800 and at 390×844, with
screenshots (``shots``, conftest.py).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from tests.e2e.players import open_at, shoot, signed_up
from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param((1280, 800), id="desktop"), pytest.param((390, 844), id="phone")]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def no_horizontal_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize("size", SIZES)
def test_the_lobby_arenas_and_races_say_what_is_rated_coming_and_too_late(
    pages, server, shots, size
) -> None:
    from playwright.sync_api import expect

    from games.writes import contests

    # A fresh server's rotation, with no setting: today's classic arena, this week's wasp one
    # and the next of each (the scheduled job makes them; here the test does).
    rotation = contests.rotation_arenas()
    assert sorted({arena.rules for arena in rotation}) == ["classic", "wasp"]
    player, rival = signed_up(server, f"first{size[0]}"), signed_up(server, f"rival{size[0]}")
    soon = rival.api.post(
        "/races", json={"countdown": 120, "time_limit": 600, "title": "Lunch race"}
    ).json()

    page = open_at(pages, size, player, "/")
    page.wait_for_selector("#start-game")
    # Rated or casual, rated first (what Enter starts) for a player with an account.
    buttons = page.eval_on_selector_all(".start-row button", "bs => bs.map(b => b.id)")
    assert buttons == ["start-rated", "start-game"]
    expect(page.locator("#start-game")).to_have_text("Casual game")
    expect(page.locator("#rated-note")).to_contain_text("Rated: your rating changes")
    # What starts next: the coming race and arenas, soonest first, and the arena open now.
    items = page.locator("#next-list li")
    expect(items).to_have_count(4)
    expect(items.nth(1)).to_contain_text("Lunch race")
    assert items.nth(0).get_attribute("data-kind") == "arena"  # closes first
    assert re.search(r"Starts in \d+:\d\d", items.nth(1).inner_text())
    no_horizontal_scroll(page)
    shoot(page, shots, "welcome-lobby")
    # A chosen seed makes the game casual: the rated button waits until it is cleared.
    page.click(".advanced summary")
    page.fill("#seed", "12345")
    expect(page.locator("#start-rated")).to_be_disabled()
    page.fill("#seed", "")
    expect(page.locator("#start-rated")).to_be_enabled()

    # No certified deal is ready (nothing filled the pool): a casual game is offered.
    page.click("#start-rated")
    expect(page.locator("#pool-empty")).to_contain_text("none of this ruleset is ready")
    shoot(page, shots, "welcome-pool-empty")
    page.click("dialog [data-value=casual]")
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]+$"))
    expect(page.locator(".tableau .col")).to_have_count(7)
    expect(page.locator("#casual-tag")).to_have_text("Casual")  # and never "Rated"
    expect(page.locator("#rated-tag")).to_have_count(0)
    game = player.api.get(f"/games/{page.url.rsplit('/', 1)[1]}").json()
    assert game["rated"] is False and game["status"] == "playing"

    # An arena of one's own, private: reached by its code.
    page.goto(f"{server.http}/arenas")
    page.fill("#arena-title", "Friday night")
    page.select_option("#arena-rules", "wasp")
    page.select_option("#arena-duration", str(3 * 3600))
    page.uncheck("#arena-public")
    shoot(page, shots, "welcome-arenas")
    page.click("#create-arena")
    code = page.wait_for_selector("#arena-code").text_content()
    expect(page).to_have_url(f"{server.http}/arenas/{code}")
    arena = player.api.get(f"/arenas/{code}").json()
    assert (arena["title"], arena["rules"], arena["public"]) == ("Friday night", "wasp", False)
    ends = dt.datetime.fromisoformat(arena["ends_at"]) - dt.datetime.fromisoformat(
        arena["starts_at"]
    )
    assert ends == dt.timedelta(hours=3)
    no_horizontal_scroll(page)
    shoot(page, shots, "welcome-arena-private")
    visitor = open_at(pages, size, None, "/arenas")
    expect(visitor.locator("#create-arena")).to_have_text("Create an account to make an arena")
    assert "Friday night" not in visitor.inner_text("main")  # private: not listed

    # A race that has started: joining by its code says so and offers to watch it.
    started = rival.api.post("/races", json={"countdown": 0, "time_limit": 600}).json()
    assert soon["status"] == "scheduled" and started["code"]
    page.goto(f"{server.http}/races")
    page.fill("#race-code", started["code"])
    page.click("#join-code")
    expect(page.locator("#race-started")).to_contain_text("too late to join")
    page.click("#watch-race")
    expect(page.locator("#standings, .standings").first).to_be_visible()
    no_horizontal_scroll(page)
    shoot(page, shots, "welcome-race-started")


@pytest.mark.parametrize("size", SIZES)
def test_the_daily_says_rated_and_its_stakes_then_its_streak_verdict_hour_and_statistics(
    pages, server, shots, size
) -> None:
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from games import clock
    from games.models import DailyChallenge
    from games.writes import services

    now = dt.datetime.now(dt.UTC)
    today, yesterday = now.date(), now.date() - dt.timedelta(days=1)
    for day in (today, yesterday):
        DailyChallenge.objects.create(
            date=day, rules="classic", seed=WIN["seed"], nodes=5000, difficulty="medium",
            created_at=now,
        )  # fmt: skip
    player = signed_up(server, f"daily{size[0]}")
    user = get_user_model().objects.get(username=player.name)
    # Yesterday's daily won, as if played yesterday (in this process only): a streak of 1.
    with clock.frozen(dt.datetime.combine(yesterday, dt.time(12), tzinfo=dt.UTC)):
        won, _ = services.challenge_join(date=yesterday, player=user)
        for command in WIN["actions"]:
            services.game_command(game_id=won.game_id, actor=user, command=command)
    in_play = player.api.post("/games", json={"rules": "classic", "seed": 7}).json()
    stakes = player.api.get(f"/challenges/{today}/stakes").json()

    page = open_at(pages, size, player, "/daily")
    shown = page.wait_for_selector("#stakes-changes").text_content()
    expect(page.locator("#daily-stakes .tag-rated")).to_have_text("Rated")
    win, loss = round(stakes["win"]), round(-stakes["loss"])
    assert shown.startswith(f"A win +{win}, a loss −{loss} (now "), shown
    no_horizontal_scroll(page)
    shoot(page, shots, "welcome-daily-start")
    page.click("#join-race")
    expect(page.locator("#rated-tag")).to_be_visible()  # a rated game's header says so
    page.wait_for_selector(".tableau .card")
    page.keyboard.press("x")
    page.click("dialog [data-value=yes]")
    expect(page.locator("#rating-change")).to_have_text(f"−{loss}")
    expect(page.locator("#end-streak")).to_have_text("1 day in a row")
    closes = dt.datetime.combine(today + dt.timedelta(days=1), dt.time(0), tzinfo=dt.UTC)
    hour = page.evaluate(
        "iso => new Date(iso).toLocaleTimeString('en', {hour: '2-digit', minute: '2-digit'})",
        closes.isoformat(),
    )
    verdict = page.locator("#end-analysis")
    expect(verdict).to_contain_text("The solver's verdict comes when the day closes")
    expect(verdict).to_contain_text(hour)
    shoot(page, shots, "welcome-daily-end")

    page.goto(f"{server.http}/daily")
    expect(page.locator("#daily-streak")).to_have_text("Daily streak: 1 day in a row (best 1).")
    expect(page.locator("#verdict-at")).to_contain_text(hour)
    shoot(page, shots, "welcome-daily-again")

    # The profile's win rate counts finished games only (the casual game in play is not).
    page.goto(f"{server.http}/players/{player.name}")
    expect(page.locator("#win-rate")).to_have_text("50%")
    expect(page.locator("#played")).to_have_text("3")
    expect(page.locator("#streak")).to_have_text("1")
    page.click('#rules-stats tr[data-rules="classic"] a')
    expect(page).to_have_url(f"{server.http}/players/{player.name}/stats/classic")
    expect(page.locator("#stats-win-rate")).to_have_text("50%")
    expect(page.locator("#stats-finished")).to_have_text("2")
    expect(page.locator("#stats-hardest")).to_have_text("medium (0.62)")
    chart = page.wait_for_selector("#stats-chart")
    points = chart.eval_on_selector("polyline", "line => line.getAttribute('points')").split()
    assert len(points) == 2  # yesterday's win, today's resignation
    assert player.api.get(f"/games/{in_play['id']}").json()["status"] == "playing"
    no_horizontal_scroll(page)
    shoot(page, shots, "welcome-stats")
