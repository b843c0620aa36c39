"""Who is calling: the signed-in player behind a request, and the viewer they are."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from api.throttles import AnonThrottle
from games.reads.visibility import Viewer


def player(request: Request) -> User:
    """The signed-in account behind ``request`` (views that need one also declare
    ``IsAuthenticated``, which answers 401 first)."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotAuthenticated()
    return user


def account(request: Request) -> User | None:
    """The signed-in account behind ``request``, or ``None`` for an anonymous caller."""
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated else None


def requester(request: Request) -> str:
    """Whose cap solver work of ``request`` counts in: the account, or for an anonymous
    caller the address (as the throttles see it, behind ``NUM_PROXIES`` proxies)."""
    user = account(request)
    if user is not None:
        return f"account:{user.pk}"
    return f"address:{AnonThrottle().get_ident(request)}"


def viewer(request: Request) -> Viewer:
    """What ``games.reads.visibility`` knows of the caller."""
    return Viewer.of(request.user)
