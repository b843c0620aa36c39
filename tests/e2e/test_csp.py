"""The admin and the API's documentation send a Content-Security-Policy, and still work
under it in Chromium: any violation or script error fails the page (``pages``, conftest)."""

from __future__ import annotations

import httpx
import pytest

from games.writes import services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory()


def policy(server, path: str) -> str:
    response = httpx.get(f"{server.http}{path}", timeout=30, follow_redirects=True)
    assert response.status_code == 200
    return response.headers["Content-Security-Policy"]


def test_both_pages_send_a_policy_that_runs_only_this_origins_scripts(server) -> None:
    for path in ("/api/docs/", "/admin/login/"):
        rules = policy(server, path)
        assert "default-src 'none'" in rules and "script-src 'self';" in rules
        assert "frame-ancestors 'none'" in rules
        assert "'unsafe-inline'" not in rules and "'unsafe-eval'" not in rules


def test_the_api_docs_render_under_their_policy(pages, server) -> None:
    from playwright.sync_api import expect

    page = pages(path="/api/docs/")

    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Scorpion server API")
    expect(page.locator("#operations-accounts-account_me")).to_be_visible()
    page.locator("#operations-accounts-account_me .opblock-summary").click()
    expect(page.locator("#operations-accounts-account_me .opblock-body")).to_be_visible()


def test_the_admin_works_under_its_policy(pages, server, django_user_model) -> None:
    from playwright.sync_api import expect

    django_user_model.objects.create_superuser("root", password="pw-root-Admin-2026")
    page = pages(path="/admin/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-root-Admin-2026")
    page.click("input[type=submit]")
    expect(page.locator("#site-name")).to_be_visible()
    page.goto(f"{server.http}/admin/auth/user/")
    page.locator("#action-toggle").check()  # the changelist's own script
    expect(page.locator(".action-counter")).to_contain_text("1 of 1 selected")
    game = services.game_create(owner=django_user_model.objects.get(username="root"), seed=4)
    page.goto(f"{server.http}/admin/games/game/{game.game_id}/replay/1/")
    expect(page.locator(".board .card").first).to_be_visible()
    assert page.locator(".board").evaluate("b => getComputedStyle(b).display") == "flex"
