"""Password recovery by email, and the confirmed address it needs
(docs/api.md#password-reset): Django's own reset tokens, which expire; the same answer
whether an address has an account or not; emails sent by a job on the mail queue, run here
by a real procrastinate worker; every key revoked by a reset."""

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.db import connection
from django.utils.http import urlsafe_base64_encode
from procrastinate.contrib.django import app

from games.writes import mail

LINK = re.compile(r"http://testserver/account/(reset|verify)#(\S+)")


def mail_jobs() -> list[dict]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT args FROM procrastinate_jobs WHERE task_name = 'account_mail' ORDER BY id"
        )
        rows = [row[0] for row in cursor.fetchall()]
    return [json.loads(row) if isinstance(row, str) else row for row in rows]


def run_mail_worker() -> None:
    """A real worker on the mail queue (its own connection), until the queue is empty."""
    with app.replace_connector(app.connector.get_worker_connector()) as worker_app:
        worker_app.run_worker(
            queues=["mail"], wait=False, install_signal_handlers=False, listen_notify=False
        )


@pytest.fixture(autouse=True)
def _empty_queue(django_db_setup, django_db_blocker):
    def empty() -> None:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("TRUNCATE procrastinate_jobs CASCADE")

    empty()
    cache.clear()
    yield
    empty()
    cache.clear()


def with_email(user, email: str):
    user.email = email
    user.save(update_fields=["email"])
    return user


@pytest.mark.django_db
def test_the_answer_is_the_same_whether_the_address_has_an_account_or_not(api, alice, bob):
    with_email(alice[0], "alice@example.com")
    with_email(bob[0], "bob@example.com")
    bob[0].is_active = False
    bob[0].save()
    guest = get_user_model().objects.get(username=api.post("/api/v1/auth/guest").json()["username"])
    with_email(guest, "guest@example.com")

    answers = [
        api.post("/api/v1/auth/password/reset", {"email": address})
        for address in ("ALICE@example.com", "nobody@example.com", "bob@example.com")
    ]
    answers.append(api.post("/api/v1/auth/password/reset", {"email": "guest@example.com"}))

    assert {(a.status_code, a.content) for a in answers} == {(202, b"")}
    # One email is queued, for alice only; its job holds no token (built when it runs).
    assert mail_jobs() == [
        {
            "kind": "reset",
            "user_id": alice[0].pk,
            "email": "alice@example.com",
            "origin": "http://testserver",
            "language": "en",
        }
    ]


@pytest.mark.django_db(transaction=True)
def test_a_reset_link_from_the_worker_sets_a_new_password_once(api, alice, mailoutbox, settings):
    settings.SITE_URL = ""
    other = api.post("/api/v1/auth/token", {"username": "alice", "password": "pw-alice-123"})
    with_email(alice[0], "alice@example.com")
    asked = api.post("/api/v1/auth/password/reset", {"email": "alice@example.com"})
    assert asked.status_code == 202

    run_mail_worker()

    (message,) = mailoutbox
    assert message.to == ["alice@example.com"] and message.subject == "Reset your Scorpion password"
    assert "alice" in message.body and "60 minutes" in message.body
    kind, fragment = LINK.search(message.body).groups()
    uid, token = fragment.split("/")
    assert kind == "reset"
    weak = api.post(
        "/api/v1/auth/password/reset/confirm",
        {"uid": uid, "token": token, "new_password": "alice123"},
    )
    assert weak.status_code == 400 and "new_password" in weak.json()["fields"]
    done = api.post(
        "/api/v1/auth/password/reset/confirm",
        {"uid": uid, "token": token, "new_password": "n3w-Lantern-x"},
    )
    assert done.status_code == 200 and done.json()["username"] == "alice"
    assert api.as_user(done.json()["token"]).get("/api/v1/auth/me").status_code == 200
    for old in (alice[1], other.json()["token"]):  # every other key is revoked
        assert api.as_user(old).get("/api/v1/auth/me").status_code == 401
    signed_in = api.post("/api/v1/auth/token", {"username": "alice", "password": "n3w-Lantern-x"})
    assert signed_in.status_code == 200
    again = api.post(
        "/api/v1/auth/password/reset/confirm",
        {"uid": uid, "token": token, "new_password": "0ther-Lantern-y"},
    )
    assert again.status_code == 400 and again.json()["code"] == "link_invalid"


@pytest.mark.django_db
def test_a_wrong_or_expired_link_is_refused_in_the_readers_language(api, alice, monkeypatch):
    user = alice[0]
    uid = urlsafe_base64_encode(str(user.pk).encode())
    generator = default_token_generator
    an_hour_ago = dt.datetime.now() - dt.timedelta(seconds=3601)
    with monkeypatch.context() as patched:  # a link made an hour and a second ago
        patched.setattr(generator, "_now", lambda: an_hour_ago)
        old = generator.make_token(user)
    bodies = [
        {"uid": uid, "token": old},
        {"uid": uid, "token": "abc-123"},
        {"uid": "bm9wZQ", "token": generator.make_token(user)},
        {"uid": "!!", "token": "x"},
        {"uid": urlsafe_base64_encode(b"99999999999"), "token": "x"},
    ]
    for body in bodies:
        answer = api.post(
            "/api/v1/auth/password/reset/confirm", {**body, "new_password": "n3w-Lantern-x"}
        )
        assert (answer.status_code, answer.json()["code"]) == (400, "link_invalid"), body
    italian = api.in_language("it").post(
        "/api/v1/auth/password/reset/confirm", {**bodies[1], "new_password": "n3w-Lantern-x"}
    )
    assert italian.json()["detail"].startswith("Questo link non è valido")
    assert user.check_password("pw-alice-123")


@pytest.mark.django_db
def test_emails_are_throttled_per_address(api, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "mail": "3/hour",
        },
    }
    statuses = [
        api.post("/api/v1/auth/password/reset", {"email": f"x{n}@example.com"}).status_code
        for n in range(4)
    ]
    assert statuses == [202, 202, 202, 429]


@pytest.mark.django_db(transaction=True)
def test_an_address_is_the_accounts_once_its_link_is_opened(api, alice, bob, mailoutbox):
    me = api.as_user(alice[1])
    assert me.post("/api/v1/auth/email", {"email": "not an address"}).status_code == 400
    assert me.post("/api/v1/auth/email", {"email": "alice@example.com"}).status_code == 202
    assert me.get("/api/v1/auth/me").json()["email"] is None  # not before it is confirmed
    run_mail_worker()
    (message,) = mailoutbox
    assert message.to == ["alice@example.com"]
    kind, token = LINK.search(message.body).groups()
    assert kind == "verify"

    confirmed = api.post("/api/v1/auth/email/verify", {"token": token})
    assert confirmed.json() == {"username": "alice", "email": "alice@example.com"}
    assert me.get("/api/v1/auth/me").json()["email"] == "alice@example.com"
    used = api.post("/api/v1/auth/email/verify", {"token": token})
    assert used.status_code == 400 and used.json()["code"] == "link_invalid"
    forged = mail.verify_token(user_id=bob[0].pk, email="evil@example.com", current="")
    tampered = forged[:-2] + ("AA" if not forged.endswith("AA") else "BB")
    assert api.post("/api/v1/auth/email/verify", {"token": tampered}).status_code == 400

    assert me.delete("/api/v1/auth/email").status_code == 204
    assert me.get("/api/v1/auth/me").json()["email"] is None
