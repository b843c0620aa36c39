"""Account writes: registration and API tokens (one transaction each)."""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from games.errors import InvalidCredentials, UsernameTaken


def player_register(*, username: str, password: str) -> tuple[User, str]:
    """Create an account and its API token; :class:`UsernameTaken` if the name is in use.

    The password must already have passed Django's password validators.
    """
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError:
        raise UsernameTaken() from None
    return user, token.key


def player_token(*, username: str, password: str) -> str:
    """The API token of the account these credentials open (made on first use);
    :class:`InvalidCredentials` otherwise."""
    user = authenticate(username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    try:
        with transaction.atomic():
            token, _ = Token.objects.get_or_create(user=user)
    except IntegrityError:  # a concurrent first request made it
        token = Token.objects.get(user=user)
    return str(token.key)
