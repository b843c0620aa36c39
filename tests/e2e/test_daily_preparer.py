"""The server prepares the coming daily challenge by itself: a daphne process, started with
its background preparer on, makes today's and tomorrow's certified challenges in the shared
database before anyone asks, and serves today's from that row."""

from __future__ import annotations

import datetime as dt
import time

import httpx
import pytest

from games.dailies import challenges as dailies
from games.dailies.models import DailyChallenge

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_serving_process_prepares_today_and_tomorrow(live_server_factory, settings) -> None:
    server = live_server_factory(
        DAILY_PREPARE_IN_BACKGROUND="1",
        DAILY_PREPARE_AHEAD_SECONDS="86400",  # tomorrow is due at once
        DAILY_PREPARE_POLL_SECONDS="1",
    )
    try:
        today = dt.datetime.now(dt.UTC).date()
        wanted = {today, today + dt.timedelta(days=1)}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            made = set(DailyChallenge.objects.values_list("date", flat=True))
            if wanted <= made:
                break
            time.sleep(0.5)
        else:
            pytest.fail(f"only {sorted(made)} prepared:\n{server.log_text()}")
        settings.DAILY_SECRET = "e2e-daily-secret-" + "d9Wx" * 8  # the server's (conftest.py)
        for day in wanted:
            row = DailyChallenge.objects.get(date=day)
            assert row.seed == dailies.certify(day).seed and row.solution
        body = httpx.get(f"{server.http}/api/v1/challenges/today", timeout=30).json()
        assert body["date"] == today.isoformat() and body["solution"] is None
        tomorrow = (today + dt.timedelta(days=1)).isoformat()
        assert httpx.get(f"{server.http}/api/v1/challenges/{tomorrow}").status_code == 404
    finally:
        server.process.terminate()  # no preparer left to write after this test's cleanup
        server.process.wait(timeout=15)
