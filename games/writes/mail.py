"""The account's emails: a password reset link and an address verification link.

A request never sends an email itself: it defers a job on the ``mail`` queue
(:func:`mail_defer`) and answers at once, so that asking for an address that has an account
and for one that has none take the same time, and a slow mail server holds no request. The
job (``games.jobs.account_mail``) builds the link then (:func:`mail_send`), so no job's
arguments hold a token, and sends through Django's email backend: the console or a file by
default, SMTP by configuration (docs/operations.md#email).

The links carry their token after ``#``: a browser never sends a fragment to the server, so
tokens stay out of access logs and proxies' logs; the page reads it and posts it to the API.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.mail import send_mail
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from procrastinate.contrib.django import app

logger = logging.getLogger(__name__)

#: The queue of account emails (the clock's worker serves it: every queue but the solver's).
QUEUE = "mail"
TASK = "account_mail"
#: What an email is for.
RESET, VERIFY = "reset", "verify"
#: The salt of email verification tokens (``django.core.signing``).
VERIFY_SALT = "scorpion.email-verify"


def mail_defer(*, kind: str, user_id: int, email: str, origin: str, language: str) -> None:
    """Queue the email ``kind`` (:data:`RESET` or :data:`VERIFY`) to ``email`` for the
    account ``user_id``, its links on ``origin`` (``SITE_URL`` when set), in ``language``."""
    app.configure_task(TASK, queue=QUEUE).defer(
        kind=kind,
        user_id=user_id,
        email=email,
        origin=settings.SITE_URL or origin.rstrip("/"),
        language=language,
    )


def email_digest(email: str) -> str:
    """A short digest of an address, so that a verification token names the address the
    account had when it was made without holding it in clear."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:16]


def verify_token(*, user_id: int, email: str, current: str) -> str:
    """A signed, timestamped token that sets ``email`` as the address of ``user_id`` while
    the account's address is still ``current`` (so it is good once)."""
    return signing.dumps(
        {"u": user_id, "e": email, "was": email_digest(current)}, salt=VERIFY_SALT, compress=True
    )


def mail_send(*, kind: str, user_id: int, email: str, origin: str, language: str) -> bool:
    """Build and send the email ``kind`` (the job's work); whether it was sent (not to an
    account that was closed, deactivated or became a guest since)."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.account.guest:
        return False
    with translation.override(language):
        if kind == RESET:
            if user.email.strip().lower() != email.strip().lower():
                return False  # the address changed since it was asked for
            uid = urlsafe_base64_encode(force_bytes(user.pk))
            token = default_token_generator.make_token(user)
            link = f"{origin}/account/reset#{uid}/{token}"
            subject, body = _reset(user.get_username(), link)
        elif kind == VERIFY:
            token = verify_token(user_id=user.pk, email=email, current=user.email)
            link = f"{origin}/account/verify#{token}"
            subject, body = _verify(user.get_username(), email, link)
        else:
            raise ValueError(f"no email of kind {kind!r}")
    send_mail(subject, body, None, [email])
    logger.info("account email %s sent for account %s", kind, user.pk)
    return True


def _reset(username: str, link: str) -> tuple[str, str]:
    minutes = settings.PASSWORD_RESET_TIMEOUT // 60
    subject = _("Reset your Scorpion password")
    body = _(
        "Someone, we hope you, asked to reset the password of the Scorpion account "
        "%(username)s. To choose a new password, open this link within %(minutes)d "
        "minutes:\n\n%(link)s\n\nIf you did not ask, ignore this email: your password stays "
        "as it is."
    ) % {"username": username, "minutes": minutes, "link": link}
    return subject, body


def _verify(username: str, email: str, link: str) -> tuple[str, str]:
    days = max(1, settings.EMAIL_VERIFY_SECONDS // 86400)
    subject = _("Confirm your email address for Scorpion")
    body = _(
        "To confirm that %(email)s is the address of the Scorpion account %(username)s, "
        "open this link within %(days)d days:\n\n%(link)s\n\nWith a confirmed address you "
        "can reset a forgotten password. If you did not ask, ignore this email."
    ) % {"email": email, "username": username, "days": days, "link": link}
    return subject, body


def read_verify_token(token: str) -> dict[str, Any]:
    """The payload of a verification token: :class:`signing.BadSignature` (or its
    ``SignatureExpired``) for one this server did not make or that is too old."""
    payload: dict[str, Any] = signing.loads(
        token, salt=VERIFY_SALT, max_age=settings.EMAIL_VERIFY_SECONDS
    )
    return payload
