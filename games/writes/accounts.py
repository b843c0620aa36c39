"""Account writes: registration, API keys, passwords and WebSocket tickets.

An API key opens its account while the account is active and the key was used within
``KEY_LIFETIME_SECONDS`` (a sliding expiry; 0: no expiry). Every request asks PostgreSQL
(:func:`key_authenticate`, one indexed read), so a revoked key, a deactivated account or a
changed password is refused at once by every server process: no process remembers a key.
Only the SHA-256 of a key or a ticket is stored.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction

from games import clock
from games.errors import InvalidCredentials, KeyNotFound, UsernameTaken, WrongPassword
from games.store.models import ApiKey, WsTicket

#: Longest User-Agent kept with a key's last use.
MAX_USER_AGENT = 200


@dataclass(frozen=True, slots=True)
class Client:
    """Where a request comes from: its address (None if unknown) and its User-Agent."""

    address: str | None = None
    user_agent: str = ""


def digest(secret: str) -> str:
    """The stored form of a key or ticket: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def player_register(*, username: str, password: str, client: Client = Client()) -> tuple[User, str]:
    """Create an account and its first API key; :class:`UsernameTaken` if the name is in use.

    The password must already have passed Django's password validators.
    """
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=username, password=password)
            key = _issue(user, client)
    except IntegrityError:
        raise UsernameTaken() from None
    return user, key


def player_token(*, username: str, password: str, client: Client = Client()) -> str:
    """A new API key of the account these credentials open (a sign-in: the account's other
    keys stay valid); :class:`InvalidCredentials` otherwise."""
    user = authenticate(username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    with transaction.atomic():
        return _issue(user, client)


def password_change(
    *, user: User, password: str, new_password: str, client: Client = Client()
) -> str:
    """Set ``new_password`` (already validated) if ``password`` is the current one
    (:class:`WrongPassword` otherwise), revoke every key of the account and its WebSocket
    tickets, and return a new key. Django's sessions of the account end too (their hash
    follows the password)."""
    if not user.check_password(password):
        raise WrongPassword()
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        ApiKey.objects.filter(user=user).delete()
        WsTicket.objects.filter(user=user).delete()
        return _issue(user, client)


def key_authenticate(*, key: str, client: Client = Client()) -> tuple[User, ApiKey] | None:
    """The active account ``key`` opens and the key's row, or ``None`` (no such key, an
    expired one, or an inactive account).

    The key's last use is written when the stored one is ``KEY_TOUCH_SECONDS`` old or more:
    at most one small write a minute per key, however many requests it makes.
    """
    if "\x00" in key:  # no key has one, and PostgreSQL text cannot hold it
        return None
    row = _key_with_user(digest(key))
    if row is None or not row.user.is_active:
        return None
    now = clock.now()
    lifetime = settings.KEY_LIFETIME_SECONDS
    if lifetime and row.last_used_at + dt.timedelta(seconds=lifetime) <= now:
        ApiKey.objects.filter(pk=row.pk).delete()
        return None
    used = row.last_used_at
    if now - used >= dt.timedelta(seconds=settings.KEY_TOUCH_SECONDS):
        row.last_used_at = now
        row.last_address = client.address
        row.last_user_agent = client.user_agent[:MAX_USER_AGENT]
        # Guarded by the time read, so racing requests write once.
        ApiKey.objects.filter(pk=row.pk, last_used_at=used).update(
            last_used_at=now,
            last_address=row.last_address,
            last_user_agent=row.last_user_agent,
        )
    return row.user, row


def _key_with_user(key_digest: str) -> ApiKey | None:
    """The key of ``key_digest`` (id and last use only) with its account, in one query.

    Written in SQL: it runs on every authenticated request, and the ORM's query building
    cost more than the round trip (bench: about 1 ms against 0.4 ms)."""
    user_model = get_user_model()
    concrete = user_model._meta.concrete_fields
    fields = [field.attname for field in concrete]
    columns = ", ".join(f"u.{field.column}" for field in concrete)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT k.id, k.last_used_at, {columns} FROM games_api_key k"  # noqa: S608
            " JOIN auth_user u ON u.id = k.user_id WHERE k.digest = %s",
            [key_digest],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    user = user_model.from_db(connection.alias, fields, found[2:])
    return ApiKey(id=found[0], user=user, last_used_at=found[1])


def key_revoke(*, user: User, key_id: int) -> None:
    """Revoke one of ``user``'s keys (and its tickets); :class:`KeyNotFound` if ``user``
    has no key of that id."""
    if not 0 < key_id < 2**63:  # beyond PostgreSQL's bigint: no key has that id
        raise KeyNotFound()
    deleted, _ = ApiKey.objects.filter(user=user, pk=key_id).delete()
    if not deleted:
        raise KeyNotFound()


def ws_ticket_issue(*, user: User, key_id: int | None) -> str:
    """A new single-use ticket for one WebSocket of ``user``, valid ``WS_TICKET_SECONDS``
    (revoked with ``key_id``, the key it was asked with, if any). Expired tickets are swept."""
    ticket = secrets.token_urlsafe(32)
    now = clock.now()
    with transaction.atomic():
        WsTicket.objects.filter(expires_at__lte=now).delete()
        WsTicket.objects.create(
            digest=digest(ticket),
            user=user,
            key_id=key_id,
            expires_at=now + dt.timedelta(seconds=settings.WS_TICKET_SECONDS),
        )
    return ticket


def ws_ticket_take(*, ticket: str) -> tuple[User, int | None] | None:
    """The active account a live ``ticket`` opens, with the key it was asked with (``None``:
    the session cookie), or ``None``; the ticket is used up either way (one atomic
    ``DELETE … RETURNING``: two connections never share one)."""
    if "\x00" in ticket:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM games_ws_ticket WHERE digest = %s RETURNING user_id, expires_at, key_id",
            [digest(ticket)],
        )
        row = cursor.fetchone()
    if row is None or row[1] <= clock.now():
        return None
    user: User | None = get_user_model().objects.filter(pk=row[0], is_active=True).first()
    return None if user is None else (user, row[2])


def key_issue(*, user: User, client: Client = Client()) -> str:
    """A new API key of ``user``; past ``KEYS_PER_ACCOUNT`` keys the least recently used
    are revoked."""
    with transaction.atomic():
        return _issue(user, client)


def _issue(user: User, client: Client) -> str:
    key = secrets.token_hex(20)
    now = clock.now()
    ApiKey.objects.create(
        user=user,
        digest=digest(key),
        prefix=key[:8],
        created_at=now,
        last_used_at=now,
        last_address=client.address,
        last_user_agent=client.user_agent[:MAX_USER_AGENT],
    )
    surplus = ApiKey.objects.filter(user=user).order_by("-last_used_at", "-id")[
        settings.KEYS_PER_ACCOUNT :
    ]
    ApiKey.objects.filter(pk__in=list(surplus.values_list("pk", flat=True))).delete()
    return key
