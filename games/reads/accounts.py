"""What an account sees of itself: ``GET /auth/me`` and its keys (docs/api.md#accounts)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth.models import User

from games.reads import records
from games.reads.presenters import timestamp
from games.reads.shapes import KeyBody, KeysBody, MeBody
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
