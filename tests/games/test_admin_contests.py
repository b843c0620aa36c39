"""The admin's races and arenas: listed with their phase, players, seeds (once finished)
and table; moderators schedule arenas and void results there; a running race's game stays
masked for staff, as an open daily's does."""

import datetime as dt
import html
import json
import re

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games import clock
from games.dailies import secrets
from games.dailies.models import Contest, ContestResult
from games.store.models import Event
from games.writes import contests

pytestmark = pytest.mark.django_db

NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


class Clock:
    def __init__(self) -> None:
        self.at = NOON

    def __call__(self) -> dt.datetime:
        return self.at


@pytest.fixture
def now():
    moving = Clock()
    with clock.frozen(moving):
        yield moving


@pytest.fixture
def mod(django_user_model):
    user = django_user_model.objects.create_user("mod", password="pw-mod-123")
    call_command("grant_moderator", "mod", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user.refresh_from_db()
    return user


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_races_and_arenas_in_the_admin(now, mod, alice, bob) -> None:
    alice_user, bob_user = alice, bob
    race = contests.race_create(
        creator=alice_user,
        rules="classic",
        deals=1,
        countdown=dt.timedelta(seconds=10),
        time_limit=dt.timedelta(minutes=10),
    )
    contests.race_join(race=race, player=mod)  # a moderator who races too
    now.at += dt.timedelta(seconds=10)
    (game,), _ = contests.race_games(race=race, player=alice_user)
    client = client_of(mod)

    listing = client.get(reverse("admin:games_contest_changelist")).content.decode()
    assert race.code in listing and "hidden until it is finished" in listing
    page = html.unescape(
        client.get(reverse("admin:games_contest_change", args=[race.id])).content.decode()
    )
    assert "running" in page and "alice" in page and "mod" in page
    seed = secrets.contest_seed(race.id, 1)
    assert str(seed) not in page
    # The racing moderator cannot learn the deal from another racer's game page.
    deal = Event.objects.get(game_id=game.game_id, seq=1).data["deal"]
    game_page = html.unescape(
        client.get(reverse("admin:games_game_change", args=[game.game_id])).content.decode()
    )
    assert '"deal": null' in game_page and str(seed) not in game_page
    assert json.dumps(deal[:3])[1:-1] not in game_page

    # Scheduling an arena.
    added = client.post(
        reverse("admin:games_contest_add"),
        {
            "title": "Friday night",
            "rules": "wasp",
            "starts_at_0": "2026-11-30",
            "starts_at_1": "13:00:00",
            "ends_at_0": "2026-11-30",
            "ends_at_1": "15:00:00",
        },
    )
    assert added.status_code == 302, re.findall(r"errorlist.{0,300}", added.content.decode())
    arena = Contest.objects.get(kind="arena")
    assert (arena.title, arena.rules, arena.creator) == ("Friday night", "wasp", mod)
    refused = client.post(
        reverse("admin:games_contest_add"),
        {
            "title": "backwards",
            "rules": "classic",
            "starts_at_0": "2026-11-30",
            "starts_at_1": "15:00:00",
            "ends_at_0": "2026-11-30",
            "ends_at_1": "13:00:00",
        },
    )
    assert refused.status_code == 200 and Contest.objects.filter(kind="arena").count() == 1

    now.at = dt.datetime(2026, 11, 30, 13, 30, tzinfo=dt.UTC)
    played, _ = contests.arena_play(arena=arena, player=bob_user)
    results = client.get(
        reverse("admin:games_contestresult_changelist") + f"?contest__id__exact={arena.id}"
    )
    assert results.status_code == 200 and "bob" in results.content.decode()
    # Voiding a result through the action's reason form leaves the arena's table.
    result = ContestResult.objects.get(game_id=played.game_id)
    confirmed = client.post(
        reverse("admin:games_contestresult_changelist"),
        {
            "action": "void_results",
            "_selected_action": [str(result.pk)],
            "reason": "shared the deal",
            "apply": "1",
        },
    )
    assert confirmed.status_code in (200, 302)
    result.refresh_from_db()
    assert result.voided
    table = html.unescape(
        client.get(reverse("admin:games_contest_change", args=[arena.id])).content.decode()
    )
    assert "nobody yet" in table and "<td>bob</td>" not in table

    now.at = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)  # both over: the seeds are shown
    listing = client.get(reverse("admin:games_contest_changelist")).content.decode()
    assert str(seed) in listing
