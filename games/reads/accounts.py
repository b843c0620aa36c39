"""What an account sees of itself: ``GET /auth/me`` and its keys (docs/api.md#accounts); and
what the rights of a socket opened with its credentials depend on (``games.live.rights``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections

from games.reads import records
from games.reads.presenters import timestamp
from games.reads.shapes import KeyBody, KeysBody, MeBody, PreferencesBody
from games.reads.visibility import Viewer
from games.store.models import Account, ApiKey, Player


def account_me(*, user: User, key_id: int | None) -> MeBody:
    """Who ``user`` is (a guest or not, and the confirmed email address), the key the
    request came with (``None``: the session cookie), and the account's public record."""
    key = None if key_id is None else ApiKey.objects.filter(pk=key_id, user=user).first()
    return {
        "username": user.get_username(),
        "guest": Account.objects.filter(user=user, guest=True).exists(),
        "email": user.email or None,
        "staff": bool(user.is_staff),
        "banned": Player.objects.filter(user=user, banned=True).exists(),
        "joined_at": timestamp(user.date_joined) or "",
        "key": None if key is None else key_body(key, current=key.pk),
        "record": records.player_record(username=user.get_username(), viewer=Viewer.of(user)),
    }


#: Each preference of the client, with the values it may take (the first is the default).
PREFERENCES: dict[str, tuple[str | bool, ...]] = {
    "card_size": ("large", "medium", "small"),
    "theme": ("light", "dark", "contrast"),
    "sound": (True, False),
    "animations": (True, False),
    "auto_finish": (True, False),
}


def account_preferences(*, user: User) -> PreferencesBody:
    """``user``'s preferences: each as stored, or its default (a value no longer offered
    reads as the default too)."""
    stored = Account.objects.filter(user=user).values_list("preferences", flat=True).first()
    stored = stored if isinstance(stored, dict) else {}
    body = {
        name: stored[name] if stored.get(name) in values else values[0]
        for name, values in PREFERENCES.items()
    }
    return body  # type: ignore[return-value]


def account_keys(*, user: User, current: int | None) -> KeysBody:
    """Every key of ``user``, most recently used first; ``current`` marks the request's."""
    rows = ApiKey.objects.filter(user=user).order_by("-last_used_at", "-id")
    return {"results": [key_body(row, current=current) for row in rows]}


def key_body(row: ApiKey, *, current: int | None) -> KeyBody:
    """One key as the API shows it to its owner (its prefix, never the key)."""
    lifetime = settings.KEY_LIFETIME_SECONDS
    expires = row.last_used_at + dt.timedelta(seconds=lifetime) if lifetime else None
    return {
        "id": row.pk,
        "name": row.name,
        "prefix": row.prefix,
        "current": row.pk == current,
        "created_at": timestamp(row.created_at) or "",
        "last_used_at": timestamp(row.last_used_at) or "",
        "expires_at": timestamp(expires),
        "last_address": row.last_address,
        "last_user_agent": row.last_user_agent,
    }


# --- What an open socket's rights depend on (games.live.rights) -----------------------------


@dataclass(frozen=True, slots=True)
class Rights:
    """An account's rights as one read found them: what a socket opened with its credentials
    may show, and what must stay the same for the socket to stay open. Named as Django's
    ``User`` names them, so that ``Viewer.of(rights)`` is the viewer they make."""

    pk: int
    is_active: bool
    is_staff: bool
    is_superuser: bool
    banned: bool
    #: The MD5 of the stored password hash (which changes with the password): the hash
    #: itself never leaves PostgreSQL.
    password: str

    @property
    def is_authenticated(self) -> bool:
        return True


#: The rights of the accounts ``ANY(%s)``, one row each (as :class:`Rights` in order); the
#: live service's listener runs the same statement on its own connection.
RIGHTS_SQL = (
    "SELECT u.id, u.is_active, u.is_staff, u.is_superuser, coalesce(p.banned, false),"
    " md5(u.password) FROM auth_user u LEFT JOIN games_player p ON p.user_id = u.id"
    " WHERE u.id = ANY(%s)"
)
#: Which of the keys ``ANY(%s)`` still exist.
KEYS_SQL = "SELECT id FROM games_api_key WHERE id = ANY(%s)"
#: Which of the sessions ``ANY(%s)`` still exist and have not expired.
SESSIONS_SQL = (
    "SELECT session_key FROM django_session WHERE session_key = ANY(%s) AND expire_date > now()"
)


def socket_rights(*, user_id: int, key_id: int | None, session_key: str | None) -> Rights | None:
    """The rights of account ``user_id`` now, if the account is active and the credential a
    socket was opened with still holds (the key ``key_id``, the session ``session_key``, or
    neither: a ticket asked with the session cookie); else ``None``. One query, always on
    the primary database (a replica may not have seen a revocation yet)."""
    with connections["default"].cursor() as cursor:
        cursor.execute(
            f"SELECT r.*, (%s::bigint IS NULL OR EXISTS (SELECT 1 FROM games_api_key k"  # noqa: S608
            "  WHERE k.id = %s AND k.user_id = r.id)),"
            " (%s::text IS NULL OR EXISTS (SELECT 1 FROM django_session s"
            "  WHERE s.session_key = %s AND s.expire_date > now()))"
            f" FROM ({RIGHTS_SQL}) r",
            [key_id, key_id, session_key, session_key, [user_id]],
        )
        row = cursor.fetchone()
    if row is None or not row[-2] or not row[-1]:
        return None
    rights = Rights(*row[:-2])
    return rights if rights.is_active else None
