"""What an operator sees of a real daphne process: ``/metrics``,
its access control, request ids and JSON logs."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect as ws_connect

from games import engine
from games.engine import solver
from games.writes import accounts, services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server(live_server_factory):
    # As ``manage.py serve`` runs it under LOG_FORMAT=json: without daphne's plain-text
    # access log (the scorpion.request log line replaces it).
    return live_server_factory(daphne_args=("-v", "0"), LOG_FORMAT="json", LOG_LEVEL="INFO")


def samples(server: Any, **headers: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = httpx.get(f"{server.http}/metrics", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_commands_events_sockets_and_the_cache(server, django_user_model) -> None:
    user = django_user_model.objects.create_user("alice", password="pw-alice-123")
    token = accounts.key_issue(user=user)
    game = services.game_create(owner=user, rules="classic", seed=41)
    rules = engine.RULESETS["classic"]
    line = engine.legal_line(rules, engine.seeded_deal(rules, 41), 5)
    before = samples(server)
    auth = {"Authorization": f"Token {token}"}
    commands = f"{server.http}/api/v1/games/{game.game_id}/commands"

    with ws_connect(f"{server.ws}/ws/games/{game.game_id}/") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        during = samples(server)
        for action in line:
            command = engine.action_to_command(action)
            assert httpx.post(commands, json=command, headers=auth).status_code == 201
        refused = httpx.post(commands, json={"type": "move", "from": 1, "index": 0, "to": 1},
                             headers=auth)  # fmt: skip
        assert refused.status_code in (409, 422)
        bad = httpx.post(commands, json={"type": "fly"}, headers=auth)
        assert bad.status_code == 400
        for _ in line:
            assert json.loads(ws.recv(timeout=10))["type"] == "event"
    after = samples(server)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert value(during, "scorpion_websockets_open", kind="game") == 1
    assert grew("scorpion_ws_frames_sent_total", kind="game") >= 6  # snapshot and 5 events
    assert grew("scorpion_commands_total", type="move", code="ok") >= 1
    assert sum(
        grew("scorpion_commands_total", type=kind, code="ok") for kind in ("move", "deal")
    ) == len(line)
    assert grew("scorpion_commands_total", type="move", code=refused.json()["code"]) == 1
    assert grew("scorpion_commands_total", type="unparsed", code="invalid") == 1
    assert grew("scorpion_events_appended_total", type="moved") >= 1
    for phase in ("total", "engine", "projection", "append"):
        assert grew("scorpion_command_seconds_count", phase=phase) >= len(line), phase
    assert value(after, "scorpion_stream_cache_size") >= 1
    assert grew("scorpion_stream_cache_lookups_total", result="hit") >= len(line) - 1
    assert grew("scorpion_http_requests_total", route="game-command", method="POST",
                status="201") == len(line)  # fmt: skip
    assert value(after, "scorpion_channel_layer_up") == 1
    # The socket closed: the gauge went down again (daphne reports the close at once).
    deadline = 50
    while value(samples(server), "scorpion_websockets_open", kind="game") and deadline:
        deadline -= 1
        httpx.get(f"{server.http}/healthz")
    assert value(samples(server), "scorpion_websockets_open", kind="game") == 0


def test_metrics_say_which_solver_core_runs(server, live_server_factory) -> None:
    """The native core wherever the extension is built, the Python one where it is not or
    where SOLVER_CORE asks for it."""
    found = samples(server)
    other = "python" if solver.CORE == "native" else "native"
    assert value(found, "scorpion_solver_core", core=solver.CORE) == 1
    assert value(found, "scorpion_solver_core", core=other) == 0
    forced = samples(live_server_factory(SOLVER_CORE="python"))
    assert value(forced, "scorpion_solver_core", core="python") == 1
    assert value(forced, "scorpion_solver_core", core="native") == 0


def test_metrics_can_be_limited_to_networks_or_a_token(live_server_factory) -> None:
    restricted = live_server_factory(METRICS_ALLOWED_NETWORKS="10.0.0.0/8", METRICS_TOKEN="s3cr3t")
    url = f"{restricted.http}/metrics"
    assert httpx.get(url).status_code == 403
    assert httpx.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert httpx.get(url, headers={"Authorization": "Bearer s3cr3t"}).status_code == 200
    off = live_server_factory(METRICS_ENABLED="0")
    assert httpx.get(f"{off.http}/metrics").status_code == 404


def test_request_ids_in_headers_error_bodies_and_json_logs(server) -> None:
    missing = f"{server.http}/api/v1/games/00000000-0000-4000-8000-000000000000"
    sent = httpx.get(missing, headers={"X-Request-ID": "trace-42.a:b_c"})
    assert sent.status_code == 404
    assert sent.headers["X-Request-ID"] == "trace-42.a:b_c"
    assert sent.json()["request_id"] == "trace-42.a:b_c"

    for insane in ("has space", "x" * 129, "semi;colon"):
        made = httpx.get(missing, headers={"X-Request-ID": insane})
        assert re.fullmatch(r"[0-9a-f]{32}", made.headers["X-Request-ID"])
        assert made.json()["request_id"] == made.headers["X-Request-ID"]
    fresh = httpx.get(f"{server.http}/api/v1/rules")
    assert re.fullmatch(r"[0-9a-f]{32}", fresh.headers["X-Request-ID"])

    entries = []
    for text in server.log_text().splitlines():
        if text.strip():
            entry = json.loads(text)  # every line is one JSON object
            assert isinstance(entry, dict) and {"time", "level", "logger", "message"} <= set(entry)
            entries.append(entry)
    mine = [entry for entry in entries if entry.get("request_id") == "trace-42.a:b_c"]
    assert any(entry["logger"] == "scorpion.request" and entry["status"] == 404 for entry in mine)
    assert any(entry["logger"] == "django.request" for entry in mine)  # "Not Found: …"


def test_with_a_shared_folder_any_process_answers_for_all(
    live_server_factory, tmp_path, django_user_model
) -> None:
    folder = tmp_path / "prometheus"
    folder.mkdir()
    a, b = (live_server_factory(PROMETHEUS_MULTIPROC_DIR=str(folder)) for _ in range(2))
    user = django_user_model.objects.create_user("carol", password="pw-carol-123")
    token = accounts.key_issue(user=user)
    game = services.game_create(owner=user, rules="classic", seed=43)
    rules = engine.RULESETS["classic"]
    (action,) = engine.legal_line(rules, engine.seeded_deal(rules, 43), 1)
    before = value(samples(b), "scorpion_http_requests_total", route="game-command",
                   method="POST", status="201")  # fmt: skip
    response = httpx.post(
        f"{a.http}/api/v1/games/{game.game_id}/commands",
        json=engine.action_to_command(action),
        headers={"Authorization": f"Token {token}"},
    )
    assert response.status_code == 201
    # The command went to A; B's /metrics counts it too.
    after = value(samples(b), "scorpion_http_requests_total", route="game-command",
                  method="POST", status="201")  # fmt: skip
    assert after - before == 1
