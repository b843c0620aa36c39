"""What every viewer sees of every kind of game, everywhere: the visibility matrix.

Viewer kinds (anonymous, another player, the owner, a moderator, a superuser) × game states
(playing, won, lost, resigned) × how the game was made (public, private, a daily challenge
still open, a daily challenge closed, a race still running, a race finished) × every place a
game is shown: its REST body, its events, its first position, its moves and hint, its
notation, its post-game analysis, the game list, the WebSocket snapshot, live frames and
resumed frames, and the admin's game page, replay and event page.

The expected outcome of each combination is written out below as a table of its own, from
docs/api.md#visibility, not derived from the code. Each observation is read from the real
response and checked position by position against the game's true state, so that any single
place that showed a hidden card (or masked one it should show) makes the table differ.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games import clock, engine
from games.dailies import contests as contests_domain
from games.dailies.models import DailyChallenge, Entrant
from games.store import notation, streams
from games.store.models import Event, Game
from games.writes import accounts, contests, moderation, services
from scorpion_server.asgi import application
from tests.golden import WIN

pytestmark = pytest.mark.django_db(transaction=True)

MODES = ("public", "private", "daily_open", "daily_closed", "race_running", "race_finished")
STATES = ("playing", "won", "lost", "resigned")
VIEWERS = ("anonymous", "player", "owner", "moderator", "superuser")
REST = ("game", "events", "states", "moves", "hint", "notation", "list", "analysis", "page")
LIVE = ("ws_snapshot", "ws_live", "ws_resume")
ADMIN = ("admin_game", "admin_replay", "admin_event")

#: A day for the daily games of each state (one game a player a day), and a noon on it.
DAYS = {state: dt.date(2026, 3, 2 + number) for number, state in enumerate(STATES)}


async def ticket(token: str) -> str:
    """A WebSocket ticket of the account ``token`` opens: a key never goes in a URL."""

    def issue() -> str:
        found = accounts.key_authenticate(key=token)
        assert found is not None
        return accounts.ws_ticket_issue(user=found[0], key_id=found[1].pk)

    return await database_sync_to_async(issue)()


def noon(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)


# --- What each combination must show (docs/api.md#visibility) ---------------------------


def expected(mode: str, state: str, viewer: str) -> str:
    """``refused:<code>``, ``masked`` or ``revealed``: what ``viewer`` may see of the game."""
    staff = viewer in ("moderator", "superuser")
    stranger = viewer in ("anonymous", "player")
    if mode == "private" and stranger:
        return "refused:private_game"
    if mode == "daily_open":
        return "refused:challenge_in_progress" if stranger else "masked"
    if mode == "daily_closed":
        return "revealed"
    if mode == "race_running":
        return "refused:contest_in_progress" if stranger else "masked"
    if mode == "race_finished":
        return "revealed"
    return "revealed" if staff or state != "playing" else "masked"


def expected_at(place: str, mode: str, state: str, viewer: str) -> str:
    """The outcome ``place`` must show, in that place's own terms."""
    outcome = expected(mode, state, viewer)
    refused = outcome.startswith("refused:")
    if place == "page":
        # The browser's page carries the game as the API answers an anonymous reader,
        # whoever opens it (the page's request carries no token), or nothing.
        anonymous = expected(mode, state, "anonymous")
        return "absent" if anonymous.startswith("refused:") else anonymous
    if place in ADMIN:
        return "login" if viewer not in ("moderator", "superuser") else outcome
    if place == "list":
        return "absent" if refused else outcome
    if place in LIVE:
        return "close 4403" if refused else outcome
    if place == "hint" and viewer == "owner" and state == "playing" and mode in RACING:
        return "refused:hint_needs_post"  # there the owner's hint counts: POST /hints
    if place in ("moves", "hint"):
        return outcome if refused else "readable"
    if place == "analysis":  # full information: a finished game whose cards may be shown
        if refused:
            return outcome
        if state == "playing":
            return "refused:game_not_finished"
        # The owner's own game, or staff's view of it: not while its contest runs.
        return "refused:analysis_not_yet" if mode in RACING else "analysed"
    if place == "notation" and outcome == "masked":
        # It names the deal: where the hidden cards are masked, it is refused.
        return {
            "daily_open": "refused:challenge_in_progress",
            "race_running": "refused:contest_in_progress",
        }.get(mode, "refused:game_not_finished")
    return outcome


#: The modes whose games race others while they are played.
RACING = ("daily_open", "race_running")


# --- The games of one mode ------------------------------------------------------------------


def first_legal_line_to_lost() -> tuple[int, list[dict[str, Any]]]:
    """A traditional seed and a line of commands that loses it (first legal action each time)."""
    rules = engine.RULESETS["traditional"]
    for seed in range(100):
        state = engine.new_game(rules, engine.seeded_deal(rules, seed))
        line = []
        while state.status == engine.PLAYING and engine.legal_actions(state) and len(line) < 500:
            action = engine.legal_actions(state)[0]
            state = engine.apply(state, action)[0]
            line.append(engine.action_to_command(action))
        if state.status == engine.LOST:
            return seed, line
    raise AssertionError("no traditional seed below 100 is lost by its first legal actions")


LOST_SEED, LOST_LINE = first_legal_line_to_lost()
#: Per state: (rules, seed, commands that reach it).
RECIPES: dict[str, tuple[str, int, list[dict[str, Any]]]] = {
    "playing": ("classic", 0, WIN["actions"][:3]),
    "won": ("classic", 0, WIN["actions"]),
    "lost": ("traditional", LOST_SEED, LOST_LINE),
    "resigned": ("classic", 1, [{"type": "resign"}]),
}


def make_game(mode: str, state: str, owner: Any) -> Game:
    """The owner's game of ``mode`` brought to ``state``."""
    rules, seed, commands = RECIPES[state]
    if mode.startswith("daily"):
        day = DAYS[state]
        DailyChallenge.objects.create(date=day, rules=rules, seed=seed, created_at=noon(day))
        with clock.frozen(noon(day)):
            written, _ = services.challenge_join(date=day, player=owner)
            for command in commands:
                services.game_command(game_id=written.game_id, actor=owner, command=command)
    elif mode.startswith("race"):
        # A race's game (of a known deal, for the recipe), with a second racer who has not
        # finished, so that the race runs until its time is up.
        start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
        end = dt.datetime(
            2027 if mode == "race_running" else 2026,
            3 if mode != "race_running" else 1,
            1,
            tzinfo=dt.UTC,
        )
        with clock.frozen(dt.datetime(2026, 2, 1, 12, tzinfo=dt.UTC)):
            race = contests.race_create(
                creator=owner,
                rules=rules,
                deals=1,
                starts_at=start,
                time_limit=end - start,
                public=True,
            )
            other = get_user_model().objects.create_user(f"racer-{state}-{mode}")
            Entrant.objects.create(contest=race, player=other, joined_at=start)
            ruleset = engine.RULESETS[rules]
            written = services._start_game(
                owner=owner,
                rules=ruleset,
                seed=seed,
                cards=engine.seeded_deal(ruleset, seed),
                public=True,
                contest=str(race.id),
                round_=1,
            )
            for command in commands:
                services.game_command(game_id=written.game_id, actor=owner, command=command)
    else:
        written = services.game_create(owner=owner, rules=rules, seed=seed, public=mode == "public")
        for command in commands:
            services.game_command(game_id=written.game_id, actor=owner, command=command)
    game = Game.objects.get(id=written.game_id)
    assert game.status == state, (mode, state, game.status)
    return game


def reading_time(mode: str, state: str) -> dt.datetime:
    """When the games of ``mode`` are read: during their day, or the day after it."""
    if mode in ("daily_open", "race_running"):
        return noon(DAYS[state])
    return noon(DAYS["resigned"] + dt.timedelta(days=1))


# --- Observing what a place shows ------------------------------------------------------------


def observed_game(body: dict[str, Any], game_id: Any) -> str:
    """``masked`` or ``revealed``, after checking that the Game ``body`` shows exactly that,
    position by position, against the true state of its version."""
    state = streams.at_version(game_id, body["version"]).state
    full = engine.player_view(state, reveal=True)
    if "reserve_cards" in body:
        assert body["columns"] == full["columns"], body
        assert body["reserve_cards"] == full["reserve_cards"], body
        assert body["seed"] == streams.load(game_id).seed, body
        return "revealed"
    assert body["seed"] is None, body
    assert body["columns"] == engine.player_view(state)["columns"], body
    return "masked"


def observed_events(events: list[dict[str, Any]]) -> str:
    created = events[0]
    assert created["type"] == "created"
    if created["data"]["deal"] is None:
        assert created["data"]["seed"] is None
        return "masked"
    return "revealed"


def observed_notation(text: str, game_id: Any) -> str:
    """``revealed``, after checking that the notation is the game's stored stream."""
    (game,) = notation.read(io.StringIO(text))
    rows = Event.objects.filter(game_id=game_id).order_by("seq")
    assert [(e.event.TYPE, e.event.to_json()) for e in game.entries] == [
        (row.type, row.data) for row in rows
    ]
    return "revealed"


def refusal(response: Any) -> str:
    return f"refused:{response.json()['code']}"


def observe_rest(client: Any, game: Game) -> Iterator[tuple[str, str]]:
    base = f"/api/v1/games/{game.id}"
    response = client.get(base)
    yield (
        "game",
        observed_game(response.json(), game.id)
        if response.status_code == 200
        else refusal(response),
    )
    response = client.get(f"{base}/events")
    ok = response.status_code == 200
    yield "events", observed_events(response.json()["results"]) if ok else refusal(response)
    response = client.get(f"{base}/states/1")
    yield (
        "states",
        observed_game(response.json(), game.id)
        if response.status_code == 200
        else refusal(response),
    )
    for place in ("moves", "hint"):
        response = client.get(f"{base}/{place}")
        yield place, "readable" if response.status_code == 200 else refusal(response)
    response = client.get(f"{base}?format=scorpion")
    yield (
        "notation",
        observed_notation(response.content.decode(), game.id)
        if response.status_code == 200
        else refusal(response),
    )
    response = client.get(f"{base}/analysis")
    analysed = response.status_code in (200, 202)  # answered, or being computed by a job
    yield "analysis", "analysed" if analysed else refusal(response)
    listed = client.get(f"/api/v1/games?owner={game.owner.username}&limit=200").json()["results"]
    entry = next((item for item in listed if item["id"] == str(game.id)), None)
    yield "list", "absent" if entry is None else observed_game(entry, game.id)
    page = client.get(f"/games/{game.id}")
    assert page.status_code == 200
    found = re.search(
        r'<script id="scorpion-answers" type="application/json">(.*?)</script>',
        page.content.decode(),
        re.S,
    )
    carried = json.loads(found.group(1)).get(f"/games/{game.id}") if found else None
    yield "page", "absent" if carried is None else observed_game(carried, game.id)


async def watch(path: str, token: str | None) -> WebsocketCommunicator:
    query = f"?ticket={await ticket(token)}" if token else ""
    joiner = "&" if "?" in path else "?"
    communicator = WebsocketCommunicator(application, path + (joiner + query[1:] if query else ""))
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def first_frame(communicator: WebsocketCommunicator) -> dict[str, Any] | int:
    """The first frame, or the close code if the feed was refused."""
    output = await communicator.receive_output(timeout=5)
    if output["type"] == "websocket.close":
        return int(output["code"])
    return dict(json.loads(output["text"]))


def observe_frame(frame: dict[str, Any] | int, game_id: Any) -> str:
    if isinstance(frame, int):
        return f"close {frame}"
    outcome = observed_game(frame["game"], game_id)
    if frame["type"] == "event":
        assert frame["event"]["seq"] == frame["game"]["version"]
        if frame["event"]["type"] == "created":
            assert observed_events([frame["event"]]) == outcome
    return outcome


Frame = dict[str, Any] | int


async def watch_live(
    game: Game, version: int, tokens: dict[str, str | None], append: Any
) -> dict[str, dict[str, list[Frame]]]:
    """Each viewer's snapshot and the live frame of one more event, then each viewer's
    resumed feed from the start: the frames as received (a close code for a refusal)."""
    path = f"/ws/games/{game.id}/"
    got: dict[str, dict[str, list[Frame]]] = {viewer: {} for viewer in tokens}
    feeds = {viewer: await watch(path, token) for viewer, token in tokens.items()}
    for viewer, feed in feeds.items():
        got[viewer]["ws_snapshot"] = [await first_frame(feed)]
    await append()
    for viewer, feed in feeds.items():
        snapshot = got[viewer]["ws_snapshot"][0]
        got[viewer]["ws_live"] = [
            snapshot if isinstance(snapshot, int) else await first_frame(feed)
        ]
        await feed.disconnect()
    for viewer, token in tokens.items():
        feed = await watch(f"{path}?after=0", token)
        frames = [await first_frame(feed)]
        if not isinstance(frames[0], int):
            frames += [await first_frame(feed) for _ in range(version + 1)]
        got[viewer]["ws_resume"] = frames
        await feed.disconnect()
    return got


def observe_live(
    game: Game, tokens: dict[str, str | None], append: Any
) -> Iterator[tuple[str, str, str]]:
    """``(viewer, place, outcome)`` of the WebSocket feeds."""
    version = Game.objects.get(id=game.id).version
    got = asyncio.run(watch_live(game, version, tokens, append))
    for viewer, places in got.items():
        for place, frames in places.items():
            outcomes = {observe_frame(frame, game.id) for frame in frames}
            assert len(outcomes) == 1, (viewer, place, outcomes)
            yield viewer, place, outcomes.pop()


def observe_admin(client: Client, game: Game) -> Iterator[tuple[str, str]]:
    page = client.get(reverse("admin:games_game_change", args=[game.id]))
    if page.status_code == 302:
        yield from ((place, "login") for place in ADMIN)
        return
    assert page.status_code == 200
    seed_field = re.search(
        r'field-seed_shown.*?<div class="readonly">(.*?)</div>', page.content.decode(), re.S
    )
    assert seed_field is not None
    shown = seed_field.group(1)
    assert shown in (str(game.seed), "hidden while the daily challenge is open"), shown
    yield "admin_game", "revealed" if shown == str(game.seed) else "masked"
    replay = client.get(reverse("admin:games_game_replay", args=[game.id, 1])).content.decode()
    face_down = re.findall(r'data-card="([^"]*)" data-face="down"', replay)
    assert face_down, "the first position has face-down cards"
    if all(face_down):
        yield "admin_replay", "revealed"
    else:
        assert not any(face_down), face_down
        yield "admin_replay", "masked"
    created = Event.objects.get(game_id=game.id, seq=1)
    text = client.get(reverse("admin:games_event_change", args=[created.pk])).content.decode()
    deal_shown = all(code in text for code in created.data["deal"][:12])
    yield "admin_event", "revealed" if deal_shown else "masked"


# --- The matrix -----------------------------------------------------------------------------


@pytest.fixture
def people(django_user_model):
    """Each viewer kind as a user (``None`` for anonymous) with an API token."""
    make = django_user_model.objects
    users = {
        "anonymous": None,
        "player": make.create_user("peter", password="pw-peter-123"),
        "owner": make.create_user("olive", password="pw-olive-123"),
        "moderator": make.create_user("mod", password="pw-mod-123"),
        "superuser": make.create_superuser("root", password="pw-root-123"),
    }
    call_command("grant_moderator", "mod", stdout=open("/dev/null", "w"))  # noqa: SIM115
    users["moderator"].refresh_from_db()
    tokens = {
        viewer: None if user is None else accounts.key_issue(user=user)
        for viewer, user in users.items()
    }
    return users, tokens


@pytest.mark.parametrize("mode", MODES)
def test_each_viewer_sees_exactly_what_visibility_allows_everywhere(mode, people, api) -> None:
    users, tokens = people
    games = {state: make_game(mode, state, users["owner"]) for state in STATES}
    observed: dict[tuple[str, str, str], str] = {}
    wanted: dict[tuple[str, str, str], str] = {}
    for state, game in games.items():
        with clock.frozen(reading_time(mode, state)):
            for viewer in VIEWERS:
                for place, outcome in observe_rest(api.as_user(tokens[viewer]), game):
                    observed[(state, viewer, place)] = outcome
                admin_client = Client()
                if users[viewer] is not None:
                    admin_client.force_login(users[viewer])
                for place, outcome in observe_admin(admin_client, game):
                    observed[(state, viewer, place)] = outcome

            async def append(game: Game = game, state: str = state) -> None:
                await asyncio.to_thread(one_more_event, game, state, users)

            for viewer, place, outcome in observe_live(game, tokens, append):
                observed[(state, viewer, place)] = outcome
        for viewer in VIEWERS:
            for place in (*REST, *LIVE, *ADMIN):
                wanted[(state, viewer, place)] = expected_at(place, mode, state, viewer)

    differences = {
        key: (observed.get(key), must) for key, must in wanted.items() if observed.get(key) != must
    }
    assert not differences, "\n".join(
        f"{mode} {state} {viewer} {place}: shows {got}, must show {must}"
        for (state, viewer, place), (got, must) in sorted(differences.items())
    )


def one_more_event(game: Game, state: str, users: dict[str, Any]) -> None:
    """Append an event while spectators watch: the owner plays on while the game is open to
    play, else a moderator voids the result."""
    if (
        state == "playing"
        and game.challenge in (None, clock.now().date())
        and (game.contest is None or contests_domain.accepts_commands(game.contest))
    ):
        moves = engine.legal_actions(streams.load(game.id).state)
        command = engine.action_to_command(moves[0])
        services.game_command(game_id=game.id, actor=users["owner"], command=command)
    else:
        moderation.result_void(game_id=game.id, moderator=users["moderator"], reason="matrix")


def test_the_hint_is_the_same_for_every_viewer_who_may_read_the_game(people, api) -> None:
    """A hint is computed from the player's view: staff, who may see hidden cards, get the
    same hint as the owner and strangers."""
    users, tokens = people
    game = make_game("public", "playing", users["owner"])
    hints = {
        viewer: api.as_user(tokens[viewer]).get(f"/api/v1/games/{game.id}/hint").json()
        for viewer in VIEWERS
    }
    assert len({json.dumps(hint, sort_keys=True) for hint in hints.values()}) == 1, hints
