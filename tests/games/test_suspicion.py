"""Review flags of daily results: a win faster than a person could play, move timings as
regular as a program's, and a person's win that raises neither (times set by the clock)."""

import datetime as dt
import random

import pytest

from games import clock
from games.dailies import suspicion
from games.dailies.models import DailyChallenge, Standing
from games.store import streams
from games.writes import services
from tests.golden import WIN

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)
START = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)


class Clock:
    """A clock the test moves forward by hand."""

    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at


def race(player, gaps: list[float], actions=WIN["actions"]) -> Standing:
    """Join the winnable daily at START and play ``actions``, ``gaps[i]`` seconds apart."""
    if not DailyChallenge.objects.filter(date=DAY).exists():
        DailyChallenge.objects.create(date=DAY, rules="classic", seed=WIN["seed"], created_at=START)
    now = Clock(START)
    with clock.frozen(now):
        stream, _ = services.challenge_join(date=DAY, player=player)
        for gap, command in zip(gaps, actions, strict=True):
            now.at += dt.timedelta(seconds=gap)
            services.game_command(game_id=stream.game_id, actor=player, command=command)
    return Standing.objects.get(game_id=stream.game_id)


def gaps(low: float, high: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [round(rng.uniform(low, high), 3) for _ in WIN["actions"]]


def test_a_win_faster_than_the_threshold_is_flagged(alice) -> None:
    standing = race(alice, gaps(0.2, 2.0, seed=1))  # 50 moves in about 55 s, unevenly
    assert standing.status == "won" and standing.elapsed_ms < 90_000
    assert standing.flag_fast and not standing.flag_regular and standing.suspicious
    assert standing.rhythm_cv is not None and standing.rhythm_cv > 0.3
    assert suspicion.reasons(standing) == [
        f"won in {standing.elapsed_ms / 1000:.1f} s (under SUSPICIOUS_WIN_SECONDS=90)"
    ]


def test_a_bot_like_regular_rhythm_is_flagged(alice) -> None:
    rng = random.Random(2)
    steady = [round(2.5 + rng.uniform(-0.05, 0.05), 3) for _ in WIN["actions"]]
    standing = race(alice, steady)  # about 125 s: not fast, but a metronome
    assert standing.status == "won" and standing.elapsed_ms > 90_000
    assert standing.flag_regular and not standing.flag_fast
    assert standing.rhythm_cv is not None and standing.rhythm_cv < 0.05
    (reason,) = suspicion.reasons(standing)
    assert reason.startswith("move timings too regular: variation 0.0")


def test_a_human_paced_win_is_not_flagged(alice) -> None:
    standing = race(alice, gaps(2.0, 45.0, seed=3))
    assert standing.status == "won"
    assert not standing.flag_fast and not standing.flag_regular and not standing.suspicious
    assert standing.rhythm_cv is not None and standing.rhythm_cv > 0.3
    assert suspicion.reasons(standing) == []


def test_too_few_moves_are_not_judged_and_thresholds_are_settings(alice, bob, settings) -> None:
    few = race(alice, [3.0] * 10, actions=WIN["actions"][:10])
    assert few.rhythm_cv is None and not few.suspicious  # 9 intervals: not enough to judge
    settings.SUSPICIOUS_WIN_SECONDS = 3600
    settings.SUSPICIOUS_RHYTHM_CV = 0.01
    standing = race(bob, gaps(2.0, 45.0, seed=3))
    assert standing.flag_fast and not standing.flag_regular


def test_the_pace_is_exact_integer_arithmetic() -> None:
    pace = streams.Pace()
    assert pace.variation() is None
    at = START
    for seconds in (1, 3, 1, 3):  # actions at 1 s, 4 s, 5 s, 8 s: intervals 3 s, 1 s, 3 s
        at += dt.timedelta(seconds=seconds)
        pace = pace.after(at)
    assert (pace.intervals, pace.total_ms, pace.total_sq_ms) == (3, 7000, 19_000_000)
    assert pace.variation() == pytest.approx(0.40406, abs=1e-5)
    even = streams.Pace().after(START).after(START + dt.timedelta(seconds=2))
    assert even.after(START + dt.timedelta(seconds=4)).variation() == 0.0
