"""Puzzles in the database: mining a real finished game, attempts judged by the tree,
ratings that move and rebuild to the same bits, never a puzzle seen twice, the puzzle of
the day and Streak."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from games import engine
from games.engine import puzzles as found
from games.errors import NoPuzzle, PuzzleMovedOn, PuzzleNoProgress, PuzzleOver, RuleRefused
from games.puzzles import mining, ratings
from games.puzzles.models import (
    Puzzle,
    PuzzleAttempt,
    PuzzleDay,
    PuzzleMiner,
    PuzzlePlayer,
    PuzzleRating,
    PuzzleRatingChange,
    PuzzleResult,
    PuzzleStreak,
)
from games.puzzles.positions import state_of
from games.store import streams
from games.writes import puzzles as writing
from tests.puzzle_helpers import GAME, make_puzzle, play_the_game, settled


def command(move: str) -> dict[str, Any]:
    return engine.action_to_command(found.decode(move))


@pytest.mark.django_db(transaction=True)
def test_a_puzzle_is_mined_from_a_real_finished_game(alice):
    game_id = play_the_game(alice)
    assert streams.load(game_id).state.status == engine.WON
    settled()
    done = mining.mine(seconds=60, per_source=2, position_seconds=10)
    assert done.games == 1 and done.puzzles == 2
    mined = list(Puzzle.objects.filter(source_game=game_id).order_by("source_version"))
    assert len(mined) == 2
    for puzzle in mined:
        # The position is the game's own at that version, every card where it lay.
        state = streams.at_version(game_id, puzzle.source_version).state
        assert mining.position_json(state) == puzzle.position
        assert puzzle.id == mining.puzzle_id("classic", found.key(state))
        assert puzzle.length >= 1 and 1 <= puzzle.winning <= found.MAX_WINNING
        assert found.key(state) in puzzle.tree
        # The move the game played from there is recorded: this game won, so it was no
        # mistake (right, or a gamble that the hidden cards happened to allow).
        assert puzzle.played is not None and not puzzle.mistake
        node = puzzle.tree[found.key(state)]
        gambles = [move for move, reason in node["l"] if "hidden" in reason]
        assert puzzle.played in node["w"] or puzzle.played in gambles
        assert puzzle.first_rating == ratings.first_rating(puzzle.difficulty)
    # The miner moved on: a second run finds nothing new and looks at no game again.
    again = mining.mine(seconds=60, per_source=2, position_seconds=10)
    assert (again.games, again.puzzles) == (0, 0)
    assert PuzzleMiner.objects.get(source=mining.LOG).cursor


@pytest.mark.django_db(transaction=True)
def test_a_game_still_playing_or_private_gives_no_puzzle(alice):
    from games.writes import services

    hidden = services.game_create(owner=alice, rules="classic", seed=GAME["seed"], public=False)
    for step in GAME["line"]:
        services.game_command(game_id=hidden.game_id, actor=alice, command=step)
    playing = services.game_create(owner=alice, rules="classic", seed=GAME["seed"])
    for step in GAME["line"][:-1]:
        services.game_command(game_id=playing.game_id, actor=alice, command=step)
    settled()
    done = mining.mine(seconds=30, per_source=2, position_seconds=10)
    assert (done.games, done.puzzles) == (0, 0)  # neither is in the public log
    assert not Puzzle.objects.exists()


@pytest.mark.django_db
def test_any_winning_move_is_right_and_a_losing_one_ends_the_attempt(alice, bob):
    puzzle = make_puzzle("open_two_ways")
    first = writing.puzzle_next(player=alice)
    assert first.puzzle_id == puzzle.id and first.mode == "rated"
    assert writing.puzzle_next(player=alice).id == first.id  # the one being played
    # Not the line's first move: the other winning one.
    assert puzzle.line[0] == "7-7-3"
    moved = writing.puzzle_move(attempt_id=first.id, player=alice, command=command("7-1-4"))
    assert moved.verdict == "right" and moved.attempt.status == "playing"
    assert moved.attempt.moves == ["7-1-4"]
    # A retry of that move (ply 0) is answered again, and changes nothing.
    again = writing.puzzle_move(attempt_id=first.id, player=alice, command=command("7-1-4"), ply=0)
    assert again.repeated and again.attempt.moves == ["7-1-4"]
    with pytest.raises(PuzzleMovedOn):
        writing.puzzle_move(attempt_id=first.id, player=alice, command=command("7-7-3"), ply=0)
    # Bob gets the same puzzle and plays the losing move.
    second = writing.puzzle_next(player=bob)
    lost = writing.puzzle_move(attempt_id=second.id, player=bob, command=command("7-0-5"))
    assert lost.verdict == "wrong" and lost.attempt.status == "failed"
    assert lost.attempt.reason == {"code": "under_it", "card": "QH", "needs": "KH", "column": 5}
    assert lost.change is not None and lost.change.player_after < lost.change.player_before
    with pytest.raises(PuzzleOver):
        writing.puzzle_move(attempt_id=second.id, player=bob, command=command("7-7-3"))
    # A move the rules refuse is refused, and the attempt goes on.
    with pytest.raises(RuleRefused):
        writing.puzzle_move(
            attempt_id=first.id,
            player=alice,
            command={"type": "move", "from": 1, "index": 0, "to": 2},
        )
    # Alice plays on to the end along winning moves: solved, and her rating rises.
    state = state_of(engine.RULESETS["classic"], puzzle.position)
    state = engine.apply(state, found.decode("7-1-4"))[0]
    attempt = moved.attempt
    while attempt.status == "playing":
        node = puzzle.tree[found.key(state)]
        move = node["w"][0]
        result = writing.puzzle_move(attempt_id=first.id, player=alice, command=command(move))
        assert result.verdict == "right"
        state = engine.apply(state, found.decode(move))[0]
        attempt = result.attempt
    assert attempt.status == "solved" and len(attempt.moves) <= puzzle.length
    assert result.change is not None and result.change.player_after > result.change.player_before
    assert PuzzleResult.objects.filter(puzzle_id=puzzle.id).count() == 2


@pytest.mark.django_db
def test_a_whole_column_into_an_empty_one_is_refused_without_ending_the_attempt(alice):
    puzzle = make_puzzle("open_two_ways")
    attempt = writing.puzzle_next(player=alice)
    state = state_of(engine.RULESETS["classic"], puzzle.position)
    renumbering = [
        action
        for action in engine.legal_actions(state)
        if found.renumbers(state, action, engine.apply(state, action)[1])
    ]
    assert renumbering, "the fixture has an empty column and a whole column to move"
    with pytest.raises(PuzzleNoProgress):
        writing.puzzle_move(
            attempt_id=attempt.id,
            player=alice,
            command=engine.action_to_command(renumbering[0]),
        )
    assert PuzzleAttempt.objects.get(id=attempt.id).status == "playing"


@pytest.mark.django_db
def test_never_a_puzzle_already_seen_and_the_nearest_rating_first(alice):
    easy = make_puzzle("hidden_only_move")
    hard = make_puzzle("reveal_then_open")
    ours = make_puzzle("open_two_ways")
    ratings_now = {p.id: p.first_rating for p in (easy, hard, ours)}
    seen = []
    for _ in range(3):
        attempt = writing.puzzle_next(player=alice)
        assert attempt.puzzle_id not in seen
        seen.append(attempt.puzzle_id)
        writing.puzzle_give_up(attempt_id=attempt.id, player=alice)
    # The first was the nearest 1500 (the rating of a new player).
    assert seen[0] == min(ratings_now, key=lambda p: (abs(ratings_now[p] - 1500), p))
    with pytest.raises(NoPuzzle):
        writing.puzzle_next(player=alice)
    # The database is the last guard: a second attempt at a puzzle is refused.
    with pytest.raises(IntegrityError), transaction.atomic():
        writing._new_attempt(alice, easy.id, "rated")


@pytest.mark.django_db
def test_ratings_move_and_the_rebuild_gives_back_the_same_bits(alice, bob, django_user_model):
    for name in ("open_two_ways", "hidden_only_move", "reveal_then_open"):
        make_puzzle(name)
    players = [alice, bob] + [
        django_user_model.objects.create_user(f"p{n}", password="pw-p-123456") for n in range(3)
    ]
    for n, player in enumerate(players):
        for _ in range(3):
            attempt = writing.puzzle_next(player=player)
            if n % 2:
                writing.puzzle_give_up(attempt_id=attempt.id, player=player)
            else:
                _solve(attempt, player)
    # A streak's results are unrated: they change no rating.
    assert PuzzleResult.objects.filter(rated=True).count() == 15
    before = _rating_rows()
    assert PuzzlePlayer.objects.get(player=alice).rating > 1500
    assert PuzzlePlayer.objects.get(player=bob).rating < 1500
    assert ratings.rebuild() == 15
    assert _rating_rows() == before


def _solve(attempt: PuzzleAttempt, player: Any) -> None:
    puzzle = attempt.puzzle
    state = state_of(engine.RULESETS[puzzle.rules], puzzle.position)
    while attempt.status == "playing":
        move = puzzle.tree[found.key(state)]["w"][0]
        attempt = writing.puzzle_move(
            attempt_id=attempt.id, player=player, command=command(move)
        ).attempt
        state = engine.apply(state, found.decode(move))[0]
    assert attempt.status == "solved"


def _rating_rows() -> dict[str, list[tuple[Any, ...]]]:
    """Every rating row, every column, as the database holds it (floats to the bit)."""
    return {
        "players": sorted(PuzzlePlayer.objects.values_list()),
        "puzzles": sorted(PuzzleRating.objects.values_list()),
        "changes": sorted(PuzzleRatingChange.objects.values_list()),
    }


@pytest.mark.django_db(transaction=True)
def test_concurrent_attempts_at_one_puzzle_rebuild_to_the_same_bits(django_user_model):
    """Players who finish the same puzzle at once: each result's position is drawn under
    the ratings' locks, so the rebuild in position order gives the same ratings."""
    puzzle = make_puzzle("hidden_only_move")
    players = [
        django_user_model.objects.create_user(f"r{n}", password="pw-r-123456") for n in range(8)
    ]
    attempts = [writing.puzzle_next(player=player) for player in players]
    assert {a.puzzle_id for a in attempts} == {puzzle.id}
    start = threading.Barrier(len(players))
    failures: list[BaseException] = []

    def play(player: Any, attempt: PuzzleAttempt, n: int) -> None:
        try:
            start.wait()
            move = "1-16-7" if n % 3 else "1-1-6"
            writing.puzzle_move(attempt_id=attempt.id, player=player, command=command(move))
        except BaseException as error:  # noqa: BLE001
            failures.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=play, args=(p, a, n))
        for n, (p, a) in enumerate(zip(players, attempts, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert PuzzleRating.objects.get(puzzle=puzzle).rated == 8
    before = _rating_rows()
    ratings.rebuild()
    assert _rating_rows() == before


@pytest.mark.django_db
def test_the_puzzle_of_the_day_is_chosen_once_and_played_once(alice):
    assert writing.puzzle_days_prepare(dt.date(2026, 12, 6)) == []  # nothing mined yet
    first = make_puzzle("open_two_ways")
    make_puzzle("hidden_only_move")
    assert writing.puzzle_days_prepare(dt.date(2026, 12, 6)) == [dt.date(2026, 12, 6)]
    assert writing.puzzle_days_prepare(dt.date(2026, 12, 6)) == []
    assert writing.puzzle_days_prepare(dt.date(2026, 12, 7)) == [dt.date(2026, 12, 7)]
    today = PuzzleDay.objects.get(date=dt.date(2026, 12, 6))
    tomorrow = PuzzleDay.objects.get(date=dt.date(2026, 12, 7))
    assert today.puzzle_id != tomorrow.puzzle_id
    attempt = writing.puzzle_daily(player=alice, date=today.date)
    assert attempt.mode == "daily" and attempt.puzzle_id == today.puzzle_id
    assert writing.puzzle_daily(player=alice, date=today.date).id == attempt.id
    # Yesterday's left unfinished does not stand in the way of today's.
    tomorrows = writing.puzzle_daily(player=alice, date=tomorrow.date)
    assert tomorrows.puzzle_id == tomorrow.puzzle_id and tomorrows.status == "playing"
    # A day's puzzle is never dealt as a rated or a streak puzzle.
    with pytest.raises(NoPuzzle):
        writing.puzzle_next(player=alice)
    assert first.id in {today.puzzle_id, tomorrow.puzzle_id}


@pytest.mark.django_db
def test_streak_rises_unrated_and_ends_at_the_first_mistake(alice):
    for name in ("open_two_ways", "hidden_only_move", "reveal_then_open"):
        make_puzzle(name)
    play = writing.streak_play(player=alice)
    assert play.attempt is not None and play.attempt.mode == "streak"
    first_rating = ratings.first_rating(play.attempt.puzzle.difficulty)
    _solve(play.attempt, alice)
    nxt = writing.streak_play(player=alice)
    assert nxt.streak.id == play.streak.id and nxt.attempt is not None
    assert nxt.attempt.puzzle.first_rating >= first_rating
    assert PuzzleStreak.objects.get(id=play.streak.id).solved == 1
    # A losing move ends the streak; the best is kept.
    puzzle = nxt.attempt.puzzle
    root = puzzle.tree[puzzle.key]
    lost = writing.puzzle_move(
        attempt_id=nxt.attempt.id, player=alice, command=command(root["l"][0][0])
    )
    assert lost.verdict == "wrong" and lost.change is None
    streak = PuzzleStreak.objects.get(id=play.streak.id)
    assert streak.status == "ended" and streak.solved == 1
    assert not PuzzlePlayer.objects.filter(player=alice).exists()  # unrated
    assert not PuzzleResult.objects.filter(rated=True).exists()
    # The next call starts a new streak.
    fresh = writing.streak_play(player=alice)
    assert fresh.streak.id != play.streak.id


@pytest.mark.django_db
def test_a_position_missing_from_the_tree_is_decided_on_the_request(alice, bob, settings):
    """A tree made by older code might miss a position: the judge classifies it then, in a
    solver slot and within PUZZLE_JUDGE_BUDGET, to the same verdicts."""
    puzzle = make_puzzle("open_two_ways")
    Puzzle.objects.filter(id=puzzle.id).update(tree={})
    settings.PUZZLE_JUDGE_BUDGET = 20_000
    first = writing.puzzle_next(player=alice)
    right = writing.puzzle_move(attempt_id=first.id, player=alice, command=command("7-1-4"))
    assert right.verdict == "right"
    second = writing.puzzle_next(player=bob)
    wrong = writing.puzzle_move(attempt_id=second.id, player=bob, command=command("7-0-5"))
    assert wrong.verdict == "wrong"
    assert wrong.attempt.reason == {"code": "under_it", "card": "QH", "needs": "KH", "column": 5}


@pytest.mark.django_db
def test_puzzles_are_mined_from_the_certified_line_of_a_day_that_is_over():
    """A day's certified line is the solver's search: once the day is over (its games
    public), its positions are mined too; a day not over is not."""
    from games.dailies.models import DailyChallenge
    from games.engine.solver import solve

    rules = engine.RULESETS["classic"]
    line = solve(rules, engine.new_game(rules, engine.seeded_deal(rules, 0)), 100_000).line
    solution = [engine.action_to_command(action) for action in line]
    now = dt.datetime(2026, 12, 6, tzinfo=dt.UTC)
    over = DailyChallenge.objects.create(
        date=dt.date(2026, 12, 4), rules="classic", seed=0, solution=solution,
        created_at=now, published_at=now,
    )  # fmt: skip
    DailyChallenge.objects.create(
        date=dt.date(2026, 12, 5), rules="classic", seed=0, solution=solution, created_at=now
    )
    done = mining.mine(seconds=60, per_source=2, position_seconds=10)
    assert (done.days, done.puzzles) == (1, 1)
    puzzle = Puzzle.objects.get()
    assert puzzle.source_challenge == over.date and puzzle.source_game is None
    state = engine.new_game(rules, engine.seeded_deal(rules, 0))
    for action in line[: puzzle.source_step]:
        state = engine.apply(state, action)[0]
    assert puzzle.position == mining.position_json(state)
    assert puzzle.played == found.encode(line[puzzle.source_step])
    assert mining.mine(seconds=60, per_source=2, position_seconds=10).days == 0
