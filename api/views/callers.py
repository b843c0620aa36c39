"""Who is calling: the signed-in player behind a request, and the viewer they are."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from games.reads.visibility import Viewer


def player(request: Request) -> User:
    """The signed-in account behind ``request`` (views that need one also declare
    ``IsAuthenticated``, which answers 401 first)."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotAuthenticated()
    return user


def viewer(request: Request) -> Viewer:
    """What ``games.reads.visibility`` knows of the caller."""
    return Viewer.of(request.user)
