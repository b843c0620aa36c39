"""``manage.py grant_moderator USERNAME``: make an account a moderator.

A moderator is staff (may sign in to ``/admin/``) in the ``moderators`` group, which may view
every moderation page and ban, unban, void and restore (``games.moderate``), and nothing
more: account administration stays with superusers.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

GROUP = "moderators"

#: ``(app_label, codename)`` of every permission the group holds.
PERMISSIONS = (
    ("games", "view_playeraccount"),
    ("games", "view_game"),
    ("games", "view_event"),
    ("games", "view_dailychallenge"),
    ("games", "view_standing"),
    ("games", "view_moderationact"),
    ("games", "view_boardentry"),
    ("games", "view_contest"),
    ("games", "add_contest"),
    ("games", "view_contestresult"),
    ("games", "view_gameevidence"),
    ("games", "moderate"),
)


def moderators_group() -> Group:
    """The ``moderators`` group, made or brought up to date."""
    group, _ = Group.objects.get_or_create(name=GROUP)
    try:
        wanted = [
            Permission.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in PERMISSIONS
        ]
    except Permission.DoesNotExist:
        raise CommandError("The permissions do not exist yet: run manage.py migrate.") from None
    group.permissions.add(*wanted)
    return group


class Command(BaseCommand):
    help = "Make an existing account staff and a member of the moderators group."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        with transaction.atomic():
            user = get_user_model().objects.select_for_update().filter(username=username).first()
            if user is None:
                raise CommandError(f"No account named {username!r}; register it first.")
            user.is_staff = True
            user.save(update_fields=["is_staff"])
            user.groups.add(moderators_group())
        self.stdout.write(
            self.style.SUCCESS(f"{username} is a moderator: sign in at /admin/ to moderate.")
        )
