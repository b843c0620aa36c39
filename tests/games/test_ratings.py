"""Ratings as a projection: a rated game moves its player's and its deal's ratings, a void
takes the change off and a restore puts it back, and the rebuild gives the same bits."""

import datetime as dt
import io

import pytest
from django.core.management import call_command

from games import clock
from games.dailies.models import DailyChallenge
from games.live import backlog
from games.ratings import parameters
from games.ratings.glicko2 import Rating, rate_one
from games.ratings.models import DealRating, PlayerRating, RatedGame, RatingChange
from games.reads import selectors
from games.reads.visibility import Viewer
from games.store import notation
from games.store.models import Event, Game
from games.store.notation import stored
from games.store.summary import GameSummary
from games.writes import moderation, services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
NOON = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


def winnable(day: dt.date, nodes: int | None = 1000) -> None:
    DailyChallenge.objects.create(
        date=day, rules="classic", seed=WIN["seed"], nodes=nodes, created_at=NOON
    )


def snapshot() -> dict[str, list[tuple[object, ...]]]:
    """Every rating row, by its natural key (no surrogate id)."""
    return {
        "players": list(
            PlayerRating.objects.order_by("player_id", "rules").values_list(
                "player_id", "rules", "rating", "rd", "volatility", "games", "changes", "updated_at"
            )
        ),
        "deals": list(
            DealRating.objects.order_by("rules", "seed").values_list(
                "rules", "seed", "rating", "rd", "volatility", "games"
            )
        ),
        "games": list(RatedGame.objects.order_by("game_id").values_list()),
        "history": list(
            RatingChange.objects.order_by("player_id", "rules", "n").values_list(
                "player_id",
                "rules",
                "n",
                "kind",
                "game_id",
                "seq",
                "at",
                "rating",
                "rd",
                "volatility",
            )
        ),
    }


def test_a_daily_game_is_rated_against_its_deal(alice, bob, django_user_model) -> None:
    staff = django_user_model.objects.create_user("mod", password="pw-mod-123", is_staff=True)
    winnable(DAY)
    with clock.frozen(NOON):
        won, _ = services.challenge_join(date=DAY, player=alice)
        lost, _ = services.challenge_join(date=DAY, player=bob)
        assert won.summary.rated and Game.objects.get(id=won.game_id).rated
        deal = DealRating.objects.get(rules="classic", seed=WIN["seed"])
        assert deal.rating == parameters.deal_rating(parameters.daily_difficulty(1000))
        assert deal.games == 0
        result = None
        for command in WIN["actions"]:
            result = services.game_command(game_id=won.game_id, actor=alice, command=command)
        assert result is not None and result.summary.status == "won"
        rating = result.summary.rating
        assert rating is not None and rating.score == 1.0 and rating.counted
        start = Rating(parameters.START_RATING, parameters.START_RD, parameters.START_VOLATILITY)
        first_deal = Rating(deal.rating, deal.rd, deal.volatility)
        expected = rate_one(start, first_deal, 1.0, tau=parameters.TAU)
        assert rating.player_before == parameters.START_RATING
        assert rating.player_after == expected.rating
        assert rating.player_rd == parameters.clamp_rd(expected.rd)
        expected_deal = rate_one(first_deal, start, 0.0, tau=parameters.TAU)
        assert rating.deal_after == expected_deal.rating
        services.game_command(game_id=lost.game_id, actor=bob, command={"type": "resign"})
        # A spectator resuming from the store gets the same change in the final frame.
        seen = selectors.game_get(game_id=won.game_id, viewer=Viewer.of(alice))
        version = seen.game.version
        (frame,) = backlog.event_frames(seen, after=version - 1, upto=version)
        assert frame.game["rating"]["after"] == rating.player_after
        assert frame.game["rating"]["deal"] is None  # the day is open

    alice_rating = PlayerRating.objects.get(player=alice, rules="classic")
    assert alice_rating.rating == expected.rating and alice_rating.games == 1
    bob_rating = PlayerRating.objects.get(player=bob, rules="classic")
    assert bob_rating.rating < parameters.START_RATING
    deal = DealRating.objects.get(rules="classic", seed=WIN["seed"])
    assert deal.games == 2
    before_void = snapshot()

    moderation.result_void(game_id=won.game_id, moderator=staff, reason="solver")
    voided = PlayerRating.objects.get(player=alice, rules="classic")
    assert voided.games == 0
    assert voided.rating == pytest.approx(parameters.START_RATING)
    assert [row.kind for row in RatingChange.objects.filter(player=alice).order_by("n")] == [
        "game",
        "void",
    ]
    assert not RatedGame.objects.get(game_id=won.game_id).counted
    after_void = snapshot()
    call_command("rebuild_projections")
    assert snapshot() == after_void

    moderation.player_ban(player=alice, moderator=staff, reason="solver")
    moderation.result_restore(game_id=won.game_id, moderator=staff, reason="appeal")
    restored = RatedGame.objects.get(game_id=won.game_id)
    assert restored.counted and not restored.deal_counted  # banned: the deal keeps its rating
    assert PlayerRating.objects.get(player=alice, rules="classic").games == 1
    after_restore = snapshot()
    assert after_restore["deals"] != before_void["deals"]
    # The notation keeps the rated game and the banned player's restore, event for event.
    rows = list(Event.objects.filter(game_id=won.game_id).order_by("seq").select_related("actor"))
    text = notation.write(stored.transcript(rows))
    assert '[Rated "' in text and "restore_banned" in text
    (read,) = notation.read(io.StringIO(text))
    assert [(e.event.TYPE, e.event.to_json()) for e in read.entries] == [
        (row.type, row.data) for row in rows
    ]
    call_command("rebuild_projections")
    assert snapshot() == after_restore


def test_a_hint_scores_a_rated_win_as_a_loss(alice) -> None:
    winnable(DAY)
    with clock.frozen(NOON):
        game, _ = services.challenge_join(date=DAY, player=alice)
        summary = Game.objects.select_related("owner").get(id=game.game_id)
        hinted = services.game_hint(game=GameSummary.from_row(summary), viewer=alice)
        assert hinted.recorded
        result = None
        for command in WIN["actions"]:
            result = services.game_command(game_id=game.game_id, actor=alice, command=command)
    assert result is not None and result.summary.status == "won"
    assert result.summary.rating is not None and result.summary.rating.score == 0.0
    assert PlayerRating.objects.get(player=alice).rating < parameters.START_RATING


def test_a_restart_scores_zero_once(alice) -> None:
    winnable(DAY)
    with clock.frozen(NOON):
        game, _ = services.challenge_join(date=DAY, player=alice)
        services.game_command(game_id=game.game_id, actor=alice, command=WIN["actions"][0])
        restarted = services.game_command(
            game_id=game.game_id, actor=alice, command={"type": "restart"}
        )
        assert restarted.summary.rating is not None and restarted.summary.rating.score == 0.0
        for command in WIN["actions"]:
            services.game_command(game_id=game.game_id, actor=alice, command=command)
    assert PlayerRating.objects.get(player=alice).games == 1
    assert RatingChange.objects.filter(player=alice).count() == 1


def test_a_daily_left_unfinished_is_abandoned_at_the_close(alice, bob, django_user_model) -> None:
    """Leaving a rated daily unfinished scores 0 once its day closes, as a resignation
    does: the scheduled job ends it with a ``resigned`` event marked ``abandoned``, which
    the notation keeps and the rebuild agrees with; a finished game and a restarted one
    (scored already) change no rating at the close."""
    from games.writes.schedule import schedule_run

    carol = django_user_model.objects.create_user("carol", password="pw-carol-123")
    winnable(DAY)
    with clock.frozen(NOON):
        left, _ = services.challenge_join(date=DAY, player=alice)
        services.game_command(game_id=left.game_id, actor=alice, command=WIN["actions"][0])
        won, _ = services.challenge_join(date=DAY, player=bob)
        for command in WIN["actions"]:
            services.game_command(game_id=won.game_id, actor=bob, command=command)
        again, _ = services.challenge_join(date=DAY, player=carol)
        services.game_command(game_id=again.game_id, actor=carol, command={"type": "restart"})
        assert services.abandon_closed_days() == []  # the day is open
    assert not PlayerRating.objects.get(player=alice).games
    carol_before = PlayerRating.objects.get(player=carol).rating

    with clock.frozen(NOON + dt.timedelta(days=1)):
        done = schedule_run()
        assert sorted(done.abandoned) == sorted([left.game_id, again.game_id])
        assert schedule_run().abandoned == []  # once only

    last = Event.objects.filter(game_id=left.game_id).order_by("-seq").first()
    assert last is not None and (last.type, last.data) == ("resigned", {"abandoned": True})
    assert last.actor_id == alice.pk
    game = Game.objects.get(id=left.game_id)
    assert game.status == "resigned"
    rated = RatedGame.objects.get(game_id=left.game_id)
    assert rated.score == 0.0 and rated.counted
    assert PlayerRating.objects.get(player=alice).rating < parameters.START_RATING
    assert PlayerRating.objects.get(player=carol).rating == carol_before
    assert Game.objects.get(id=again.game_id).status == "resigned"

    rows = list(Event.objects.filter(game_id=left.game_id).order_by("seq").select_related("actor"))
    text = notation.write(stored.transcript(rows))
    assert " abandon" in text
    (read,) = notation.read(io.StringIO(text))
    assert [(e.event.TYPE, e.event.to_json()) for e in read.entries] == [
        (row.type, row.data) for row in rows
    ]
    served = snapshot()
    call_command("rebuild_projections")
    assert snapshot() == served
