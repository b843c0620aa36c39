"""Token authentication that does not ask the database for every request.

Which account a token opens is remembered in each process for ``TOKEN_CACHE_SECONDS``
(DRF asks the database on every request otherwise: a round trip before each command). A
token deleted, or an account changed (deactivated, say), is forgotten at once in the
process that changed it and within ``TOKEN_CACHE_SECONDS`` everywhere else.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models.signals import post_delete, post_save
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

#: Most tokens a process remembers.
MAX_TOKENS = 10_000


class _Tokens:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, User]] = OrderedDict()

    def get(self, key: str) -> User | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires, user = entry
            if expires < time.monotonic():
                del self._entries[key]
                return None
            return user

    def put(self, key: str, user: User) -> None:
        with self._lock:
            self._entries[key] = (time.monotonic() + settings.TOKEN_CACHE_SECONDS, user)
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_TOKENS:
                self._entries.popitem(last=False)

    def forget(self, *, key: str | None = None, user_id: int | None = None) -> None:
        with self._lock:
            if key is not None:
                self._entries.pop(key, None)
            if user_id is not None:
                for stale in [k for k, (_, u) in self._entries.items() if u.pk == user_id]:
                    del self._entries[stale]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


tokens = _Tokens()


def user_for_token(key: str) -> User | None:
    """The active account ``key`` opens, or ``None``; remembered for a while."""
    user = tokens.get(key)
    if user is not None:
        return user
    if "\x00" in key:  # no token has one, and PostgreSQL text cannot hold it
        return None
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    found: User = token.user
    tokens.put(key, found)
    return found


class CachedTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``, as DRF's, with the answer remembered per process."""

    def authenticate_credentials(self, key: str) -> tuple[User, Any]:
        user = user_for_token(key)
        if user is None:
            raise AuthenticationFailed()
        return user, key


def _token_deleted(sender: Any, instance: Token, **kwargs: Any) -> None:
    tokens.forget(key=instance.key)


def _user_saved(sender: Any, instance: User, **kwargs: Any) -> None:
    tokens.forget(user_id=instance.pk)


post_delete.connect(_token_deleted, sender=Token, dispatch_uid="api.authentication.token")
post_save.connect(_user_saved, sender=User, dispatch_uid="api.authentication.user")
