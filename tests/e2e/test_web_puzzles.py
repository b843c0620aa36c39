"""The puzzle pages in the browser: a rated puzzle played on the board (a winning move that
is not the solver's, then a losing one, with why it loses and the rating change), the
puzzle of the day solved with its themes shown, Streak's first puzzle, and the dashboard of
themes. In Debian's chromium (Playwright) against a real daphne server, at 1280×800 and
390×844, with screenshots.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games import clock
from games.puzzles.models import PuzzleDay
from tests.e2e.players import open_at, shoot, signed_up
from tests.puzzle_helpers import make_puzzle, play_the_game

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param((1280, 800), id="desktop"), pytest.param((390, 844), id="phone")]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def play(page, key: str, column: int) -> None:
    """Pick the card at ``key`` from the keyboard and drop it on ``column``."""
    page.focus(f'.board [data-key="{key}"]')
    page.keyboard.press("Enter")
    page.keyboard.press(str(column))


@pytest.mark.parametrize("size", SIZES)
def test_the_puzzle_pages(pages, server, shots, size) -> None:
    owner = get_user_model().objects.create_user(f"source{size[0]}", password="pw-source-123")
    source = play_the_game(owner)
    rated = make_puzzle("open_two_ways", game=source, version=43)
    daily = make_puzzle("hidden_only_move", game=source, version=29)
    make_puzzle("reveal_then_open", game=source, version=41)
    PuzzleDay.objects.create(date=clock.now().date(), puzzle=daily, created_at=clock.now())
    player = signed_up(server, f"puzzler{size[0]}")

    # Rated training: the puzzle nearest 1500 that is not the day's.
    page = open_at(pages, size, player, "/puzzles")
    prompt = page.wait_for_selector("#puzzle-prompt")
    page.wait_for_selector('.board [data-key="c7:1"]')
    assert prompt.text_content() == "Your move: find the move that wins."
    assert "rated" in page.locator("#puzzle-facts").text_content()
    shoot(page, shots, "puzzle-start")
    # The 9♣ onto the 10♣: a winning move, though the solver's line starts otherwise.
    play(page, "c7:1", 4)
    expect(page.locator("#puzzle-prompt")).to_contain_text("Right!")
    assert page.locator('.tableau .col[data-col="7"] .card').count() == 1
    # The 4♣ onto the 5♣: it buries the 7♣ it needs under the 3♥, for good.
    play(page, "c7:0", 5)
    reason = page.wait_for_selector("#puzzle-reason")
    assert "stuck for good" in reason.text_content() and "3♥" in reason.text_content()
    change = page.wait_for_selector("#rating-change")
    assert change.text_content().startswith("−")
    assert page.locator("#puzzle-solution li").count() == rated.length
    assert page.locator("#puzzle-source").get_attribute("href") == f"/games/{source}"
    page.click("#puzzle-show-answer")
    shoot(page, shots, "puzzle-wrong")

    # The puzzle of the day: one move, six cards unseen; solved.
    page.click("#puzzle-tab-daily")
    page.wait_for_selector('.board [data-key="c1:16"]')
    hidden = page.locator(".tableau .card.down").count()
    assert hidden == sum(daily.position["down"])
    play(page, "c1:16", 7)
    expect(page.locator("#puzzle-prompt")).to_have_text("Solved!")
    themes = [
        t.get_attribute("data-theme") for t in page.query_selector_all("#puzzle-themes .theme")
    ]
    assert themes == list(daily.themes)
    assert page.locator("#rating-change").text_content().startswith("+")
    # Ended: the cards that were face down are shown, marked.
    assert page.locator(".tableau .card.down").count() == 0
    assert page.locator(".tableau .card.was-down").count() == sum(daily.position["down"])
    shoot(page, shots, "puzzle-daily-solved")

    # Streak deals the last puzzle left.
    page.click("#puzzle-tab-streak")
    page.wait_for_selector("#streak-count")
    shoot(page, shots, "puzzle-streak")

    # The dashboard: two themes failed and two solved, the failed first.
    page.click("#puzzle-tab-dashboard")
    table = page.wait_for_selector("#themes-table")
    rows = table.query_selector_all("tbody tr")
    assert rows, "the themes the player met"
    failed = [row.get_attribute("data-theme") for row in rows]
    assert set(rated.themes) <= set(failed) and set(daily.themes) <= set(failed)
    shoot(page, shots, "puzzle-dashboard")
