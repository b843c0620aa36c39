"""Everything fits: every page of the client at 1280×800 and at 390×844 (a phone, with a
touch screen) has no horizontal scroll, and a game whose column has grown past anything a
deal lays out (18 cards) fits the window without scrolling. Each runs in Debian's chromium
(Playwright) against a real daphne server, and screenshots the long column at that size.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import httpx
import pytest

from games import engine
from tests.e2e.players import open_at, shoot, signed_up
from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param((1280, 800), id="desktop"), pytest.param((390, 844), id="phone")]
#: How long a column the board must fit: longer than any deal lays out.
LONG = 18
#: Counts the tones the page starts (sound.js), in ``window.tones``.
COUNT_TONES = """window.tones = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
    window.tones += 1;
    return start.apply(this, args);
};"""

#: How wide the page is against the window, and the first elements past its right edge. The
#: window's width is the layout's (``clientWidth``): a phone's browser widens ``innerWidth``
#: to a page too wide for it, zoomed out.
MEASURE = """() => {
    const width = document.documentElement.clientWidth;
    const past = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > width + 0.5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}#${el.id}`);
    const across = document.documentElement.scrollWidth;
    return { across, width, past: past.slice(0, 5) };
}"""


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def long_column_line(rules: engine.Ruleset, seed: int) -> tuple[list[engine.Action], engine.State]:
    """Actions from deal ``seed`` that grow one column to ``LONG`` cards or more: each the
    legal action after which the longest column is longest (a few moves in classic), and the
    position they lead to."""
    state = engine.new_game(rules, engine.seeded_deal(rules, seed))
    line: list[engine.Action] = []
    while max(map(len, state.columns)) < LONG:
        options = [
            (action, engine.apply(state, action)[0]) for action in engine.legal_actions(state)
        ]
        action, state = max(options, key=lambda pair: max(map(len, pair[1].columns)))
        line.append(action)
        assert len(line) < 30, "no long column from this deal"
    return line, state


def the_pages(server: Any, player: Any, size: tuple[int, int]) -> dict[str, str]:
    """A path for every page of web/urls.py (by its name), each showing something."""
    from django.contrib.auth import get_user_model

    from games import clock
    from games.dailies import contests
    from games.dailies.models import DailyChallenge
    from games.writes import services

    tag = "d" if size[0] > 600 else "p"
    now = clock.now()
    arena = contests.arena_create(
        rules="classic",
        starts_at=now - dt.timedelta(minutes=5),
        ends_at=now + dt.timedelta(hours=1),
    )
    race = player.api.post("/races", json={"countdown": 600, "time_limit": 600, "title": "Fit"})
    assert race.status_code == 201, race.text
    day = now.date() - dt.timedelta(days=8 if tag == "d" else 9)
    DailyChallenge.objects.create(
        date=day, rules="classic", seed=WIN["seed"], solution=WIN["actions"],
        difficulty="medium", created_at=now,
    )  # fmt: skip
    user = get_user_model().objects.get(username=player.name)
    with clock.frozen(dt.datetime.combine(day, dt.time(9), tzinfo=dt.UTC)):
        joined, _ = services.challenge_join(date=day, player=user)
        for command in WIN["actions"]:
            services.game_command(game_id=joined.game_id, actor=user, command=command)
    return {
        "web-lobby": "/",
        "web-signin": "/signin",
        "web-account": "/account",
        "web-account-step": "/account/reset",
        "web-daily": "/daily",
        "web-daily-date": f"/daily/{day:%Y-%m-%d}",
        "web-archive": "/archive",
        "web-archive-month": f"/archive/{day:%Y-%m}",
        "web-races": "/races",
        "web-race": f"/races/{race.json()['code']}",
        "web-arenas": "/arenas",
        "web-arena": f"/arenas/{arena.id}",
        "web-leaderboards": "/leaderboards",
        "web-tv": "/tv",
        "web-puzzles": "/puzzles",
        "web-puzzles-mode": "/puzzles/dashboard",
        "web-game": f"/games/{joined.game_id}",
        "web-player": f"/players/{player.name}",
        "web-player-stats": f"/players/{player.name}/stats/classic",
    }


@pytest.mark.parametrize("size", SIZES)
def test_every_page_fits_and_a_long_column_fits_the_window(pages, server, shots, size) -> None:
    from playwright.sync_api import expect

    from web.urls import urlpatterns

    tag = "d" if size[0] > 600 else "p"
    player = signed_up(server, f"fitall{tag}")
    paths = the_pages(server, player, size)
    assert set(paths) == {pattern.name for pattern in urlpatterns}  # a new page is swept too
    page = open_at(pages, size, player)
    wide = {}
    for name, path in [*paths.items(), ("api-docs", "/api/docs/")]:
        page.goto(f"{server.http}{path}")
        page.wait_for_load_state("networkidle")
        seen = page.evaluate(MEASURE)
        if name == "web-archive-month":  # the page that was 413 px wide on a phone
            shoot(page, shots, "fit-archive")
        if seen["across"] > size[0] or seen["width"] != size[0]:
            wide[path] = seen
            shoot(page, shots, f"wide-{name}")
    assert wide == {}, wide

    # A column of 18 cards: the board fits the window, and nothing scrolls.
    rules = engine.RULESETS["classic"]
    line, state = long_column_line(rules, seed=0)
    game = player.api.post("/games", json={"rules": "classic", "seed": 0}).json()
    for n, action in enumerate(line):
        body = {**engine.action_to_command(action), "expected_version": n + 1}
        assert player.api.post(f"/games/{game['id']}/commands", json=body).status_code == 201
    # The player's page, a spectator's, and the replay once the game is over.
    spectator = open_at(pages, size, None)
    cards = sum(map(len, state.columns))
    # On a phone a spectator's and a replay's move list comes under the board: the board
    # fits, and the page scrolls on to the list.
    listed = size[0] < 600
    for viewer, shot in ((page, "fit-long-column"), (spectator, "fit-long-column-spectator")):
        viewer.goto(f"{server.http}/games/{game['id']}")
        assert_long_column_fits(viewer, cards, size, list_below=listed and viewer is spectator)
        shoot(viewer, shots, shot)
    resign = {"type": "resign", "expected_version": len(line) + 1}
    assert player.api.post(f"/games/{game['id']}/commands", json=resign).status_code == 201
    spectator.goto(f"{server.http}/games/{game['id']}")
    expect(spectator.locator("#scrubber")).to_be_visible()
    # The banner that offers the winning line comes with the solver's answer, above the
    # board, after the board was fitted: the board is fitted again.
    expect(spectator.get_by_role("button", name="Show the winning line")).to_be_visible()
    assert_long_column_fits(spectator, cards, size, list_below=listed)
    shoot(spectator, shots, "fit-long-column-replay")
    # Whatever grows above the board once it is fitted (here the analysis, by 40 px), the
    # board is fitted again (it was left 8 px past the window when the answer came late).
    spectator.evaluate("document.querySelector('.analysis').style.paddingTop = '40px'")
    spectator.wait_for_timeout(300)
    assert_long_column_fits(spectator, cards, size, list_below=listed)


def assert_long_column_fits(
    page: Any, cards: int, size: tuple[int, int], *, list_below: bool = False
) -> None:
    """The board of a game with a long column (``cards`` in all) fits the window: the last
    card of the longest column is in view, overlapped, and the page does not scroll (with
    ``list_below``, the board ends in the window and the page scrolls on to what is under
    it)."""
    from playwright.sync_api import expect

    expect(page.locator(".tableau .col")).to_have_count(7)
    expect(page.locator(".tableau .card")).to_have_count(cards)
    longest = page.evaluate(
        """() => {
            const cols = [...document.querySelectorAll('.tableau .col')];
            const col = cols.reduce((a, b) => (b.children.length > a.children.length ? b : a));
            const cards = [...col.querySelectorAll('.card')];
            const last = cards[cards.length - 1].getBoundingClientRect();
            const board = document.querySelector('.board').getBoundingClientRect();
            return { cards: cards.length, bottom: last.bottom, board: board.bottom,
                     height: document.documentElement.clientHeight,
                     down: document.documentElement.scrollHeight,
                     step: cards[cards.length - 1].getBoundingClientRect().top
                           - cards[cards.length - 2].getBoundingClientRect().top };
        }"""
    )
    print(f"\nlong column at {size} on {page.url}: {longest}")
    assert longest["cards"] >= LONG, longest
    assert longest["bottom"] <= longest["height"], longest
    if list_below:
        assert longest["board"] <= longest["height"], longest
    else:
        assert longest["down"] <= longest["height"], longest  # the page does not scroll
    assert longest["step"] >= 4, longest  # overlapped, never stacked out of sight


# --- preferences ------------------------------------------------------------------------------


def looks(page: Any) -> dict[str, Any]:
    """The page's theme and motion as applied, its panels' and felt's colours, and the width
    of the board's cards (0 without a board)."""
    return page.evaluate(
        """() => ({
            theme: document.documentElement.dataset.theme,
            motion: document.documentElement.dataset.motion,
            felt: getComputedStyle(document.documentElement).backgroundColor,
            ink: getComputedStyle(document.body).getPropertyValue('--ink').trim(),
            card: document.querySelector('.tableau .card')?.getBoundingClientRect().width || 0,
        })"""
    )


def open_signed_in(pages: Any, server: Any, player: Any, path: str, route: Any) -> Any:
    """A desktop page at ``path`` signed in as ``player``, its preference requests passed to
    ``route`` first, once its first view is drawn and the page has loaded."""
    from playwright.sync_api import expect

    page = open_at(pages, (1280, 800), None, "/")
    page.route("**/api/v1/auth/preferences", route)
    page.evaluate(
        """([token, name]) => { localStorage.setItem('scorpion.token', token);
                               localStorage.setItem('scorpion.username', name); }""",
        [player.token, player.name],
    )
    page.goto(f"{server.http}{path}")
    expect(page.locator(".tableau .col")).to_have_count(7)
    page.wait_for_function("document.readyState === 'complete'")
    return page


#: Whether the page has had the account's preferences (a GET, answered).
READ = """() => performance.getEntriesByType('resource')
    .some((entry) => entry.name.endsWith('/auth/preferences'))"""


def test_a_change_made_while_the_accounts_copy_is_on_its_way_is_kept(pages, server) -> None:
    """The page reads the account's preferences once it has loaded; a change the player
    makes before that answer arrives (a loaded machine, a slow network) is not undone by
    it."""

    player = signed_up(server, "prefsrace")
    game = player.api.post("/games", json={"rules": "classic", "seed": 5}).json()
    held: list[Any] = []

    def hold(route: Any) -> None:
        if route.request.method == "GET" and not held:
            held.append((route, route.fetch()))  # answered now (large), delivered later
        else:
            route.continue_()

    page = open_signed_in(pages, server, player, f"/games/{game['id']}", hold)
    while not held:
        page.wait_for_timeout(50)
    large = looks(page)["card"]
    page.click("#settings-button")
    with page.expect_response(lambda r: r.request.method == "PUT" and r.ok):
        page.locator('dialog.settings #setting-card_size input[value="small"]').check()
    route, answer = held[0]
    assert answer.json()["card_size"] == "large"
    route.fulfill(response=answer)
    page.wait_for_timeout(500)
    assert looks(page)["card"] < large * 0.8
    assert page.evaluate("JSON.parse(localStorage.getItem('scorpion.prefs')).card_size") == "small"
    assert player.api.get("/auth/preferences").json()["card_size"] == "small"


def switched_off(
    pages: Any, server: Any, player: Any, game: dict[str, Any], *, hold_all: bool
) -> tuple[Any, list[Any]]:
    """A page of ``player``'s game where three switches are turned off in a row while the
    first preference PUT is held (not sent on to the server), and every later one too with
    ``hold_all``: the page and the held PUTs."""
    held: list[Any] = []

    def hold(route: Any) -> None:
        if route.request.method == "PUT" and (hold_all or not held):
            held.append(route)
        else:
            route.continue_()

    page = open_signed_in(pages, server, player, f"/games/{game['id']}", hold)
    page.wait_for_function(READ)
    page.click("#settings-button")
    dialog = page.locator("dialog.settings")
    dialog.locator("#setting-sound").uncheck()
    while not held:
        page.wait_for_timeout(20)
    for switch in ("#setting-animations", "#setting-auto_finish"):
        dialog.locator(switch).uncheck()
    page.wait_for_timeout(300)  # time for any request the switches send to reach the route
    return page, held


def stored_settles(page: Any, player: Any, expected: dict[str, Any]) -> dict[str, Any]:
    """The account's preferences once they equal ``expected``, or after 10 s (``page``'s
    requests are routed meanwhile)."""
    deadline = time.monotonic() + 10
    while (stored := player.api.get("/auth/preferences").json()) != expected:
        if time.monotonic() > deadline:
            break
        page.wait_for_timeout(100)
    return stored


OFF = {"card_size": "large", "theme": "light", "sound": False, "animations": False}


def test_changes_in_quick_succession_reach_the_account_in_their_order(pages, server) -> None:
    """A PUT replaces every preference: three switches flipped in a row must not go as three
    requests at once, the first (two switches still on) applied last and left on the
    account. One request at a time, then the newest state."""
    player = signed_up(server, "prefsorder")
    game = player.api.post("/games", json={"rules": "classic", "seed": 5}).json()
    page, held = switched_off(pages, server, player, game, hold_all=False)
    first = held[0].request
    assert first.post_data_json["animations"] is True
    with page.expect_response(lambda response: response.request == first):
        held[0].continue_()  # the first arrives, after any the page did not wait for
    expected = {**OFF, "auto_finish": False}
    assert stored_settles(page, player, expected) == expected
    page.close()


def test_a_change_not_yet_on_the_account_is_sent_by_the_next_page(pages, server) -> None:
    """Changes made while a PUT is on its way are sent when it is answered; if the player
    leaves the page first, or that request is lost, the next page of the same browser sends
    them instead of taking the account's older copy."""
    player = signed_up(server, "prefsleave")
    game = player.api.post("/games", json={"rules": "classic", "seed": 5}).json()
    page, held = switched_off(pages, server, player, game, hold_all=True)
    assert len(held) == 1  # the later changes wait for it
    page.goto(f"{server.http}/games/{game['id']}")
    held[0].abort()  # lost on the way
    while len(held) < 2:
        page.wait_for_timeout(20)
    expected = {**OFF, "auto_finish": False}
    assert held[1].request.post_data_json == expected
    held[1].continue_()
    assert stored_settles(page, player, expected) == expected
    assert looks(page)["motion"] == "off"
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_preferences_apply_at_once_and_follow_the_account(pages, server, shots, size) -> None:
    from playwright.sync_api import expect

    tag = "d" if size[0] > 600 else "p"
    # A visitor: kept in the browser, applied without a reload, still there after one.
    visitor = open_at(pages, size, None, "/")
    assert looks(visitor)["theme"] == "light"
    visitor.click("#settings-button")
    dialog = visitor.locator("dialog.settings")
    expect(dialog).to_be_visible()
    shoot(visitor, shots, "settings")
    light = looks(visitor)
    dialog.locator('#setting-theme input[value="dark"]').check()
    dark = looks(visitor)
    assert dark["theme"] == "dark" and dark["ink"] != light["ink"], (light, dark)
    dialog.get_by_role("button", name="Close").click()
    shoot(visitor, shots, "theme-dark-lobby")
    visitor.reload()
    assert looks(visitor)["theme"] == "dark"
    # Signing up keeps them: the account holds what the browser had.
    visitor.goto(f"{server.http}/signin")
    visitor.click("#tab-signup")
    visitor.fill("#username", f"prefsnew{tag}")
    visitor.fill("#password", "x7-lantern-Q-prefs")
    visitor.click("#auth-submit")
    expect(visitor.locator("#signout")).to_be_visible()
    token = visitor.evaluate("localStorage.getItem('scorpion.token')")
    headers = {"Authorization": f"Token {token}"}
    stored = httpx.get(f"{server.http}/api/v1/auth/preferences", headers=headers).json()
    assert stored["theme"] == "dark", stored

    # A player on their board: the cards shrink at once; each theme drawn; all stored.
    player = signed_up(server, f"prefs{tag}")
    game = player.api.post("/games", json={"rules": "classic", "seed": 5}).json()
    page = open_at(pages, size, player, f"/games/{game['id']}")
    expect(page.locator(".tableau .col")).to_have_count(7)
    large = looks(page)["card"]
    page.click("#settings-button")
    dialog = page.locator("dialog.settings")
    dialog.locator('#setting-card_size input[value="small"]').check()
    page.wait_for_function(
        f"() => document.querySelector('.tableau .card').offsetWidth < {large} * 0.8"
    )
    for switch in ("#setting-sound", "#setting-animations", "#setting-auto_finish"):
        dialog.locator(switch).uncheck()
    assert looks(page)["motion"] == "off"
    dialog.get_by_role("button", name="Close").click()
    page.add_init_script(COUNT_TONES)
    page.reload()
    page.keyboard.press("d")  # a deal, in silence
    expect(page.locator("#stat-moves")).to_have_text("1")
    assert page.evaluate("window.tones") == 0
    for theme in ("light", "dark", "contrast"):
        page.click("#settings-button")
        page.locator(f'dialog.settings #setting-theme input[value="{theme}"]').check()
        page.locator("dialog.settings").get_by_role("button", name="Close").click()
        assert looks(page)["theme"] == theme
        shoot(page, shots, f"theme-{theme}-board")
    page.goto(f"{server.http}/account")  # the account page opens the same settings
    page.click("#account-settings")
    expect(page.locator('dialog.settings #setting-theme input[value="contrast"]')).to_be_checked()
    page.locator("dialog.settings").get_by_role("button", name="Close").click()
    mine = {"card_size": "small", "theme": "contrast", "sound": False, "animations": False}
    assert stored_settles(page, player, {**mine, "auto_finish": False}) == {
        **mine,
        "auto_finish": False,
    }
    # Another browser of the same account takes them from the account once loaded.
    elsewhere = open_at(pages, size, player, f"/games/{game['id']}")
    elsewhere.wait_for_function("() => document.documentElement.dataset.theme === 'contrast'")
    expect(elsewhere.locator(".tableau .col")).to_have_count(7)
    elsewhere.wait_for_function(
        f"() => document.querySelector('.tableau .card').offsetWidth < {large} * 0.8"
    )


# --- auto-finish --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_the_last_face_down_card_turned_the_page_finishes_the_game(
    pages, server, shots, size
) -> None:
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from games.writes import services

    tag = "d" if size[0] > 600 else "p"
    player = signed_up(server, f"finisher{tag}")
    user = get_user_model().objects.get(username=player.name)
    game = services.game_create(owner=user, rules="classic", seed=WIN["seed"])
    for command in WIN["actions"][:46]:  # the next move turns the last face-down card
        services.game_command(game_id=game.game_id, actor=user, command=command)
    page = open_at(pages, size, player, f"/games/{game.game_id}")
    page.add_init_script(COUNT_TONES)
    page.reload()
    expect(page.locator(".tableau .card.down")).to_have_count(1)
    shoot(page, shots, "finish-before")
    last = WIN["actions"][46]
    with page.expect_response(lambda r: "/finish" in r.url) as asked:
        page.locator(f'.tableau [data-key="c{last["from"]}:{last["index"]}"]').click(
            position={"x": 10, "y": 6}
        )
        page.locator(f'.tableau .col[data-col="{last["to"]}"]').click(position={"x": 10, "y": 6})
    line = asked.value.json()["line"]
    assert asked.value.json()["verdict"] == "won" and line
    expect(page.locator("dialog.end.won")).to_be_visible(timeout=15_000)
    shoot(page, shots, "finish-won")
    events = player.api.get(f"/games/{game.game_id}/events?limit=200").json()["results"]
    # created (1), the 46 moves before, the page's move (48), then the finish's moves.
    finished = [e for e in events if e["seq"] > 48]
    assert [e["type"] for e in finished] == ["moved"] * len(line)  # one event a move
    assert [e["data"] for e in finished] == [
        {k: v for k, v in m.items() if k != "type"} for m in line
    ]
    assert player.api.get(f"/games/{game.game_id}").json()["status"] == "won"
    assert page.evaluate("window.tones") >= len(line) + 1  # sound is on by default
