"""A moderator, in a real browser (Playwright driving Debian's chromium), signs in through
the admin's login form and voids a daily result on a real daphne server; the result leaves
the REST standings and the void, with the moderator and the reason, is in the game's stream.
A rated game flagged by the background job is listed with its evidence and a link to its
replay.

Skipped only where chromium is missing and the run is not CI: ``.ci/run`` sets
``SCORPION_REQUIRE_BROWSER=1``, under which a missing browser fails the test.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import httpx
import pytest
from django.core.management import call_command

from games.dailies.models import DailyChallenge
from tests.e2e.players import register
from tests.golden import WIN

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MODERATOR_PASSWORD = "pw-moderator-Fair-2026"


def ranked(client: httpx.Client, day: dt.date) -> list[str]:
    response = client.get(f"/api/v1/challenges/{day}/standings")
    assert response.status_code == 200, response.text
    return [entry["player"] for entry in response.json()["results"]]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def test_a_moderator_voids_a_daily_result_in_a_real_browser(
    server, chromium, chromium_args, django_user_model
) -> None:
    from playwright.sync_api import expect, sync_playwright

    today = dt.datetime.now(dt.UTC).date()
    # Today's deal: one with a known winning line (instead of the secret seed's).
    DailyChallenge.objects.create(
        date=today, rules="classic", seed=WIN["seed"], created_at=dt.datetime.now(dt.UTC)
    )
    alice, bob = register(server.http, "alice"), register(server.http, "bob")
    game = alice.post(f"/api/v1/challenges/{today}/join").json()["id"]
    for command in WIN["actions"]:
        assert alice.post(f"/api/v1/games/{game}/commands", json=command).status_code == 201
    assert bob.post(f"/api/v1/challenges/{today}/join").status_code == 201
    assert ranked(bob, today) == ["alice", "bob"]
    django_user_model.objects.create_user("judge", password=MODERATOR_PASSWORD)
    call_command("grant_moderator", "judge", stdout=io.StringIO())

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=chromium_args)
        try:
            page = browser.new_page()
            page.set_default_timeout(20_000)
            page.goto(f"{server.http}/admin/games/standing/")
            expect(page).to_have_url(
                f"{server.http}/admin/login/?next=/admin/games/standing/"
            )  # not signed in: sent to the login page
            page.fill("#id_username", "judge")
            page.fill("#id_password", MODERATOR_PASSWORD)
            page.click("input[type=submit]")
            expect(page).to_have_url(f"{server.http}/admin/games/standing/")

            row = page.locator("#result_list tbody tr", has_text="alice")
            expect(row).to_contain_text("won")
            row.locator("input[name=_selected_action]").check()
            page.select_option("select[name=action]", "void_results")
            page.click("button[name=index]")  # "Go": the action asks for a reason first
            expect(page.locator(".moderation-targets")).to_contain_text("alice")
            page.fill("#id_reason", "solver output pasted move by move")
            page.click("input[name=apply]")

            expect(page.locator(".messagelist")).to_contain_text("Voided alice")
            voided_flag = page.locator("#result_list tbody tr", has_text="alice").locator(
                "td.field-voided img"
            )
            expect(voided_flag).to_have_attribute("alt", "True")
        finally:
            browser.close()

    assert ranked(bob, today) == ["bob"]
    events: list[dict[str, Any]] = alice.get(
        f"/api/v1/games/{game}/events", params={"after": len(WIN["actions"]) + 1}
    ).json()["results"]
    assert [(e["type"], e["by"], e["data"]) for e in events] == [
        ("result_voided", "judge", {"reason": "solver output pasted move by move"})
    ]


def test_a_flagged_rated_game_is_listed_with_its_evidence_and_its_replay(
    server, chromium, chromium_args, django_user_model, settings, tmp_path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    from games import pools
    from games.writes import services
    from games.writes.evidence import evidence_record
    from tests.games.test_evidence import certified_line, heuristic_line, play

    settings.POOL_FOLLOW_HINTS = False
    settings.POOL_SOLVER_BUDGET = 20_000
    pools.fill("classic", 2)
    cheat = django_user_model.objects.create_user("machine", password="pw-machine-Fair-2026")
    honest = django_user_model.objects.create_user("person", password="pw-person-Fair-2026")
    flagged = services.game_create(owner=cheat, rules="classic", rated=True).game_id
    play(cheat, flagged, certified_line(flagged), seconds=0.6)
    clean = services.game_create(owner=honest, rules="classic", rated=True).game_id
    play(honest, clean, heuristic_line(clean, 12), seconds=5)
    evidence_record(flagged), evidence_record(clean)  # the job's work, as a worker runs it
    django_user_model.objects.create_user("warden", password=MODERATOR_PASSWORD)
    call_command("grant_moderator", "warden", stdout=io.StringIO())

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=chromium_args)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(20_000)
            page.goto(f"{server.http}/admin/login/")
            page.fill("#id_username", "warden")
            page.fill("#id_password", MODERATOR_PASSWORD)
            page.click("input[type=submit]")
            page.goto(f"{server.http}/admin/games/gameevidence/?reason=any")
            rows = page.locator("#result_list tbody tr")
            expect(rows).to_have_count(1)  # only the flagged game
            row = rows.first
            expect(row).to_contain_text("machine")
            expect(row.locator("td.field-won img")).to_have_attribute("alt", "True")
            expect(row.locator("td.field-pace")).to_contain_text("median 0.6 s, variation 0.00")
            expect(row.locator("[data-reason=pace]")).to_contain_text("won at under 1.5 s a move")
            page.screenshot(path=str(tmp_path / "flagged-1280x800.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path=str(tmp_path / "flagged-390x844.png"), full_page=True)
            print(f"\nflagged games screenshots: {tmp_path}")
            row.locator("a.evidence-replay").click()
            expect(page).to_have_url(f"{server.http}/games/{flagged}")
            page.wait_for_selector("#scrubber")  # the game's public replay
            page.goto(f"{server.http}/admin/games/gameevidence/?reason=none")
            expect(page.locator("#result_list tbody tr")).to_have_count(1)
            expect(page.locator("#result_list tbody tr").first).to_contain_text("person")
        finally:
            browser.close()
