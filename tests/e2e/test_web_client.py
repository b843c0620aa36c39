"""The browser client (web/), in Debian's chromium driven by Playwright, against a real daphne
server: every test acts only through the pages, as a person would (clicks, drags, keys),
and checks what the pages show against the API.

One server and one browser serve the whole module (each test opens its own contexts:
``pages``, in conftest.py). Screenshots of every screen, 1280 and 360 pixels wide, go to
``shots`` (conftest.py).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.test import override_settings

from games import engine
from games.dailies import challenges
from tests.e2e.conftest import E2E_DAILY_SECRET
from tests.golden import WIN as GOLDEN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

XSS_NAME = "<img src=x onerror=alert(1)>"
WIDTHS = ((1280, 900), (360, 780))

# A classic deal built by hand so that its winning line is short and obvious: columns 5-7 hold
# K..7 of spades, hearts and diamonds; columns 1-3 hold the 6..3 that go on them over the 2
# and the Ace (face down) and a club at the bottom; column 4 and the reserve hold the rest of
# the clubs, which come together on the King of clubs in column 1.
COLUMNS_AND_RESERVE = (
    "KC AS 2S 6S 5S 4S 3S",
    "QC AH 2H 6H 5H 4H 3H",
    "JC AD 2D 6D 5D 4D 3D",
    "4C 5C 6C TC 9C 8C 7C",
    "KS QS JS TS 9S 8S 7S",
    "KH QH JH TH 9H 8H 7H",
    "KD QD JD TD 9D 8D 7D",
    "3C 2C AC",
)
WINNABLE_DEAL = [code for line in COLUMNS_AND_RESERVE for code in line.split()]


def _move(source: int, index: int, target: int) -> dict[str, Any]:
    return {"type": "move", "from": source, "index": index, "to": target}


WINNING_LINE = [
    *(_move(1, 3, 5), _move(1, 2, 5), _move(1, 1, 5)),  # spades complete on column 5
    *(_move(2, 3, 6), _move(2, 2, 6), _move(2, 1, 6)),  # hearts on column 6
    *(_move(3, 3, 7), _move(3, 2, 7), _move(3, 1, 7)),  # diamonds on column 7
    *(_move(2, 0, 1), _move(3, 0, 1), _move(4, 3, 1)),  # Q, J, then T-7 of clubs onto the K
    *(_move(4, 2, 1), _move(4, 1, 1), _move(4, 0, 1)),  # 6, 5, 4 of clubs as they turn up
    {"type": "deal"},  # 3 of clubs onto column 1, the 2 and the Ace into the empty 2 and 3
    *(_move(2, 0, 1), _move(3, 0, 1)),
]


def test_the_hand_made_deal_is_won_by_its_line() -> None:
    """The browser test below wins by clicks alone; this proves the line it clicks wins."""
    rules = engine.RULESETS["classic"]
    deal = engine.check_deal(rules, engine.parse_cards(WINNABLE_DEAL))
    state = engine.replay(rules, deal, [engine.action_from_command(c) for c in WINNING_LINE])
    assert state.status == engine.WON


# --- fixtures -----------------------------------------------------------------------------------


@dataclass
class Player:
    name: str
    password: str
    token: str

    def client(self, server: Any) -> httpx.Client:
        return httpx.Client(
            base_url=f"{server.http}/api/v1",
            headers={"Authorization": f"Token {self.token}"},
            timeout=30,
        )


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def register(server: Any, name: str) -> Player:
    password = f"pw-{name}-Cards-2026"
    response = httpx.post(
        f"{server.http}/api/v1/auth/register",
        json={"username": name, "password": password},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return Player(name, password, response.json()["token"])


def shoot(page: Any, folder: Path, name: str) -> None:
    """Screenshots of the page as it is, 1280 and 360 pixels wide (then back to 1280)."""
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(250)
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS[0][0], "height": WIDTHS[0][1]})


def click_card(page: Any, column: int, index: int) -> None:
    # A card under others shows only its top strip: click there, as a person would.
    page.locator(f'.tableau [data-key="c{column}:{index}"]').click(position={"x": 10, "y": 6})


def click_column(page: Any, column: int) -> None:
    page.locator(f'.tableau .col[data-col="{column}"]').click(position={"x": 10, "y": 6})


def drag(page: Any, column: int, index: int, target: int) -> None:
    """Drag a card (and the cards above it) onto a column with the mouse."""
    from playwright.sync_api import expect

    # Each step waits for the page to have handled the last one: on a loaded machine the
    # pointer may otherwise outrun the board (a card that is still moving, a drop before
    # the drag began).
    source = page.locator(f'.tableau [data-key="c{column}:{index}"]')
    source.hover(position={"x": 10, "y": 6})  # waits until the card is still and enabled
    card = source.bounding_box()
    page.mouse.down()
    page.mouse.move(card["x"] + 30, card["y"] + 30, steps=3)
    expect(page.locator(".drag-ghost")).to_have_count(1)
    column_el = page.locator(f'.tableau .col[data-col="{target}"]')
    goal = column_el.bounding_box()
    page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + 20, steps=5)
    expect(column_el).to_have_class(re.compile(r"\bover\b"))
    page.mouse.up()


def play_by_clicks(page: Any, action: dict[str, Any]) -> None:
    if action["type"] == "deal":
        page.click("#deal")
    else:
        click_card(page, action["from"], action["index"])
        click_column(page, action["to"])


def board_of(page: Any) -> list[list[str]]:
    """What the page shows of the tableau: each column's cards by accessible name."""
    return page.eval_on_selector_all(
        ".tableau .col",
        "cols => cols.map(c => [...c.querySelectorAll('.card')]"
        ".map(e => e.getAttribute('aria-label')))",
    )


def new_game(player: Player, server: Any, **body: Any) -> dict[str, Any]:
    with player.client(server) as api:
        response = api.post("/games", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


# --- the tests ---------------------------------------------------------------------------------


def test_sign_up_sign_in_then_win_a_game_by_clicks_and_drags(pages, server, shots) -> None:
    from playwright.sync_api import expect

    page = pages(path="/")
    expect(page.locator("#signin-link")).to_be_visible()
    shoot(page, shots, "lobby-signed-out")
    page.click("#signin-link")
    page.click("#tab-signup")
    page.fill("#username", "winner")
    page.fill("#password", "pw-winner-Cards-2026")
    shoot(page, shots, "signin")
    page.click("#auth-submit")
    expect(page.locator("#signout")).to_be_visible()
    expect(page.locator(".nav")).to_contain_text("winner")
    # The token is kept in storage, never in a page's address.
    token = page.evaluate("localStorage.getItem('scorpion.token')")
    assert token and token not in page.url
    page.click("#signout")
    expect(page.locator("#signin-link")).to_be_visible()
    assert page.evaluate("localStorage.getItem('scorpion.token')") is None
    # Signing out revoked the key on the server: a copy of it opens nothing.
    copied = httpx.get(
        f"{server.http}/api/v1/auth/me", headers={"Authorization": f"Token {token}"}, timeout=30
    )
    assert copied.status_code == 401
    page.click("#signin-link")
    page.fill("#username", "winner")
    page.fill("#password", "pw-winner-Cards-2026")
    page.click("#auth-submit")
    expect(page.locator("#signout")).to_be_visible()
    winner = Player("winner", "", page.evaluate("localStorage.getItem('scorpion.token')"))
    new_game(winner, server, rules="wasp", seed=11, public=False)  # one for "My games"
    page.reload()
    expect(page.locator("#my-games .game-row")).to_have_count(1)
    shoot(page, shots, "lobby-signed-in")

    game = new_game(winner, server, rules="classic", deal=WINNABLE_DEAL)
    # Every move by hand: once the deal has shown the last cards, auto-finish would play the
    # last two itself, and its moves and the test's clicks would race.
    with winner.client(server) as api:
        manual = {"card_size": "large", "theme": "light", "sound": True, "animations": True}
        assert api.put("/auth/preferences", json={**manual, "auto_finish": False}).is_success
    page.goto(f"{server.http}/games/{game['id']}")
    expect(page.locator('[data-key="c1:6"]')).to_have_attribute("aria-label", "Three of spades")
    assert page.locator(".tableau .card.down").first.get_attribute("aria-label") == (
        "face-down card"
    )
    shoot(page, shots, "play")
    for played, action in enumerate(WINNING_LINE, start=1):
        if played in (4, 13):  # these two by drag and drop; the rest by clicks
            drag(page, action["from"], action["index"], action["to"])
        else:
            play_by_clicks(page, action)
        expect(page.locator("#stat-moves")).to_have_text(str(played))
        if played == 3:
            expect(page.locator("#stat-sequences")).to_have_text("1/4")  # spades removed
            assert page.locator('.tableau [aria-label="King of spades"]').count() == 0
    won = page.locator("dialog.won")
    expect(won).to_be_visible()
    expect(won.locator("h2")).to_have_text("You won!")
    shoot(page, shots, "won")
    with winner.client(server) as api:
        final = api.get(f"/games/{game['id']}").json()
    assert (final["status"], final["moves"], final["removed"]) == ("won", 18, list("SHDC"))

    # The won screen opens the replay: a scrubber over every version.
    won.get_by_role("button", name="Watch the replay").click()
    expect(page.locator("#position")).to_have_text("19 / 19")
    page.click("#replay-first")
    expect(page.locator("#position")).to_have_text("1 / 19")
    # A replay is only watched: its cards are pictures, never buttons. (The board draws
    # version 1 once its state is fetched, after the position reads "1 / 19".)
    expect(page.locator('.tableau [data-key="c1:6"]')).to_have_attribute("role", "img")
    expect(page.locator(".tableau button.card")).to_have_count(0)
    expect(page.locator(".tableau .col").nth(0).locator(".card").nth(0)).to_have_attribute(
        "aria-label", "King of clubs"
    )  # a finished game shows every card, the once-hidden ones too
    page.click("#replay-forward")
    expect(page.locator("#position")).to_have_text("2 / 19")
    expect(page.locator(".tableau .col").nth(4).locator(".card.last")).to_have_count(4)
    page.click("#replay-last")
    expect(page.locator("#position")).to_have_text("19 / 19")
    page.click("#replay-back")
    expect(page.locator("#position")).to_have_text("18 / 19")
    page.click("#replay-play")
    expect(page.locator("#position")).to_have_text("19 / 19", timeout=5000)
    shoot(page, shots, "replay")
    # The replay offers the game in the notation, as a file.
    with page.expect_download() as saved:
        page.click("#replay-download")
    assert saved.value.suggested_filename == f"{game['id']}.scorpion"
    text = Path(saved.value.path()).read_text()
    assert text.startswith('[Scorpion "1"]') and f'[Game "{game["id"]}"]' in text
    assert "=won" in text


def test_a_private_games_feed_opens_with_a_ticket_never_with_the_key(pages, server) -> None:
    player = register(server, "tina")
    game = new_game(player, server, rules="classic", seed=3, public=False)
    page = pages(player, path="/")
    urls: list[str] = []
    page.on("websocket", lambda socket: urls.append(socket.url))

    owner = page.evaluate(
        """async (id) => {
          const { GameFeed } = await import("/static/web/js/live.js");
          const api = await import("/static/web/js/api.js");
          return await new Promise((resolve) => {
            const feed = new GameFeed(id, {
              ticket: api.wsTicket,
              onGame: (game) => { feed.close(); resolve(game.owner); },
              onFatal: (code) => resolve(code),
            });
          });
        }""",
        game["id"],
    )

    assert owner == "tina"
    assert urls and all("ticket=" in url and player.token not in url for url in urls)


def test_a_spectator_sees_every_move_and_resumes_after_a_network_cut(pages, server, shots) -> None:
    from playwright.sync_api import expect

    player = register(server, "ada")
    game = new_game(player, server, rules="classic", deal=WINNABLE_DEAL, public=True)
    own = pages(player, path=f"/games/{game['id']}")
    watcher = pages(path=f"/games/{game['id']}")
    expect(watcher.locator("#connection")).to_have_text("Live")
    expect(watcher.locator("#watchers")).to_have_text("1 watching")
    expect(watcher.locator("#deal")).to_have_count(0)  # spectators get no commands

    for played, action in enumerate(WINNING_LINE[:5], start=1):
        play_by_clicks(own, action)
        expect(own.locator("#stat-moves")).to_have_text(str(played))
        started = time.monotonic()
        expect(watcher.locator("#stat-moves")).to_have_text(str(played), timeout=1000)
        assert time.monotonic() - started < 1.0
    expect(watcher.locator(".tableau .card.last")).to_have_count(1)  # 2 of hearts, just moved
    shoot(watcher, shots, "watch")

    watcher.context.set_offline(True)
    expect(watcher.locator("#connection")).to_have_text("Offline")
    for played, action in enumerate(WINNING_LINE[5:10], start=6):
        play_by_clicks(own, action)
        expect(own.locator("#stat-moves")).to_have_text(str(played))
    expect(watcher.locator("#stat-moves")).to_have_text("5")
    watcher.context.set_offline(False)
    expect(watcher.locator("#stat-moves")).to_have_text("10", timeout=10_000)
    expect(watcher.locator("#connection")).to_have_text("Live")
    assert board_of(watcher) == board_of(own)
    assert watcher.inner_text("#stat-score") == own.inner_text("#stat-score")
    seqs = watcher.eval_on_selector_all("#move-list li", "items => items.map(i => i.dataset.seq)")
    assert seqs == [str(seq) for seq in range(1, 12)]  # created, then each move exactly once


def test_two_players_race_while_a_third_page_watches_the_standings(pages, server, shots) -> None:
    from playwright.sync_api import expect

    from games.models import DailyChallenge

    today = dt.datetime.now(dt.UTC).date()
    # Today's deal: one with a known line (instead of the secret seed's).
    DailyChallenge.objects.create(
        date=today, rules="classic", seed=GOLDEN["seed"], created_at=dt.datetime.now(dt.UTC)
    )
    alice, bob = register(server, "alice"), register(server, "bob")
    watcher = pages(path="/daily")
    expect(watcher.locator("#standings")).to_contain_text("Nobody has joined yet")
    # h:mm:ss, or m:ss in the day's last hour (the test may run then).
    assert re.fullmatch(r"(\d{1,2}:\d\d|\d{1,2}):\d\d", watcher.inner_text("#race-countdown"))
    racers = {}
    for player in (alice, bob):
        racers[player.name] = page = pages(player, path="/daily")
        page.click("#join-race")
        expect(page.locator(".tableau .col")).to_have_count(7)
        expect(watcher.locator(f'#standings tr[data-player="{player.name}"]')).to_be_visible()

    def moves_shown(name: str) -> Any:
        return watcher.locator(f'#standings tr[data-player="{name}"] td[data-col="moves"]')

    for played, action in enumerate(GOLDEN["actions"][:3], start=1):
        play_by_clicks(racers["alice"], action)
        expect(moves_shown("alice")).to_have_text(str(played))
    play_by_clicks(racers["bob"], GOLDEN["actions"][0])
    expect(moves_shown("bob")).to_have_text("1")
    ranked = watcher.eval_on_selector_all(
        "#standings tbody tr", "rows => rows.map(r => r.dataset.player)"
    )
    assert ranked == ["alice", "bob"]  # more revealed cards: alice ahead
    shoot(racers["alice"], shots, "daily-race")
    shoot(watcher, shots, "daily-standings")


def test_a_lost_answer_is_retried_with_its_key_and_a_conflict_reloads(pages, server) -> None:
    from playwright.sync_api import expect

    player = register(server, "flaky")
    game = new_game(player, server, rules="classic", deal=WINNABLE_DEAL)
    page = pages(player, path=f"/games/{game['id']}")
    expect(page.locator(".tableau .col")).to_have_count(7)
    keys: list[str | None] = []

    def lose_the_first_answer(route: Any) -> None:
        keys.append(route.request.headers.get("idempotency-key"))
        if len(keys) == 1:
            route.fetch()  # the server plays it…
            route.abort("connectionreset")  # …but its answer never arrives
        else:
            route.continue_()

    page.route("**/api/v1/games/*/commands", lose_the_first_answer)
    play_by_clicks(page, WINNING_LINE[0])
    expect(page.locator("#stat-moves")).to_have_text("1")
    page.unroute("**/api/v1/games/*/commands")
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0]  # the retry reused its key
    with player.client(server) as api:
        events = api.get(f"/games/{game['id']}/events").json()["results"]
        assert [e["type"] for e in events] == ["created", "moved"]  # played once
        # The game moves on elsewhere (another tab, another device)…
        moved = api.post(f"/games/{game['id']}/commands", json=WINNING_LINE[1])
        assert moved.status_code == 201, moved.text
    # …so this page, which still shows the 2 of spades on column 1, sends the same move at
    # a stale version: 409, and the board is read again.
    play_by_clicks(page, WINNING_LINE[1])
    expect(page.locator(".toast").last).to_contain_text("changed elsewhere")
    expect(page.locator("#stat-moves")).to_have_text("2")
    expect(page.locator('[data-key="c1:1"]')).to_have_attribute("aria-label", "Ace of spades")


def test_switching_the_language_changes_a_refused_moves_message(pages, server, shots) -> None:
    from playwright.sync_api import expect

    player = register(server, "lingua")
    game = new_game(player, server, rules="classic", deal=WINNABLE_DEAL)
    refused = _move(1, 3, 6)  # the 6 of spades onto the 7 of hearts: right rank, wrong suit
    with player.client(server) as api:
        expected = {
            lang: api.post(
                f"/games/{game['id']}/commands", json=refused, headers={"Accept-Language": lang}
            ).json()
            for lang in ("en", "it")
        }
    assert expected["en"]["code"] == expected["it"]["code"] == "not_same_suit"
    assert expected["en"]["detail"] != expected["it"]["detail"]

    page = pages(player, path=f"/games/{game['id']}")
    play_by_clicks(page, refused)
    expect(page.locator(".toast-error").last).to_have_text(expected["en"]["detail"])
    page.click("#settings-button")  # the language is a setting
    page.select_option("#lang", "it")
    page.locator("dialog.settings").get_by_role("button", name="Chiudi").click()
    expect(page.locator("#deal")).to_contain_text("Distribuisci")
    expect(page.locator('[data-key="c1:3"]')).to_have_attribute("aria-label", "Sei di picche")
    play_by_clicks(page, refused)
    expect(page.locator(".toast-error").last).to_have_text(expected["it"]["detail"])
    assert page.evaluate("document.documentElement.lang") == "it"
    shoot(page, shots, "refused-move-it")
    with player.client(server) as api:
        assert api.get(f"/games/{game['id']}").json()["version"] == 1  # nothing was played


def test_keyboard_only_start_move_undo_and_deal(pages, server, shots) -> None:
    from playwright.sync_api import expect

    player = register(server, "keys")
    page = pages(player, path="/")
    expect(page.locator("#start-game")).to_be_visible()

    def tab_to(selector: str, limit: int = 60) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement.matches({json.dumps(selector)})"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to(".advanced summary")
    page.keyboard.press("Enter")
    tab_to("#seed")
    page.keyboard.type(str(GOLDEN["seed"]))  # the golden game: its first move is known
    tab_to("#start-game")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]+$"))
    expect(page.locator(".tableau .col")).to_have_count(7)
    first = GOLDEN["actions"][0]  # column 1's top card onto column 4
    tab_to(".tableau button.card")
    page.keyboard.press(str(first["from"]))  # to column 1's top card
    focused = page.locator(":focus")
    expect(focused).to_have_attribute("data-key", f"c{first['from']}:{first['index']}")
    shoot(page, shots, "keyboard-focus")
    page.keyboard.press("Enter")  # pick it up
    expect(focused).to_have_attribute("aria-pressed", "true")
    expect(page.locator(f'.tableau .col[data-col="{first["to"]}"]')).to_have_class(
        re.compile(r"\btarget\b")
    )
    page.keyboard.press(str(first["to"]))  # drop it on column 4
    expect(page.locator("#stat-moves")).to_have_text("1")
    expect(page.locator(f'[data-key="c{first["from"]}:{first["index"]}"]')).to_have_count(0)
    page.keyboard.press("u")
    expect(page.locator("#stat-moves")).to_have_text("1")  # undo does not lower it
    expect(page.locator(f'[data-key="c{first["from"]}:{first["index"]}"]')).to_have_count(1)
    page.keyboard.press("d")
    expect(page.locator("#stat-moves")).to_have_text("2")
    expect(page.locator(".reserve .card.empty")).to_have_count(1)
    expect(page.locator("#deal")).to_be_disabled()
    page.keyboard.press("h")
    expect(page.locator(".toast").last).to_contain_text("Hint")
    page.keyboard.press("?")
    expect(page.locator("dialog")).to_be_visible()
    shoot(page, shots, "help")
    page.keyboard.press("Escape")
    expect(page.locator("dialog")).to_have_count(0)
    page.keyboard.press("x")
    expect(page.locator("dialog")).to_contain_text("Resign this game?")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # the focus starts on "Resign": the one before is "Cancel"
    expect(page.locator("dialog")).to_have_count(0)
    page.keyboard.press("x")
    page.keyboard.press("Enter")
    expect(page.locator("dialog.lost h2")).to_have_text("Game over")
    shoot(page, shots, "resigned")
    with player.client(server) as api:
        games = api.get("/games", params={"owner": "keys"}).json()["results"]
    assert [(g["status"], g["moves"], g["undos"]) for g in games] == [("resigned", 2, 1)]


def test_a_username_with_markup_is_shown_as_text_everywhere(
    pages, server, shots, django_user_model
) -> None:
    from playwright.sync_api import expect

    # The API refuses such a name at registration; an account made elsewhere (the admin,
    # createsuperuser) may still carry one, and every page must show it as text.
    django_user_model.objects.create_user(XSS_NAME, password="pw-Markup-Cards-2026")
    token = httpx.post(
        f"{server.http}/api/v1/auth/token",
        json={"username": XSS_NAME, "password": "pw-Markup-Cards-2026"},
        timeout=30,
    ).json()["token"]
    marked = Player(XSS_NAME, "pw-Markup-Cards-2026", token)
    game = new_game(marked, server, rules="classic", seed=7)
    with override_settings(DAILY_SECRET=E2E_DAILY_SECRET):  # as the server's job would
        challenges.prepare(challenges.today())
    with marked.client(server) as api:
        assert api.post("/challenges/today/join").status_code == 201

    page = pages(path="/")
    expect(page.locator("#live-games .owner")).to_have_text(XSS_NAME)
    shoot(page, shots, "lobby-live-games")
    page.locator("#live-games a").click()
    expect(page.locator(".game-head .owner")).to_have_text(XSS_NAME)
    shoot(page, shots, "watch-markup-name")
    page.locator(".game-head .owner").click()
    expect(page.locator("#player-name")).to_have_text(XSS_NAME)
    expect(page.locator("#played")).to_have_text("2")
    shoot(page, shots, "profile")
    page.click(".nav-link >> text=Daily")
    expect(page.locator("#standings .player")).to_have_text(XSS_NAME)
    page.goto(f"{server.http}/signin?mode=signup")
    page.fill("#username", XSS_NAME)
    page.fill("#password", "pw-Markup-Cards-2026")
    page.click("#auth-submit")
    expect(page.locator("#auth-error")).not_to_be_empty()
    assert page.locator("img").count() == 0  # no markup was ever parsed from a name
    assert game["owner"] == XSS_NAME


def test_after_the_day_the_standings_open_each_players_replay(pages, server, shots) -> None:
    from playwright.sync_api import expect

    from games import clock
    from games.models import DailyChallenge
    from games.writes import services

    yesterday = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)
    DailyChallenge.objects.create(
        date=yesterday, rules="classic", seed=GOLDEN["seed"], created_at=dt.datetime.now(dt.UTC)
    )
    racer = register(server, "yesterday")
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="yesterday")
    # Race yesterday's challenge as if it were still yesterday (in this process only).
    with clock.frozen(dt.datetime.combine(yesterday, dt.time(12), tzinfo=dt.UTC)):
        joined, _ = services.challenge_join(date=yesterday, player=user)
        for command in GOLDEN["actions"][:4]:
            services.game_command(game_id=joined.game_id, actor=user, command=command)

    page = pages(racer, path=f"/daily/{yesterday}")
    expect(page.locator(".daily-head .badge-closed")).to_be_visible()
    expect(page.locator("#standings tbody tr")).to_have_count(1)
    shoot(page, shots, "daily-closed")
    page.locator('#standings button[data-player="yesterday"]').click()
    expect(page).to_have_url(f"{server.http}/games/{joined.game_id}")
    expect(page.locator("#position")).to_have_text("5 / 5")
