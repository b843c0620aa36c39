"""The browser client's pages beyond one game: races, arenas, leaderboards, the daily
archive, profiles and TV; the board's fit in every ruleset, double click and tap; the
hint's warning in a race. Each runs in Debian's chromium (Playwright) against a real daphne
server, at 1280×800 and at 390×844 (a phone, with a touch screen), acting only through the
pages, and screenshots each screen at that size (``shots``, conftest.py).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from games import engine
from tests.e2e.players import open_at, shoot, signed_up
from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param((1280, 800), id="desktop"), pytest.param((390, 844), id="phone")]
CARD_NAME = re.compile(
    r"^(Ace|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King) of "
    r"(spades|hearts|diamonds|clubs)(, legal target)?$"
)


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def cards_are_named(page: Any) -> int:
    """Every face-up card on the page's boards is named as a card, every face-down one only
    "face-down card"; returns how many face-up cards there are."""
    labels = page.eval_on_selector_all(
        ".board .card.up:not(.mini), .board .card.down[aria-label]",
        "cards => cards.map(c => [c.classList.contains('up'), c.getAttribute('aria-label')])",
    )
    up = [label for face_up, label in labels if face_up]
    assert all(CARD_NAME.match(label or "") for label in up), up
    assert all(label == "face-down card" for face_up, label in labels if not face_up)
    return len(up)


def win_classic(player: Any, step_s: float, start: dt.datetime) -> str:
    """A classic game of seed 0 won by ``player`` with one action every ``step_s`` seconds
    (written through the services, as if played then): its id."""
    from django.contrib.auth import get_user_model

    from games import clock
    from games.writes import services

    user = get_user_model().objects.get(username=player.name)
    with clock.frozen(start):
        game = services.game_create(owner=user, rules="classic", seed=WIN["seed"])
    for n, command in enumerate(WIN["actions"], start=1):
        with clock.frozen(start + dt.timedelta(seconds=n * step_s)):
            services.game_command(game_id=game.game_id, actor=user, command=command)
    return str(game.game_id)


# --- races ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_a_race_is_made_joined_by_code_played_and_finished(pages, server, shots, size) -> None:
    from playwright.sync_api import expect

    tag = "d" if size[0] > 600 else "p"
    host, guest = signed_up(server, f"host{tag}"), signed_up(server, f"guest{tag}")
    mine = open_at(pages, size, host, "/races")
    mine.select_option("#race-start", "10")
    mine.select_option("#race-limit", "300")
    mine.fill("#race-title", "Lunch race")
    shoot(mine, shots, "race-new")
    mine.click("#create-race")
    expect(mine).to_have_url(re.compile(r"/races/[A-Z0-9]{6}$"))
    code = mine.inner_text("#code-shown")
    assert mine.input_value("#share-link") == f"{server.http}/races/{code}"

    theirs = open_at(pages, size, guest, "/races")
    if size[0] > 600:  # by keyboard alone
        theirs.focus("#race-code")
        theirs.keyboard.type(code.lower())
        theirs.keyboard.press("Enter")
    else:
        theirs.fill("#race-code", code)
        theirs.click("#join-code")
    expect(theirs).to_have_url(f"{server.http}/races/{code}")
    expect(theirs.locator(".race-main")).to_contain_text("You are in!")
    expect(mine.locator(f'#standings tr[data-player="{guest.name}"]')).to_be_visible()
    assert re.fullmatch(r"0:\d\d", mine.inner_text("#race-clock"))  # the countdown
    shoot(mine, shots, "race-countdown")

    # The start: both boards appear at once, the same deal for both.
    expect(mine.locator(".tableau .col")).to_have_count(7, timeout=20_000)
    expect(theirs.locator(".tableau .col")).to_have_count(7, timeout=5_000)
    assert cards_are_named(mine) > 0
    # The first hint asks first, and says what it costs; cancelled, nothing is recorded.
    mine.click("#hint")
    dialog = mine.locator("dialog.hint-confirm")
    expect(dialog).to_contain_text("ranks below every deal won without one")
    shoot(mine, shots, "race-hint-confirm")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    assert host.api.get(f"/races/{code}/standings").json()["results"][0]["hints"] == 0
    mine.click("#hint")
    mine.locator("dialog.hint-confirm").get_by_role("button", name="Show the hint").click()
    expect(theirs.locator(f'#standings tr[data-player="{host.name}"] .aided')).to_be_visible()
    mine.click("#hint")  # a second hint in the same game is not asked about
    expect(mine.locator("dialog")).to_have_count(0)
    shoot(theirs, shots, "race-running")

    for page in (mine, theirs):
        page.keyboard.press("x")
        expect(page.locator("dialog")).to_contain_text("Resign this game?")
        page.keyboard.press("Enter")
    # Every racer finished every deal: the race is over, and every replay opens.
    replays = theirs.locator("#race-replays a[data-round]")
    expect(replays).to_have_count(2, timeout=10_000)
    expect(theirs.locator("#race-status")).to_have_text("Finished")
    shoot(theirs, shots, "race-finished")
    theirs.locator(f'#race-replays li[data-player="{host.name}"] a').click()
    expect(theirs.locator("#position")).to_be_visible()
    expect(theirs.locator(".tableau .card.up").first).to_be_visible()
    assert cards_are_named(theirs) > 0  # a finished race's replay shows every card


# --- arenas -----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_an_arena_deal_is_played_and_scored(pages, server, shots, size) -> None:
    from playwright.sync_api import expect

    from games import clock
    from games.dailies import contests

    now = clock.now()
    arena = contests.arena_create(
        rules="wasp", starts_at=now - dt.timedelta(hours=1), ends_at=now + dt.timedelta(hours=2)
    )
    player = signed_up(server, f"arena{'d' if size[0] > 600 else 'p'}")
    page = open_at(pages, size, player, "/arenas")
    expect(page.locator("#arenas-running a")).to_have_count(1)
    shoot(page, shots, "arenas")
    page.click(f'#arenas-running a[href="/arenas/{arena.id}"]')
    expect(page.locator("#next-deal")).to_be_visible()
    expect(page.locator(".points-table")).to_contain_text("80")
    page.click("#next-deal")
    expect(page.locator(".tableau .col")).to_have_count(7)
    assert cards_are_named(page) > 0
    shoot(page, shots, "arena-deal")
    page.keyboard.press("x")
    page.keyboard.press("Enter")
    expect(page.locator("#next-deal")).to_be_visible()  # on to the next deal
    expect(page.locator('#my-deals a[data-round="1"]')).to_contain_text("Resigned")
    row = page.locator(f'#standings tr[data-player="{player.name}"]')
    expect(row.locator('td[data-col="played"]')).to_have_text("1")
    shoot(page, shots, "arena-standings")


# --- leaderboards, profiles -------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_leaderboards_by_tab_with_links_and_the_players_profile(pages, server, shots, size):
    from playwright.sync_api import expect

    tag = "d" if size[0] > 600 else "p"
    quick, slow = signed_up(server, f"quick{tag}"), signed_up(server, f"slow{tag}")
    # Hours ago, but this week (UTC) even in the first hours of a Monday: the week's tab
    # below must show both games.
    now = dt.datetime.now(dt.UTC)
    week_start = dt.datetime.combine(
        now.date() - dt.timedelta(days=now.weekday()), dt.time(), dt.UTC
    )
    start = max(now - dt.timedelta(hours=3), week_start)
    fast_game = win_classic(quick, 1, start)
    win_classic(slow, 2, start)
    page = open_at(pages, size, slow, "/leaderboards?scope=classic&metric=best_time")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows.first).to_have_attribute("data-player", re.compile(r"^quick"))
    quick_row = page.locator(f'#leaderboard tr[data-player="{quick.name}"]')
    expect(quick_row.locator('td[data-col="value"]')).to_have_text(
        f"0:{len(WIN['actions']) - 1:02d}.0"
    )  # from the first action to the win
    expect(quick_row.get_by_role("link", name=f"Watch {quick.name}'s game")).to_have_attribute(
        "href", f"/games/{fast_game}"
    )
    expect(page.locator(f'#leaderboard tr.me[data-player="{slow.name}"]')).to_be_visible()
    shoot(page, shots, "leaderboards")

    # The tabs work from the keyboard: arrows move between them, and the page follows.
    page.focus('#metric-tabs [aria-selected="true"]')
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"metric=wins"))
    expect(page.locator('#metric-tabs [aria-selected="true"]')).to_be_focused()
    page.locator('#period-tabs [data-value="week"]').click()
    expect(page.locator("#period-at")).to_have_value(re.compile(r"^\d{4}-W\d{2}$"))
    expect(quick_row).to_be_visible()  # won this week
    shoot(page, shots, "leaderboards-week")

    quick_row.get_by_role("link", name=quick.name).click()
    expect(page.locator("#player-name")).to_have_text(quick.name)
    classic = page.locator('#rules-stats tr[data-rules="classic"]')
    expect(classic.locator('td[data-col="won"]')).to_have_text("1")
    expect(classic.locator('td[data-col="best-time"] a')).to_have_attribute(
        "href", f"/games/{fast_game}"
    )
    # One definition of a best time: the profile says what the board says.
    expect(page.locator("#best-time")).to_have_text(f"0:{len(WIN['actions']) - 1:02d}.0")
    shoot(page, shots, "profile")
    page.goto(f"{server.http}/players/nobody-{tag}")
    expect(page.locator("h1")).to_have_text("Player not found")
    expect(page.locator("#problem")).to_have_text(f"Nobody plays here under the name nobody-{tag}.")


# --- the daily archive --------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_the_archive_shows_each_day_its_solution_and_an_unranked_replay(
    pages, server, shots, size
) -> None:
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from games import clock
    from games.dailies.models import DailyChallenge
    from games.writes import services

    tag = "d" if size[0] > 600 else "p"
    today = dt.datetime.now(dt.UTC).date()
    day = today - dt.timedelta(days=3 if tag == "d" else 5)
    empty = day - dt.timedelta(days=1)
    DailyChallenge.objects.create(
        date=day,
        rules="classic",
        seed=WIN["seed"],
        solution=WIN["actions"],
        difficulty="medium",
        created_at=dt.datetime.now(dt.UTC),
    )
    player = signed_up(server, f"archivist{tag}")
    user = get_user_model().objects.get(username=player.name)
    with clock.frozen(dt.datetime.combine(day, dt.time(9), tzinfo=dt.UTC)):
        joined, _ = services.challenge_join(date=day, player=user)
        for command in WIN["actions"]:
            services.game_command(game_id=joined.game_id, actor=user, command=command)

    page = open_at(pages, size, player, f"/archive/{day:%Y-%m}")
    link = page.locator(f'a[data-date="{day}"]')
    expect(link).to_have_class(re.compile(r"result-won"))
    expect(link).to_have_attribute("aria-label", re.compile(r"medium, you won"))
    expect(page.locator(f'a[data-date="{empty}"]')).to_have_count(0)
    shoot(page, shots, "archive")
    link.click()
    expect(page.locator("#difficulty")).to_have_text("medium")
    expect(page.locator("#my-result")).to_contain_text("Won")
    page.click("#show-solution")
    expect(page.locator("#solution-position")).to_have_text(f"0 / {len(WIN['actions'])}")
    page.click("#solution-forward")
    expect(page.locator("#solution-position")).to_have_text(f"1 / {len(WIN['actions'])}")
    expect(page.locator("#solution-step")).to_contain_text("to column")
    assert cards_are_named(page) == 52  # a closed day: every card face up, the reserve's too
    shoot(page, shots, "archive-solution")
    page.click("#play-unranked")
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]+$"))
    expect(page.locator("#deal")).to_be_visible()  # an ordinary game of that deal
    page.goto(f"{server.http}/daily/{empty}")
    expect(page.locator("h1")).to_have_text("No challenge that day")


# --- TV ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_tv_shows_the_longest_live_game_and_moves_on_when_it_ends(pages, server, shots, size):
    from playwright.sync_api import expect

    tag = "d" if size[0] > 600 else "p"
    star, next_up = signed_up(server, f"star{tag}"), signed_up(server, f"next{tag}")
    longest = star.api.post("/games", json={"rules": "classic", "seed": WIN["seed"]}).json()
    for command in WIN["actions"][:3]:
        assert star.api.post(f"/games/{longest['id']}/commands", json=command).status_code == 201
    other = next_up.api.post("/games", json={"rules": "classic", "seed": 5}).json()
    page = open_at(pages, size, path="/tv")
    expect(page.locator(".game-head .owner")).to_have_text(star.name)
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("#move-list li")).to_have_count(4)
    # What a spectator's page holds of a playing game is what the API shows it: no more.
    shown = star.api.get(f"/games/{longest['id']}").json()
    public = {code for column in shown["columns"] for code in column if code}
    codes = set(page.eval_on_selector_all("[data-code]", "els => els.map(e => e.dataset.code)"))
    assert codes - {""} <= public
    assert page.locator(".tableau .card.down").count() == sum(
        column.count(None) for column in shown["columns"]
    )
    cards_are_named(page)
    shoot(page, shots, "tv")
    star.api.post(f"/games/{longest['id']}/commands", json={"type": "resign"})
    expect(page.locator("#tv-next")).to_contain_text("resigned")
    expect(page.locator(".game-head .owner")).to_have_text(next_up.name, timeout=15_000)
    assert page.locator(".game-head").get_attribute("class") is not None
    assert other["owner"] == next_up.name


# --- the board ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_a_fresh_deal_of_every_ruleset_fits_the_window(pages, server, shots, size) -> None:
    from playwright.sync_api import expect

    player = signed_up(server, f"fitter{'d' if size[0] > 600 else 'p'}")
    page = open_at(pages, size, player)
    widths = {}
    for rules in engine.RULESETS:
        game = player.api.post("/games", json={"rules": rules, "seed": 3}).json()
        page.goto(f"{server.http}/games/{game['id']}")
        expect(page.locator(".tableau .col")).to_have_count(
            engine.RULESETS[rules].describe()["columns"]
        )
        box = page.evaluate(
            """() => {
                const cards = [...document.querySelectorAll('.tableau .card, .board-top .card')];
                return {
                    bottom: Math.max(...cards.map(c => c.getBoundingClientRect().bottom)),
                    right: Math.max(...cards.map(c => c.getBoundingClientRect().right)),
                    width: cards[0].getBoundingClientRect().width,
                    // The layout's size: a phone's browser widens innerWidth to a page
                    // too wide for it.
                    height: document.documentElement.clientHeight,
                    across: document.documentElement.clientWidth,
                    scrolls: document.documentElement.scrollWidth
                        > document.documentElement.clientWidth,
                };
            }"""
        )
        assert box["bottom"] <= box["height"], (rules, box)
        assert box["right"] <= box["across"] and not box["scrolls"], (rules, box)
        widths[rules] = box["width"]
        if rules in ("classic", "double", "three_blind_mice"):
            shoot(page, shots, f"fit-{rules}")
    # Every link of the header is on the screen, whatever its width: none scrolls away.
    outside = page.eval_on_selector_all(
        ".nav .nav-link",
        "links => links.filter(a => a.getBoundingClientRect().right > innerWidth)"
        ".map(a => a.textContent)",
    )
    assert outside == [], outside
    if size[0] > 600:  # cards grow with the screen
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.reload()
        expect(page.locator(".tableau .col")).to_have_count(10)
        grown = page.eval_on_selector(".tableau .card", "c => c.getBoundingClientRect().width")
        assert grown > widths["double"] * 1.2
        shoot(page, shots, "fit-double-large")


def _best_move(moves: list[dict[str, Any]], columns: list[list[Any]]) -> dict[str, Any]:
    """The first card with a legal move, and the move the board plays for it: onto a card
    before into an empty column (board.js quickMove)."""
    first = next(m for m in moves if m["type"] == "move" and "from" in m)
    options = [m for m in moves if m.get("from") == first["from"] and m["index"] == first["index"]]
    return sorted(options, key=lambda m: len(columns[m["to"] - 1]) == 0)[0]


@pytest.mark.parametrize("size", SIZES)
def test_a_double_click_or_one_tap_plays_a_cards_best_move(pages, server, size) -> None:
    from playwright.sync_api import expect

    touch = size[0] < 600
    player = signed_up(server, f"quickmove{'p' if touch else 'd'}")
    game = player.api.post("/games", json={"rules": "wasp", "seed": 11}).json()
    moves = player.api.get(f"/games/{game['id']}/moves").json()["moves"]
    expected = _best_move(moves, game["columns"])
    page = open_at(pages, size, player, f"/games/{game['id']}")
    card = page.locator(f'.tableau [data-key="c{expected["from"]}:{expected["index"]}"]')
    expect(card).to_be_visible()
    page.wait_for_function(  # the legal moves arrive after the board
        "() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/moves'))"
    )
    page.wait_for_timeout(100)
    if touch:
        card.tap(position={"x": 8, "y": 5})
    else:
        card.dblclick(position={"x": 8, "y": 5})
    expect(page.locator("#stat-moves")).to_have_text("1")
    events = player.api.get(f"/games/{game['id']}/events").json()["results"]
    assert events[1]["data"] == {k: expected[k] for k in ("from", "index", "to")}
    assert events[1]["card"] == expected["card"]
