"""Account writes: registration, API keys, passwords, WebSocket tickets, guests, email,
password resets and closing an account.

An API key opens its account while the account is active and the key was used within
``KEY_LIFETIME_SECONDS`` (a sliding expiry; 0: no expiry). Every request asks PostgreSQL
(:func:`key_authenticate`, one indexed read), so a revoked key, a deactivated account or a
changed password is refused at once by every server process: no process remembers a key.
Only the SHA-256 of a key or a ticket is stored.

Names and the public record (docs/architecture.md#names-and-the-public-record): the public
log and the exports name players by the pseudonym of their ``Account``, never by username.
Closing an account (:func:`account_close`, and :func:`guests_expire` for idle guests)
replaces its username with that pseudonym, empties its email and deactivates it: its name
leaves every page, board and future export, and its games stay, under the pseudonym.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core import signing
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode

from games import clock
from games.errors import (
    AccountRequired,
    InvalidCredentials,
    KeyNotFound,
    LinkInvalid,
    UsernameTaken,
    WrongPassword,
)
from games.projections import leaderboards
from games.store.models import Account, ApiKey, Game, WsTicket
from games.writes import mail

#: Longest User-Agent kept with a key's last use.
MAX_USER_AGENT = 200
#: Longest name of a key.
MAX_KEY_NAME = 64
#: Browsers and systems a User-Agent names, most specific first (Edge's names Chrome, and
#: Chrome's names Safari).
_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)
#: Names nobody may register: a guest's (``guest-`` and 12 hex digits) and a pseudonym
#: (``p-`` and 16), which a closed account takes; in any letter case, so none looks alike.
RESERVED_NAME = re.compile(r"(?i)(guest-[0-9a-f]{12}|p-[0-9a-f]{16})")
#: The attribute of a user read with its key that says whether it is a guest.
_GUEST_KNOWN = "_scorpion_guest"
#: The salt of the guest cookie's signature (``django.core.signing``).
GUEST_SALT = "scorpion.guest"


@dataclass(frozen=True, slots=True)
class Client:
    """Where a request comes from: its address (None if unknown) and its User-Agent."""

    address: str | None = None
    user_agent: str = ""


def client_name(user_agent: str) -> str:
    """A key's name when its sign-in gave none: the browser and its system a User-Agent
    names ("Firefox (Linux)"), else the program (its first word, "python-httpx"), else
    "API key"."""
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), None)
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), None)
    if browser is not None:
        return f"{browser} ({system})" if system else browser
    program = user_agent.split(" ", 1)[0].split("/", 1)[0].strip()
    return program[:MAX_KEY_NAME] or "API key"


def digest(secret: str) -> str:
    """The stored form of a key or ticket: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def player_register(
    *, username: str, password: str, client: Client = Client(), name: str = ""
) -> tuple[User, str]:
    """Create an account and its first API key (named ``name``, else after the client);
    :class:`UsernameTaken` if the name is in use.

    The password must already have passed Django's password validators.
    """
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=username, password=password)
            key = _issue(user, client, name)
    except IntegrityError:
        raise UsernameTaken() from None
    return user, key


def player_token(*, username: str, password: str, client: Client = Client(), name: str = "") -> str:
    """A new API key of the account these credentials open (a sign-in: the account's other
    keys stay valid), named ``name`` or else after the client; :class:`InvalidCredentials`
    otherwise."""
    user = authenticate(username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    with transaction.atomic():
        return _issue(user, client, name)


def password_change(
    *, user: User, password: str, new_password: str, client: Client = Client()
) -> str:
    """Set ``new_password`` (already validated) if ``password`` is the current one
    (:class:`WrongPassword` otherwise), revoke every key of the account and its WebSocket
    tickets, and return a new key. Django's sessions of the account end too (their hash
    follows the password)."""
    if not user.check_password(password):
        raise WrongPassword()
    return password_reset(user=user, new_password=new_password, client=client)


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
    """The key of ``key_digest`` (id and last use only) with its account (and whether it is
    a guest's), in one query.

    Written in SQL: it runs on every authenticated request, and the ORM's query building
    cost more than the round trip (bench: about 1 ms against 0.4 ms)."""
    user_model = get_user_model()
    concrete = user_model._meta.concrete_fields
    fields = [field.attname for field in concrete]
    columns = ", ".join(f"u.{field.column}" for field in concrete)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT k.id, k.last_used_at, a.guest, {columns} FROM games_api_key k"  # noqa: S608
            " JOIN auth_user u ON u.id = k.user_id"
            " LEFT JOIN games_account a ON a.user_id = u.id WHERE k.digest = %s",
            [key_digest],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    user = user_model.from_db(connection.alias, fields, found[3:])
    # Known with the key, so that whether it is a guest (every request's throttle asks)
    # costs no query of its own.
    setattr(user, _GUEST_KNOWN, bool(found[2]))
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


def _issue(user: User, client: Client, name: str = "") -> str:
    key = secrets.token_hex(20)
    now = clock.now()
    # A sign-in: what a guest's idleness is counted from (and what ends a reset link).
    get_user_model().objects.filter(pk=user.pk).update(last_login=now)
    ApiKey.objects.create(
        user=user,
        digest=digest(key),
        prefix=key[:8],
        name=name.strip()[:MAX_KEY_NAME] or client_name(client.user_agent),
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


# --- guests ----------------------------------------------------------------------------------


def guest_cookie(user: User) -> str:
    """The value of the cookie that names the guest ``user`` (signed with ``SECRET_KEY``)."""
    return signing.Signer(salt=GUEST_SALT).sign(str(user.pk))


def guest_of(cookie: str | None) -> User | None:
    """The open guest a cookie names, or ``None`` (no cookie, a forged or stale one, a
    guest that signed up, expired or was deactivated)."""
    if not cookie:
        return None
    try:
        user_id = int(signing.Signer(salt=GUEST_SALT).unsign(cookie))
    except (signing.BadSignature, ValueError):
        return None
    user: User | None = (
        get_user_model()
        .objects.filter(
            pk=user_id, is_active=True, account__guest=True, account__closed_at__isnull=True
        )
        .first()
    )
    return user


def guest_play(*, cookie: str | None, client: Client = Client()) -> tuple[User, str, bool]:
    """A key of the guest ``cookie`` names, or of a new guest (``guest-`` and 12 random hex
    digits, no password: it signs in by its cookie only); and whether it is new."""
    user = guest_of(cookie)
    if user is not None:
        return user, key_issue(user=user, client=client), False
    while True:
        try:
            with transaction.atomic():
                user = get_user_model().objects.create_user(
                    username=f"guest-{secrets.token_hex(6)}", password=None
                )
                Account.objects.filter(user=user).update(guest=True)
                return user, _issue(user, client), True
        except IntegrityError:  # the name was taken: draw another
            continue


def guest_register(
    *, guest: User, username: str, password: str, client: Client = Client(), name: str = ""
) -> tuple[User, str]:
    """The guest becomes an account named ``username`` with ``password`` (validated): the
    same user, so its games, events and replays become the account's. Its guest keys and
    tickets are revoked; the answer is the account's first key. :class:`UsernameTaken` if
    the name is in use."""
    try:
        with transaction.atomic():
            account = Account.objects.select_for_update().get(user=guest)
            if not account.guest or account.closed_at is not None:
                raise UsernameTaken()  # the guest signed up in another tab meanwhile
            guest.username = username
            guest.set_password(password)
            guest.save(update_fields=["username", "password"])
            account.guest = False
            account.save(update_fields=["guest"])
            leaderboards.relisted(guest.pk)  # its wins now count on the boards
            ApiKey.objects.filter(user=guest).delete()
            WsTicket.objects.filter(user=guest).delete()
            return guest, _issue(guest, client, name)
    except IntegrityError:
        raise UsernameTaken() from None


def is_guest(user: User) -> bool:
    """Whether ``user`` plays as a guest (no account yet): known without a query when the
    user came with its key (:func:`key_authenticate`)."""
    known = getattr(user, _GUEST_KNOWN, None)
    if known is not None:
        return bool(known)
    return bool(Account.objects.filter(user=user, guest=True).exists())


def check_not_guest(user: User) -> None:
    """:class:`AccountRequired` for a guest: what counts (ratings, contests, boards) and
    what reaches a person (email) needs an account."""
    if is_guest(user):
        raise AccountRequired()


@dataclass(frozen=True, slots=True)
class Expired:
    """What one run of :func:`guests_expire` did: guests closed (their games kept under
    their pseudonyms) and guests deleted (they had nothing to keep)."""

    closed: int
    deleted: int


def guests_expire(*, limit: int = 500) -> Expired:
    """Close the guests unused for ``GUEST_IDLE_SECONDS`` (no sign-in, no key used), at most
    ``limit`` a run: one that played keeps its games under its pseudonym, as any closed
    account; one that did not is deleted. Idempotent; a guest at a time."""
    cutoff = clock.now() - dt.timedelta(seconds=settings.GUEST_IDLE_SECONDS)
    idle = (
        Account.objects.filter(guest=True, closed_at=None, user__date_joined__lt=cutoff)
        .exclude(user__last_login__gte=cutoff)
        .exclude(user__api_keys__last_used_at__gte=cutoff)
        .values_list("user_id", flat=True)[:limit]
    )
    closed = deleted = 0
    for user_id in list(idle):
        user = get_user_model().objects.filter(pk=user_id).first()
        if user is None:
            continue
        if not Game.objects.filter(owner=user).exists():
            try:
                with transaction.atomic():
                    user.delete()
                deleted += 1
                continue
            except ProtectedError:  # on the record somewhere (a moderation act): closed
                pass
        _close(user)
        closed += 1
    return Expired(closed, deleted)


# --- signing out everywhere, closing ---------------------------------------------------------


def preferences_set(*, user: User, preferences: dict[str, str | bool]) -> None:
    """Store ``user``'s preferences (validated by the caller against
    ``games.reads.accounts.PREFERENCES``), replacing those stored before."""
    Account.objects.filter(user=user).update(preferences=dict(preferences))


def keys_revoke_all(*, user: User) -> int:
    """Sign ``user`` out everywhere: every key, WebSocket ticket and session of the
    account ends (how many keys there were)."""
    with transaction.atomic():
        revoked, _ = ApiKey.objects.filter(user=user).delete()
        WsTicket.objects.filter(user=user).delete()
        _end_sessions(user)
    return int(revoked)


def _end_sessions(user: User) -> None:
    """Delete the Django sessions (the admin's sign-ins) of ``user``. A session names its
    account only inside its encoded data, so each live one is read: there are few, one per
    staff browser."""
    for session in Session.objects.filter(expire_date__gt=clock.now()).iterator():
        if session.get_decoded().get("_auth_user_id") == str(user.pk):
            session.delete()


def account_close(*, user: User, password: str) -> None:
    """Close ``user``'s account, if ``password`` is its password (:class:`WrongPassword`
    otherwise): see :func:`_close`."""
    if not user.has_usable_password() or not user.check_password(password):
        raise WrongPassword()
    _close(user)


def _close(user: User) -> None:
    """The account's name, email and password go, its username becomes its pseudonym, and
    it is deactivated for good: no key, ticket or session opens it, it leaves every board,
    and its games stay as they are, shown under the pseudonym (which already names it in
    the public log and the exports, so nothing published changes). The admin's history of
    the account shows the pseudonym too. The moderation log keeps its acts (by id)."""
    with transaction.atomic():
        account = Account.objects.select_for_update().get(user=user)
        user.username = account.pseudonym
        user.email = user.first_name = user.last_name = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        account.closed_at = clock.now()
        account.save(update_fields=["closed_at"])
        ApiKey.objects.filter(user=user).delete()
        WsTicket.objects.filter(user=user).delete()
        _end_sessions(user)
        kinds = ContentType.objects.filter(
            app_label__in=("auth", "games"), model__in=("user", "playeraccount")
        )
        LogEntry.objects.filter(content_type__in=kinds, object_id=str(user.pk)).update(
            object_repr=account.pseudonym
        )


# --- email and password resets ---------------------------------------------------------------


def email_request(*, user: User, email: str, origin: str, language: str) -> None:
    """Send ``email`` a link that makes it the account's address (a job on the mail queue;
    the address is set only when the link is opened). A guest has no address to set."""
    check_not_guest(user)
    mail.mail_defer(
        kind=mail.VERIFY, user_id=user.pk, email=email, origin=origin, language=language
    )


def email_verify(*, token: str) -> User:
    """Set the address a verification link names (its token); :class:`LinkInvalid` for a
    token this server did not make, one too old, one already used (the account's address
    changed since), or an account closed since."""
    try:
        payload = mail.read_verify_token(token)
        user_id, email, was = int(payload["u"]), str(payload["e"]), str(payload["was"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkInvalid() from None
    with transaction.atomic():
        users = get_user_model().objects.select_for_update()
        user = users.filter(pk=user_id, is_active=True).first()
        if user is None or mail.email_digest(user.email) != was:
            raise LinkInvalid()
        user.email = email
        user.save(update_fields=["email"])
    return user


def email_remove(*, user: User) -> None:
    """The account has no email address any more (so no password reset either)."""
    get_user_model().objects.filter(pk=user.pk).update(email="")


def password_reset_request(*, email: str, origin: str, language: str) -> None:
    """Send a password reset link to each active account (not a guest) whose address is
    ``email``, as a job; the same nothing is answered whether there is one or not."""
    users = (
        get_user_model()
        .objects.filter(email__iexact=email.strip(), is_active=True, account__guest=False)
        .exclude(email="")
        .values_list("pk", "email")
    )
    for user_id, address in users:
        mail.mail_defer(
            kind=mail.RESET, user_id=user_id, email=address, origin=origin, language=language
        )


def password_reset_user(*, uid: str, token: str) -> User:
    """The account a reset link (``uid`` and ``token``, Django's own) is for, while the link
    holds: it expires after ``PASSWORD_RESET_TIMEOUT`` and ends once used (the password
    changes) or after a sign-in. :class:`LinkInvalid` otherwise."""
    try:
        user_id = int(force_str(urlsafe_base64_decode(uid)))
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        raise LinkInvalid() from None
    if not 0 < user_id < 2**31:
        raise LinkInvalid()
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or "\x00" in token or not default_token_generator.check_token(user, token):
        raise LinkInvalid()
    return user


def password_reset(*, user: User, new_password: str, client: Client = Client()) -> str:
    """Set the password of ``user`` (from :func:`password_reset_user`, or a password
    change; the new password already validated): every key, ticket and session of the
    account ends (a session's hash follows the password), and the answer is a new key."""
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        ApiKey.objects.filter(user=user).delete()
        WsTicket.objects.filter(user=user).delete()
        return _issue(user, client)
