"""``manage.py grant_moderator``: staff in a group with the moderation rights, no more."""

import io

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_an_account_becomes_staff_with_exactly_the_moderation_rights(alice) -> None:
    out = io.StringIO()
    call_command("grant_moderator", "alice", stdout=out)
    call_command("grant_moderator", "alice", stdout=io.StringIO())  # twice changes nothing
    alice.refresh_from_db()
    assert alice.is_staff and not alice.is_superuser
    assert [group.name for group in alice.groups.all()] == ["moderators"]
    assert alice.get_all_permissions() == {
        "games.view_playeraccount",
        "games.view_game",
        "games.view_event",
        "games.view_dailychallenge",
        "games.view_standing",
        "games.view_moderationact",
        "games.view_boardentry",
        "games.view_contest",
        "games.add_contest",
        "games.view_contestresult",
        "games.view_gameevidence",
        "games.moderate",
    }
    assert "alice is a moderator" in out.getvalue()


def test_an_unknown_account_is_refused() -> None:
    with pytest.raises(CommandError, match="No account named 'nobody'"):
        call_command("grant_moderator", "nobody")
