"""Hand-made inputs against a real server: each answers with a code, never a 500.

The server is started as production starts it (``manage.py serve``, so daphne runs with the
transport's limits, ``scorpion_server.transport``), and every input is sent over a real
socket: several of these bugs lived in the transport, where an in-process client cannot
see them.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import threading
import time
import uuid
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from games.writes import accounts, services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server(live_server_factory):
    return live_server_factory(serve=True)


@pytest.fixture
def alice(django_user_model) -> tuple[Any, str]:
    user = django_user_model.objects.create_user("alice", password="pw-alice-123")
    return user, accounts.key_issue(user=user)


@pytest.fixture
def game(alice) -> str:
    return str(services.game_create(owner=alice[0], seed=7).game_id)


# --- raw HTTP ---------------------------------------------------------------------------------


def http_request(
    method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> bytes:
    """An HTTP/1.1 request as bytes, with ``Content-Length`` unless a header says otherwise."""
    fields = {"Host": "127.0.0.1", "Connection": "close", **(headers or {})}
    if "Transfer-Encoding" not in fields and "Content-Length" not in fields:
        fields["Content-Length"] = str(len(body))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    return head.encode("latin-1") + b"\r\n" + body


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body of one response read from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before the headers: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def send(server, request: bytes, timeout: float = 10) -> tuple[int, dict[str, str], Any]:
    """Send raw bytes, read one response; the body parsed as JSON when it is."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(request)
        status, headers, body = read_response(sock)
    if headers.get("content-type", "").startswith("application/json"):
        return status, headers, json.loads(body)
    return status, headers, body


def post_json_text(server, path: str, text: str, token: str | None = None):
    """POST ``text`` (JSON as written, escapes untouched) as application/json."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    return send(server, http_request("POST", path, text.encode(), headers))


def assert_invalid_body(answer) -> str:
    status, headers, body = answer
    assert status == 400, body
    assert body["code"] == "invalid", body
    assert list(body["fields"]) == ["body"], body
    return str(body["fields"]["body"][0])


# --- 1. deeply nested JSON --------------------------------------------------------------------


@pytest.mark.parametrize("nesting", ["[" * 1000, "[" * 60_000, '{"a":' * 5000, "[" * 40 + "]" * 40])
def test_deeply_nested_json_is_a_400_even_anonymously(server, nesting) -> None:
    message = assert_invalid_body(post_json_text(server, "/api/v1/auth/register", nesting))
    assert "nested deeper than 32" in message


def test_deeply_nested_json_is_a_400_for_commands_and_games(server, alice, game) -> None:
    _, token = alice
    nested = '{"type": "move", "from": ' + "[" * 3000 + "]" * 3000 + "}"
    assert_invalid_body(post_json_text(server, f"/api/v1/games/{game}/commands", nested, token))
    assert_invalid_body(post_json_text(server, "/api/v1/games", "[" * 1000, token))


def test_nesting_within_the_limit_is_parsed_as_usual(server) -> None:
    within = '{"username": "x", "password": "y", "extra": ' + "[" * 30 + "]" * 30 + "}"
    status, _, body = post_json_text(server, "/api/v1/auth/register", within)
    assert status == 400 and body["code"] == "invalid"
    assert "extra" in body["fields"]  # judged as a body: an unknown field, not nesting


# --- 2. lone surrogates -----------------------------------------------------------------------


def test_lone_surrogates_are_a_400_never_a_500(server, alice, game) -> None:
    _, token = alice
    commands = f"/api/v1/games/{game}/commands"
    for path, text, who in [
        (commands, '{"type": "undo", "\\ud800": 1}', token),
        (commands, '{"type": "move\\ud800"}', token),
        (commands, '{"type": "move", "from": 1, "to": "\\udfff"}', token),
        ("/api/v1/games", '{"rules": "\\ud800"}', token),
        ("/api/v1/auth/register", '{"username": "x", "password": "y", "\\ud800": 1}', None),
        ("/api/v1/auth/register", '{"username": "bad\\udc00name", "password": "y-12345678"}', None),
        ("/api/v1/auth/token", '{"username": "\\ud800", "password": "y"}', None),
    ]:
        message = assert_invalid_body(post_json_text(server, path, text, who))
        assert "lone surrogate" in message, (path, text)


def test_a_surrogate_pair_is_text_and_is_echoed(server, alice, game) -> None:
    _, token = alice
    status, headers, body = post_json_text(
        server, f"/api/v1/games/{game}/commands", '{"type": "undo", "\\ud83d\\ude00": 1}', token
    )
    assert status == 400
    assert body["fields"] == {"\U0001f600": ["Unknown field."]}


# --- 3. forged pagination cursors -------------------------------------------------------------


def _cursor(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "query",
    [
        "p=x",
        "p=2026-13-45 99:99:99",
        "p=2026-01-01T00:00:00%00",
        "o=5&p=nonsense&r=1",
        "r=1&p=" + "9" * 100,
    ],
)
def test_a_forged_cursor_is_a_400_without_login(server, query) -> None:
    answer = httpx.get(f"{server.http}/api/v1/games", params={"cursor": _cursor(query)})
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "invalid"
    assert list(answer.json()["fields"]) == ["cursor"]


def test_the_issues_cursor_and_a_real_one(server, alice) -> None:
    assert httpx.get(f"{server.http}/api/v1/games?cursor=cD14").status_code == 400
    # An offset past DRF's cutoff is capped: an empty page, not an error.
    far = httpx.get(f"{server.http}/api/v1/games", params={"cursor": _cursor("o=" + "9" * 30)})
    assert far.status_code == 200
    for seed in (1, 2, 3):
        services.game_create(owner=alice[0], seed=seed)
    first = httpx.get(f"{server.http}/api/v1/games", params={"limit": 2}).json()
    second = httpx.get(first["next"])
    assert second.status_code == 200 and len(second.json()["results"]) == 1


# --- 4, 5, 6. WebSocket handshake and frames --------------------------------------------------


def close_code(url: str) -> int:
    """The close code of a connection to ``url`` that the server closes."""
    with ws_connect(url, open_timeout=10) as ws:
        try:
            while True:
                ws.recv(timeout=10)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, "no close frame: the connection was dropped"
            return int(closed.rcvd.code)


@pytest.mark.parametrize("ticket", ["%00", "%00abc", "%ED%A0%80", "%FF", "x" * 5000, "%20", ""])
def test_a_bad_ticket_at_the_handshake_closes_with_4401(server, game, ticket) -> None:
    assert close_code(f"{server.ws}/ws/games/{game}/?ticket={ticket}") == 4401


def test_a_key_in_the_url_is_refused_with_4401(server, alice, game) -> None:
    assert close_code(f"{server.ws}/ws/games/{game}/?token={alice[1]}") == 4401
    assert close_code(f"{server.ws}/ws/races/nope/?token={alice[1]}") == 4401


def test_after_zero_replays_the_whole_game(server, alice, game) -> None:
    user, token = alice
    services.game_command(game_id=uuid.UUID(game), actor=user, command={"type": "deal"})
    with ws_connect(f"{server.ws}/ws/games/{game}/?after=0", open_timeout=10) as ws:
        snapshot = json.loads(ws.recv(timeout=10))
        created = json.loads(ws.recv(timeout=10))
        dealt = json.loads(ws.recv(timeout=10))
    assert snapshot["type"] == "snapshot" and snapshot["game"]["version"] == 1
    assert [created["event"]["seq"], dealt["event"]["seq"]] == [1, 2]
    assert [created["event"]["type"], dealt["event"]["type"]] == ["created", "dealt"]


def test_a_message_over_4_kib_closes_with_1009_from_the_transport(server, game) -> None:
    with ws_connect(f"{server.ws}/ws/games/{game}/", open_timeout=10, max_size=None) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
        ws.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_bad_frames_under_4_kib_get_bad_message_and_the_socket_stays_open(server, game) -> None:
    with ws_connect(f"{server.ws}/ws/games/{game}/", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        for bad in ["[" * 2000, '{"a":' * 800, '{"type": "ping\\ud800"}', "[" * 4000]:
            ws.send(bad)
            assert json.loads(ws.recv(timeout=10)) == {"type": "error", "code": "bad_message"}
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}


# --- 10. bodies -------------------------------------------------------------------------------


def test_an_announced_oversized_body_is_refused_at_once(server) -> None:
    request = http_request(
        "POST",
        "/api/v1/auth/register",
        b"[" * 1024,
        {"Content-Type": "application/json", "Content-Length": str(200 * 2**20)},
    )
    started = time.monotonic()
    status, headers, body = send(server, request, timeout=5)  # 1 KiB sent of 200 MiB
    assert time.monotonic() - started < 3
    assert status == 413
    assert body["code"] == "too_large"
    assert "65536" in body["detail"]


def test_an_oversized_body_announced_with_expect_100_continue_gets_413_not_100(server) -> None:
    headers = {
        "Content-Type": "application/json",
        "Content-Length": str(200 * 2**20),
        "Expect": "100-continue",
    }
    request = http_request("POST", "/api/v1/auth/register", b"", headers)  # headers only
    status, _, body = send(server, request, timeout=5)
    assert status == 413
    assert body["code"] == "too_large"


def _chunked(body: bytes, size: int = 4096) -> bytes:
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


def test_a_chunked_body_over_the_limit_is_refused_while_it_arrives(server, alice, game) -> None:
    _, token = alice
    headers = {
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked",
        "Authorization": f"Token {token}",
    }
    head = http_request("POST", f"/api/v1/games/{game}/commands", b"", headers)
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head)
        chunk = b"%x\r\n%s\r\n" % (8192, b" " * 8192)
        for _ in range(9):  # 72 KiB, and no final chunk: the server must not wait for it
            sock.sendall(chunk)
        status, _, body = read_response(sock)
    assert status == 413
    assert json.loads(body)["code"] == "too_large"


def test_a_chunked_command_is_read_whole(server, alice, game) -> None:
    _, token = alice
    command = json.dumps({"type": "deal", "expected_version": 1}).encode()
    headers = {
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked",
        "Authorization": f"Token {token}",
    }
    request = http_request("POST", f"/api/v1/games/{game}/commands", _chunked(command, 7), headers)
    status, _, body = send(server, request)
    assert status == 201, body
    assert body["event"]["type"] == "dealt"


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_200_mib_body_is_not_buffered(server) -> None:
    before = _rss_kib(server.process.pid)
    headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    head = http_request("POST", "/api/v1/auth/register", b"", headers)
    chunk = b"%x\r\n%s\r\n" % (2**20, b" " * 2**20)
    sent = 0
    status = None
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head)
        try:
            for _ in range(200):
                sock.sendall(chunk)
                sent += 1
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server stopped reading, as it may
        with contextlib.suppress(OSError):
            status, _, _ = read_response(sock)
    after = _rss_kib(server.process.pid)
    print(f"RSS {before // 1024} -> {after // 1024} MiB, {sent} MiB sent, answer {status}")
    assert status in (413, None)
    assert after - before < 20 * 1024, (
        f"RSS grew by {(after - before) // 1024} MiB ({sent} MiB sent)"
    )


# --- 11. unmatched API paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/v1/games/"),
        ("POST", "/api/v1/nothing"),
        ("PUT", "/api/v1/games/x/commands/"),
        ("DELETE", "/api/v1/"),
        ("POST", "/api/v2/games"),
    ],
)
def test_unmatched_api_paths_answer_json_404_whatever_the_method(server, method, path) -> None:
    answer = httpx.request(method, f"{server.http}{path}", json={"type": "deal"})
    assert answer.status_code == 404, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["code"] == "not_found"


def test_a_method_a_path_does_not_serve_is_json_405(server) -> None:
    answer = httpx.delete(f"{server.http}/api/v1/games")
    assert answer.status_code == 405
    assert answer.json()["code"] == "method_not_allowed"


def test_a_session_post_without_csrf_is_json_403(server, alice) -> None:
    with httpx.Client(base_url=server.http) as client:
        client.cookies.set("sessionid", "not-a-session")
        client.cookies.set("csrftoken", "x" * 32)
        answer = client.post("/api/v1/games", json={})
    assert answer.status_code in (401, 403)
    assert answer.headers["content-type"] == "application/json"


# --- 8. throttles that hold under concurrency, and WebSocket limits ---------------------------

LIMITS = {
    "THROTTLE_ANON": "40/hour",
    "THROTTLE_USER": "60/hour",
    "THROTTLE_AUTH": "1000000/minute",
    "WS_MESSAGE_RATE": "10/minute",
    "WS_SOCKETS_PER_ADDRESS": "3",
}


@pytest.fixture(scope="module")
def shared_pair(live_server_factory, redis_url):
    """Two processes counting in one Redis."""
    return (
        live_server_factory(serve=True, redis_url=redis_url, **LIMITS),
        live_server_factory(serve=True, redis_url=redis_url, **LIMITS),
    )


@pytest.fixture(scope="module")
def alone(live_server_factory):
    """One process counting in its own memory."""
    return live_server_factory(serve=True, **LIMITS)


@pytest.fixture
def fresh_counts(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter("*throttle_*"):
        client.delete(key)
    client.close()


def burst(urls: list[str], headers: dict[str, str] | None = None, in_flight: int = 20):
    """GET every URL with ``in_flight`` requests at a time: their status codes, and the
    Retry-After of the refusals."""
    from concurrent.futures import ThreadPoolExecutor

    def get(url: str) -> tuple[int, str | None]:
        answer = httpx.get(url, headers=headers, timeout=30)
        assert answer.status_code in (200, 429), answer.text
        return answer.status_code, answer.headers.get("Retry-After")

    with ThreadPoolExecutor(in_flight) as pool:
        return list(pool.map(get, urls))


def test_anonymous_limit_holds_exactly_across_processes(shared_pair, fresh_counts) -> None:
    a, b = shared_pair
    answers = burst([f"{(a, b)[i % 2].http}/api/v1/rules" for i in range(100)])
    assert sum(status == 200 for status, _ in answers) == 40
    waits = [int(wait) for status, wait in answers if status == 429]
    assert len(waits) == 60 and all(1 <= wait <= 3600 for wait in waits)


def test_signed_in_limit_holds_exactly_across_processes(shared_pair, fresh_counts, alice) -> None:
    a, b = shared_pair
    headers = {"Authorization": f"Token {alice[1]}"}
    answers = burst([f"{(a, b)[i % 2].http}/api/v1/rules" for i in range(150)], headers)
    assert sum(status == 200 for status, _ in answers) == 60


def test_the_limit_holds_exactly_in_one_process_without_redis(alone) -> None:
    answers = burst([f"{alone.http}/api/v1/rules"] * 100)
    assert sum(status == 200 for status, _ in answers) == 40


def test_a_websocket_connection_may_send_so_many_messages(alone, game) -> None:
    with ws_connect(f"{alone.ws}/ws/games/{game}/", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        for _ in range(10):
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "error", "code": "throttled"}
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429


def test_an_address_may_hold_so_many_sockets(alone, game) -> None:
    url = f"{alone.ws}/ws/games/{game}/"
    with contextlib.ExitStack() as sockets:
        held = [sockets.enter_context(ws_connect(url, open_timeout=10)) for _ in range(3)]
        for ws in held:
            assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        assert close_code(url) == 4429
        held.pop().close()
        deadline = time.monotonic() + 10
        while True:  # the server counts the closed one out once it hears of it
            with ws_connect(url, open_timeout=10) as ws:
                try:
                    if json.loads(ws.recv(timeout=10))["type"] == "snapshot":
                        break
                except ConnectionClosed:
                    assert time.monotonic() < deadline, "the freed socket was never counted out"
                    time.sleep(0.2)


# --- the same limits when daphne is started by hand, without the transport's ------------------


@pytest.fixture(scope="module")
def bare(live_server_factory):
    """``daphne scorpion_server.asgi:application``, with daphne's own defaults."""
    return live_server_factory()


def test_bare_daphne_still_answers_413_and_reads_chunked_bodies(bare, alice, game) -> None:
    too_big = http_request(
        "POST", "/api/v1/auth/register", b" " * 100_000, {"Content-Type": "application/json"}
    )
    status, _, body = send(bare, too_big)
    assert (status, body["code"]) == (413, "too_large")

    headers = {
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked",
        "Authorization": f"Token {alice[1]}",
    }
    command = json.dumps({"type": "deal"}).encode()
    request = http_request("POST", f"/api/v1/games/{game}/commands", _chunked(command, 5), headers)
    status, _, body = send(bare, request)
    assert status == 201, body


def test_bare_daphne_closes_an_oversized_message_with_4009(bare, game) -> None:
    with ws_connect(f"{bare.ws}/ws/games/{game}/", open_timeout=10, max_size=None) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        ws.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "error", "code": "too_large"}
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4009


@pytest.mark.parametrize(
    "origin", ["null", "http://evil.example", "file://", "http://127.0.0.1.evil"]
)
def test_a_websocket_from_a_foreign_or_opaque_origin_is_refused_with_403(
    server, game, origin
) -> None:
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as refused:
        ws_connect(f"{server.ws}/ws/games/{game}/", origin=origin, open_timeout=10)
    assert refused.value.response.status_code == 403


@pytest.fixture(scope="module")
def impatient(live_server_factory):
    """``manage.py serve`` with a 2-second header deadline."""
    return live_server_factory(serve=True, HTTP_HEADER_TIMEOUT="2")


def read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took."""
    started, received = time.monotonic(), b""
    sock.settimeout(limit)
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(4096):
            received += chunk
    return received, time.monotonic() - started


def test_slow_request_headers_are_cut_off_at_the_deadline(impatient) -> None:
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        stop = time.monotonic() + 15

        def trickle() -> None:  # one header byte every 0.2 s: the idle timeout never fires
            with contextlib.suppress(OSError):
                while time.monotonic() < stop:
                    sock.sendall(b"a")
                    time.sleep(0.2)

        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        answer, took = read_until_closed(sock, 15)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert 1.5 < took < 6


def test_a_silent_connection_is_closed_at_the_deadline(impatient) -> None:
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as sock:
        answer, took = read_until_closed(sock, 15)
    assert answer == b"" and 1.5 < took < 6


def test_the_deadline_spares_keep_alive_requests_and_websockets(impatient, game) -> None:
    with httpx.Client(base_url=impatient.http, timeout=10) as client:
        for _ in range(3):  # one connection, each request well within its own deadline
            assert client.get("/healthz").status_code == 200
            time.sleep(1.2)
    with ws_connect(f"{impatient.ws}/ws/games/{game}/", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        time.sleep(3)  # past the deadline: a WebSocket is not a request's headers
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
