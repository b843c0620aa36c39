"""Moderation services: bans and voided results take effect, are on the record, and the
record is append-only; every projection they touch rebuilds from events and the log."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from games import clock
from games.dailies.models import DailyChallenge, Standing
from games.errors import Banned, ModerationRefused, VersionConflict
from games.projections.game_row import COLUMNS
from games.reads import records, selectors, visibility
from games.reads.visibility import Viewer
from games.store import streams
from games.store.models import Event, Game, ModerationAct, Player
from games.writes import moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
FIRST_MOVE = {"type": "move", "from": 2, "index": 5, "to": 7}


@pytest.fixture(autouse=True)
def _noon():
    with clock.frozen(NOON):
        yield


@pytest.fixture
def mod(django_user_model):
    return django_user_model.objects.create_user("mod", password="pw-mod-123", is_staff=True)


def play(game_id, player, commands) -> None:
    for command in commands:
        services.game_command(game_id=game_id, actor=player, command=command)


def ranked_players() -> list[str]:
    return [entry["player"] for entry in selectors.challenge_standings(DAY)]


def acts() -> list[tuple[str, str, str | None, int | None, str]]:
    return [
        (act.act, act.player.username, act.game_id and str(act.game_id), act.seq, act.reason)
        for act in ModerationAct.objects.order_by("id").select_related("player")
    ]


def test_a_ban_refuses_play_and_leaves_standings_and_lists_but_not_reading(
    alice, bob, mod, sample_deal
) -> None:
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    game = services.game_create(owner=alice, deal=sample_deal)
    daily, _ = services.challenge_join(date=DAY, player=alice)
    services.challenge_join(date=DAY, player=bob)
    assert sorted(ranked_players()) == ["alice", "bob"]

    act = moderation.player_ban(player=alice, moderator=mod, reason="  bot account  ")

    assert Player.objects.get(user=alice).banned
    assert (act.act, act.moderator, act.player_id, act.reason) == (
        "ban",
        mod,
        alice.pk,
        "bot account",
    )
    with pytest.raises(Banned):
        services.game_command(game_id=game.game_id, actor=alice, command=FIRST_MOVE)
    with pytest.raises(Banned):
        services.game_create(owner=alice, seed=1)
    with pytest.raises(Banned):
        services.challenge_join(date=DAY, player=alice)
    assert Event.objects.filter(game_id=game.game_id).count() == 1  # nothing appended
    assert ranked_players() == ["bob"]
    listed = {g.id for g in selectors.game_list(viewer=Viewer.of(bob))}
    assert game.game_id not in listed
    assert game.game_id in {g.id for g in selectors.game_list(viewer=Viewer.of(mod))}
    assert game.game_id in {g.id for g in selectors.game_list(viewer=Viewer.of(alice))}  # their own
    assert selectors.game_get(game_id=game.game_id, viewer=Viewer.of(bob)).game.id == game.game_id
    own = selectors.game_get(game_id=daily.game_id, viewer=Viewer.of(alice))
    assert own.game.id == daily.game_id

    moderation.player_unban(player=alice, moderator=mod, reason="appeal accepted")

    assert not Player.objects.get(user=alice).banned
    play(game.game_id, alice, [FIRST_MOVE])
    assert sorted(ranked_players()) == ["alice", "bob"]
    assert game.game_id in {g.id for g in selectors.game_list(viewer=Viewer.of(bob))}
    assert acts() == [
        ("ban", "alice", None, None, "bot account"),
        ("unban", "alice", None, None, "appeal accepted"),
    ]


def test_bans_refuse_what_does_not_apply(alice, bob, mod) -> None:
    with pytest.raises(ModerationRefused) as caught:
        moderation.player_unban(player=alice, moderator=mod, reason="nothing to lift")
    assert caught.value.code == "not_banned"
    moderation.player_ban(player=alice, moderator=mod, reason="spam")
    with pytest.raises(ModerationRefused) as caught:
        moderation.player_ban(player=alice, moderator=mod, reason="again")
    assert caught.value.code == "already_banned"
    for reason in ("", "   "):
        with pytest.raises(ModerationRefused) as caught:
            moderation.player_ban(player=bob, moderator=mod, reason=reason)
        assert caught.value.code == "reason_required"
    with pytest.raises(ModerationRefused) as caught:
        moderation.player_ban(player=bob, moderator=alice, reason="not staff")
    assert caught.value.code == "not_staff"
    assert not Player.objects.filter(user=bob, banned=True).exists()
    assert [act[0] for act in acts()] == ["ban"]


def test_void_and_restore_are_events_of_the_games_own_stream(alice, bob, mod) -> None:
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    daily, _ = services.challenge_join(date=DAY, player=alice)
    play(daily.game_id, alice, WIN["actions"])
    services.challenge_join(date=DAY, player=bob)
    assert ranked_players() == ["alice", "bob"]
    won = len(WIN["actions"]) + 1

    voided = moderation.result_void(game_id=daily.game_id, moderator=mod, reason="engine use")

    assert (voided.event.seq, voided.event.type, voided.event.actor) == (
        won + 1,
        "result_voided",
        mod,
    )
    assert voided.event.data == {"reason": "engine use"}
    assert voided.stream.voided and voided.stream.version == won + 1
    game = Game.objects.get(id=daily.game_id)
    assert game.voided and game.version == won + 1 and game.status == "won"
    assert Standing.objects.get(game_id=daily.game_id).voided
    assert ranked_players() == ["bob"]
    assert records.player_record(username="alice", viewer=visibility.ANONYMOUS)["won"] == 0
    with pytest.raises(ModerationRefused) as caught:
        moderation.result_void(game_id=daily.game_id, moderator=mod, reason="twice")
    assert caught.value.code == "already_voided"

    restored = moderation.result_restore(game_id=daily.game_id, moderator=mod, reason="cleared")

    assert (restored.event.seq, restored.event.type) == (won + 2, "result_restored")
    assert not Game.objects.get(id=daily.game_id).voided
    assert ranked_players() == ["alice", "bob"]
    assert records.player_record(username="alice", viewer=visibility.ANONYMOUS)["won"] == 1
    with pytest.raises(ModerationRefused) as caught:
        moderation.result_restore(game_id=daily.game_id, moderator=mod, reason="twice")
    assert caught.value.code == "not_voided"
    game_id = str(daily.game_id)
    assert acts() == [
        ("void", "alice", game_id, won + 1, "engine use"),
        ("restore", "alice", game_id, won + 2, "cleared"),
    ]
    # The stream replays with them, and they did not touch the board.
    replayed = streams.at_version(daily.game_id, won + 2)
    assert not replayed.voided and replayed.state.status == "won"


def test_a_void_takes_the_streams_lock_and_seq_like_a_command(alice, mod, sample_deal) -> None:
    game = services.game_create(owner=alice, deal=sample_deal)
    moderation.result_void(game_id=game.game_id, moderator=mod, reason="test")
    with pytest.raises(VersionConflict) as caught:
        services.game_command(
            game_id=game.game_id, actor=alice, command=FIRST_MOVE, expected_version=1
        )
    assert caught.value.extra == {"version": 2}
    result = services.game_command(
        game_id=game.game_id, actor=alice, command=FIRST_MOVE, expected_version=2
    )
    assert result.event.seq == 3 and result.stream.voided  # still voided after playing on
    seqs = list(Event.objects.filter(game_id=game.game_id).values_list("seq", flat=True))
    assert seqs == [1, 2, 3]


def test_rebuild_reproduces_games_standings_and_bans(alice, bob, mod, sample_deal) -> None:
    DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=NOON)
    daily, _ = services.challenge_join(date=DAY, player=alice)
    play(daily.game_id, alice, WIN["actions"])
    other = services.game_create(owner=bob, deal=sample_deal)
    moderation.result_void(game_id=daily.game_id, moderator=mod, reason="r1")
    moderation.result_void(game_id=other.game_id, moderator=mod, reason="r2")
    moderation.result_restore(game_id=other.game_id, moderator=mod, reason="r3")
    moderation.player_ban(player=bob, moderator=mod, reason="r4")
    moderation.player_ban(player=alice, moderator=mod, reason="r5")
    moderation.player_unban(player=alice, moderator=mod, reason="r6")

    def rows() -> list[object]:
        return [
            list(Game.objects.order_by("id").values("id", *COLUMNS)),
            list(Standing.objects.order_by("game_id").values()),
            list(Player.objects.order_by("user_id").values()),
        ]

    live = rows()
    Game.objects.update(voided=False, score=0)
    Standing.objects.update(voided=False, flag_fast=True, rhythm_cv=None)
    Player.objects.update(banned=False)
    call_command("rebuild_projections", verbosity=0)
    assert rows() == live
    assert [game["voided"] for game in live[0] if game["id"] == daily.game_id] == [True]
    assert [player["banned"] for player in live[2]] == [False, True]  # alice, bob


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE games_moderation_log SET reason = 'nothing happened'",
        "UPDATE games_moderation_log SET act = 'unban' WHERE act = 'ban'",
        "DELETE FROM games_moderation_log",
        "TRUNCATE games_moderation_log",
        "TRUNCATE games_moderation_log CASCADE",
    ],
)
def test_the_database_refuses_to_change_or_remove_the_log(alice, mod, statement) -> None:
    moderation.player_ban(player=alice, moderator=mod, reason="on the record")
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(statement)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ModerationAct.objects.update(reason="rewritten")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ModerationAct.objects.all().delete()
    assert acts() == [("ban", "alice", None, None, "on the record")]
