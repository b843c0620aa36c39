"""The moderators' admin over Django's test client: every page for staff and the login page
for everyone else, events untouchable, the board replay, moderation through reason forms,
the moderation log, and an open daily challenge's secrets kept until explicitly revealed."""

import datetime as dt
import html
import json
import re

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games import clock
from games.dailies.models import DailyChallenge, Standing
from games.store.models import Event, Game, ModerationAct, Player
from games.writes import moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}
OUR_MODELS = (
    "playeraccount",
    "game",
    "event",
    "dailychallenge",
    "standing",
    "moderationact",
    "boardentry",
)


@pytest.fixture(autouse=True)
def _noon():
    with clock.frozen(NOON):
        yield


@pytest.fixture
def root(django_user_model):
    return django_user_model.objects.create_superuser("root", password="pw-root-123")


@pytest.fixture
def mod(django_user_model):
    user = django_user_model.objects.create_user("mod", password="pw-mod-123")
    call_command("grant_moderator", "mod", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user.refresh_from_db()
    return user


def client_of(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def world(alice, bob, mod, sample_deal):
    """A played game, a voided one, a won daily (flagged fast), a ban on the record."""
    game = services.game_create(owner=alice, deal=sample_deal)
    services.game_command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    daily, _ = services.challenge_join(date=DAY, player=bob)
    for command in WIN["actions"]:
        services.game_command(game_id=daily.game_id, actor=bob, command=command)
    other = services.game_create(owner=bob, seed=5)
    moderation.result_void(game_id=other.game_id, moderator=mod, reason="tested the void")
    moderation.player_ban(player=alice, moderator=mod, reason="spam in names")
    return {"game": game.game_id, "daily": daily.game_id, "voided": other.game_id}


def admin_pages(world) -> list[str]:
    """Changelists and a change page of every registered model, the replay, and filters."""
    pages = ["/admin/"]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        first = model_admin.get_queryset(_request()).first()
        if first is not None:
            pages.append(
                reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[first.pk])
            )
    game, daily = world["game"], world["daily"]
    pages += [
        reverse("admin:games_game_change", args=[daily]),
        reverse("admin:games_game_replay", args=[game, 1]),
        reverse("admin:games_game_replay", args=[daily, 10]),
        "/admin/games/game/?rules=classic&status__exact=won&suspicious=fast",
        "/admin/games/game/?owner_banned=yes&voided__exact=1",
        f"/admin/games/game/?q={game}",
        "/admin/games/game/?q=ali&challenge__isnull=True",
        f"/admin/games/event/?q={game}&type=moved",
        "/admin/games/standing/?suspicious=any&player_banned=no",
        "/admin/games/playeraccount/?banned=yes&q=ali",
        "/admin/games/moderationact/?act__exact=void&q=void",
        "/admin/games/boardentry/?kind=week&player_banned=no&q=bob",
        "/admin/games/boardentry/?kind=month&scope=daily",
        # The links of a player's and a challenge's pages.
        f"/admin/games/game/?owner__id__exact={Game.objects.get(id=game).owner_id}",
        f"/admin/games/standing/?player__id__exact={Standing.objects.get().player_id}",
        "/admin/games/standing/?challenge__date__exact=2026-11-30",
        reverse("admin:games_playeraccount_ban", args=[Standing.objects.get().player_id]),
        reverse("admin:games_game_void", args=[game]),
    ]
    return pages


def _request():
    from django.test import RequestFactory

    return RequestFactory().get("/admin/")


def test_every_page_loads_for_staff_and_sends_everyone_else_to_login(
    world, root, mod, alice
) -> None:
    pages = admin_pages(world)
    assert len(pages) > 20
    for page in pages:
        assert client_of(root).get(page).status_code == 200, page
        if "/games/" in page or page == "/admin/":  # every moderation page
            assert client_of(mod).get(page).status_code == 200, page
        for outsider in (None, alice):
            response = client_of(outsider).get(page)
            assert response.status_code == 302, page
            assert response["Location"].startswith("/admin/login/?next="), page


def test_a_staff_member_without_the_moderators_rights_sees_no_model(
    world, django_user_model
) -> None:
    clerk = client_of(django_user_model.objects.create_user("clerk", password="x", is_staff=True))
    assert clerk.get("/admin/").status_code == 200
    for model in OUR_MODELS:
        assert clerk.get(f"/admin/games/{model}/").status_code == 403


def test_events_cannot_be_added_changed_or_deleted_even_by_a_superuser(world, root) -> None:
    client = client_of(root)
    event = Event.objects.get(game_id=world["game"], seq=2)
    before = list(Event.objects.order_by("position").values())
    change = reverse("admin:games_event_change", args=[event.pk])
    view = client.get(change)
    assert view.status_code == 200
    assert b'name="_save"' not in view.content and b"deletelink" not in view.content
    assert client.get(reverse("admin:games_event_add")).status_code == 403
    assert client.post(reverse("admin:games_event_add"), {"type": "moved"}).status_code == 403
    assert client.post(change, {"type": "resigned", "seq": 2, "data": "{}"}).status_code == 403
    delete = reverse("admin:games_event_delete", args=[event.pk])
    assert client.get(delete).status_code == 403
    assert client.post(delete, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:games_event_changelist")
    assert b"delete_selected" not in client.get(changelist).content
    client.post(
        changelist, {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"}
    )
    assert list(Event.objects.order_by("position").values()) == before
    for model in ("game", "standing", "dailychallenge", "moderationact", "playeraccount"):
        assert client.get(f"/admin/games/{model}/add/").status_code == 403, model


def card(column: int, index: int, code: str, face: str) -> str:
    return f'data-column="{column}" data-index="{index}" data-card="{code}" data-face="{face}"'


def test_the_replay_shows_every_card_at_a_version_and_steps_both_ways(world, mod) -> None:
    client = client_of(mod)
    game = world["game"]
    first = client.get(reverse("admin:games_game_replay", args=[game, 1])).content.decode()
    assert card(1, 0, "2S", "down") in first and card(1, 2, "5S", "down") in first
    assert card(1, 3, "3D", "up") in first and card(2, 5, "4H", "up") in first
    assert card(7, 6, "5H", "up") in first and 'data-index="7"' not in first
    assert re.findall(r'data-reserve="\d" data-card="(\w\w)"', first) == ["6C", "TC", "KC"]
    assert "version 1 of 2" in first and 'class="previous"' not in first
    assert f'href="{reverse("admin:games_game_replay", args=[game, 2])}" class="next"' in first

    second = client.get(reverse("admin:games_game_replay", args=[game, 2])).content.decode()
    assert card(7, 7, "4H", "up") in second and card(7, 8, "7S", "up") in second
    assert card(2, 4, "3C", "up") in second and card(2, 5, "4H", "up") not in second
    assert card(2, 0, "8S", "down") in second
    assert f'href="{reverse("admin:games_game_replay", args=[game, 1])}" class="previous"' in second
    assert 'class="next"' not in second
    assert "moved" in second and '"points": 5' in html.unescape(second)

    for version in (0, 3):
        assert client.get(f"/admin/games/game/{game}/replay/{version}/").status_code == 404


def test_the_game_page_lists_its_event_log_with_moderators_and_reasons(world, mod) -> None:
    page = client_of(mod).get(reverse("admin:games_game_change", args=[world["voided"]]))
    text = page.content.decode()
    assert "Event log" in text and "result_voided" in text
    row = re.search(r'<tr class="event-result_voided">(.*?)</tr>', text, re.S)
    assert row is not None
    assert "tested the void" in row.group(1) and "<td>mod</td>" in row.group(1)
    assert "Restore result" in text  # it is voided: the button offered is the restore


def test_moderators_ban_and_unban_through_a_reason_form(world, mod, bob) -> None:
    client = client_of(mod)
    changelist = reverse("admin:games_playeraccount_changelist")
    asked = client.post(changelist, {"action": "ban_players", "_selected_action": [bob.pk]})
    assert asked.status_code == 200 and b'name="reason"' in asked.content
    assert b"bob" in asked.content
    empty = client.post(
        changelist,
        {"action": "ban_players", "_selected_action": [bob.pk], "apply": "Ban", "reason": " "},
    )
    assert empty.status_code == 200 and not Player.objects.filter(user=bob, banned=True).exists()
    done = client.post(
        changelist,
        {"action": "ban_players", "_selected_action": [bob.pk], "apply": "Ban", "reason": "bot"},
        follow=True,
    )
    assert b"Banned bob." in done.content
    assert Player.objects.get(user=bob).banned

    unban = reverse("admin:games_playeraccount_unban", args=[bob.pk])
    assert b'name="reason"' in client.get(unban).content
    back = client.post(unban, {"apply": "Unban", "reason": "appeal"}, follow=True)
    assert b"Lifted the ban of bob." in back.content
    assert not Player.objects.get(user=bob).banned
    again = client.post(unban, {"apply": "Unban", "reason": "twice"}, follow=True)
    assert b"is not banned" in again.content
    bans = ModerationAct.objects.filter(player=bob, act__in=["ban", "unban"])
    log = list(bans.values_list("act", "reason", "moderator"))
    assert log == [("unban", "appeal", mod.pk), ("ban", "bot", mod.pk)]


def test_moderators_void_and_restore_results_through_a_reason_form(world, mod) -> None:
    client = client_of(mod)
    daily = world["daily"]
    void = reverse("admin:games_game_void", args=[daily])
    assert b'name="reason"' in client.get(void).content
    done = client.post(void, {"apply": "Void", "reason": "too fast"}, follow=True)
    assert b"Voided bob&#x27;s classic game" in done.content
    assert Game.objects.get(id=daily).voided and Standing.objects.get(game_id=daily).voided

    changelist = reverse("admin:games_standing_changelist")
    restored = client.post(
        changelist,
        {
            "action": "restore_results",
            "_selected_action": [daily],
            "apply": "Restore",
            "reason": "ok",
        },
        follow=True,
    )
    assert b"Restored bob&#x27;s result in the daily challenge of 2026-11-30" in restored.content
    assert not Standing.objects.get(game_id=daily).voided
    types = list(Event.objects.filter(game_id=daily).order_by("-seq").values_list("type", "actor"))
    assert types[:2] == [("result_restored", mod.pk), ("result_voided", mod.pk)]


def test_without_the_moderate_permission_there_is_no_action(world, django_user_model) -> None:
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["view_game"]))
    client = client_of(viewer)
    page = client.get(reverse("admin:games_game_changelist"))
    assert page.status_code == 200 and b"void_results" not in page.content
    assert client.get(reverse("admin:games_game_void", args=[world["game"]])).status_code == 403
    assert not Game.objects.get(id=world["game"]).voided


def test_the_moderation_log_lists_every_act_with_filters_and_search(world, mod) -> None:
    client = client_of(mod)
    url = reverse("admin:games_moderationact_changelist")
    every = client.get(url).content.decode()
    assert "spam in names" in every and "tested the void" in every
    bans = client.get(url + "?act__exact=ban").content.decode()
    assert "spam in names" in bans and "tested the void" not in bans
    by_mod = client.get(url + f"?moderator__id__exact={mod.pk}").content.decode()
    assert "spam in names" in by_mod
    by_game = client.get(url + f"?q={world['voided']}").content.decode()
    assert "tested the void" in by_game and "spam in names" not in by_game
    by_words = client.get(url + "?q=spam").content.decode()
    assert "spam in names" in by_words and "tested the void" not in by_words
    by_player = client.get(url + "?q=alice").content.decode()
    assert "spam in names" in by_player


def test_suspicious_results_are_listed_with_their_reason(world, mod) -> None:
    client = client_of(mod)
    flagged = client.get("/admin/games/standing/?suspicious=fast").content.decode()
    assert "won in " in flagged and "SUSPICIOUS_WIN_SECONDS=90" in flagged
    assert "won in " not in client.get("/admin/games/standing/?suspicious=none").content.decode()
    games = client.get("/admin/games/game/?suspicious=any").content.decode()
    assert str(world["daily"])[:8] in games and str(world["game"])[:8] not in games


def test_an_open_dailys_seed_and_hidden_cards_stay_masked_until_revealed(world, mod) -> None:
    client = client_of(mod)
    joined, _ = services.challenge_join(date=DAY, player=mod)  # a moderator who races too
    deal = Event.objects.get(game_id=joined.game_id, seq=1).data["deal"]
    challenge = reverse("admin:games_dailychallenge_change", args=[DAY.isoformat()])
    page = client.get(challenge).content.decode()
    assert "hidden until the day ends" in page and "Reveal the seed" in page
    game_page = client.get(reverse("admin:games_game_change", args=[joined.game_id]))
    text = html.unescape(game_page.content.decode())
    assert '"deal": null' in text and '"seed": null' in text
    assert json.dumps(deal[:3])[1:-1] not in text
    replay = client.get(reverse("admin:games_game_replay", args=[joined.game_id, 1]))
    masked = replay.content.decode()
    assert card(1, 0, "", "down") in masked and "Masked." in masked
    assert "data-reserve" not in masked

    reveal = reverse("admin:games_game_reveal", args=[joined.game_id])
    assert client.get(reveal).status_code == 405  # a POST only
    elsewhere = client.post(reveal, {"next": "//evil.example/"})
    assert elsewhere["Location"] == reverse("admin:games_game_change", args=[joined.game_id])
    client.post(reveal, {"next": replay.wsgi_request.path})
    shown = client.get(replay.wsgi_request.path).content.decode()
    assert card(1, 0, deal[0], "down") in shown
    seed = client.post(
        reverse("admin:games_dailychallenge_reveal_seed", args=[DAY.isoformat()]), follow=True
    )
    assert f"is {WIN['seed']}. This reveal is recorded" in seed.content.decode()
    notes = set(LogEntry.objects.filter(user=mod).values_list("change_message", flat=True))
    assert notes == {
        "Revealed the hidden cards and seed while the daily challenge was open.",
        "Revealed the seed while the challenge was open.",
    }
    with clock.frozen(NOON + dt.timedelta(days=1)):  # the day is over: nothing is secret
        closed = client.get(challenge).content.decode()
        assert "hidden until the day ends" not in closed and "Reveal the seed" not in closed
        fresh = client_of(mod)  # a session that revealed nothing
        text = fresh.get(replay.wsgi_request.path).content.decode()
        assert card(1, 0, deal[0], "down") in text
