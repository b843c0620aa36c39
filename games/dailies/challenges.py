"""Daily challenges: one certified-winnable deal a UTC day, the same for everyone.

The day's ruleset comes from the weekly rotation ``DAILY_RULES`` (Monday first; classic
every day by default). Its deal is the first of the day's secret sequence that the solver
proves winnable: candidate ``n`` is the seeded deal of HMAC-SHA256(``DAILY_SECRET``,
``scorpion-daily-v2:<date>:<n>``), for n = 0, 1, 2, … (at most ``DAILY_MAX_CANDIDATES``),
each searched within ``DAILY_SOLVER_BUDGET`` nodes. The winning line found is replayed
through the engine before the day is stored, with its difficulty (banded by the nodes the
search took, :func:`difficulty`). Seed, solution and difficulty stay secret until the day
is over (``games.reads.visibility``).

No request waits on the search, and no request makes a day: the scheduled job prepares
today and, before midnight, tomorrow (``games.dailies.preparer``, run by ``games.jobs``),
and ``manage.py prepare_challenges`` makes the coming days by hand. Today asked for before
it was prepared is :class:`ChallengeNotReady` (503, ``Retry-After``) while the job finishes
it. Making a day is safe under concurrency: the date is the table's key, and whoever
inserts second reads the first row.

Days are UTC: a challenge is open from its date's midnight to the next one
(``games.clock`` tells the time, so tests can cross midnight).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from games import clock, engine
from games.dailies import secrets
from games.dailies.models import DailyChallenge
from games.engine.solver import solve
from games.errors import ChallengeNotFound, ChallengeNotReady

logger = logging.getLogger(__name__)

_SEED_LABEL = "scorpion-daily-v2"

#: Difficulty bands by the nodes the solver searched to find the day's win: a band holds
#: the searches of fewer nodes than its bound (``expert`` the rest).
DIFFICULTY_BANDS: tuple[tuple[str, int], ...] = (
    ("easy", 200),
    ("medium", 1_000),
    ("hard", 5_000),
)
EXPERT = "expert"


def today() -> dt.date:
    """The current UTC day."""
    return clock.now().astimezone(dt.UTC).date()


def secret_seed(date: dt.date, counter: int = 0) -> int:
    """Candidate ``counter`` of the day's secret sequence (``games.dailies.secrets``: an
    HMAC of the date and the counter under ``DAILY_SECRET``)."""
    return secrets.seed(f"{_SEED_LABEL}:{date.isoformat()}:{counter}")


def rules_of(date: dt.date) -> engine.Ruleset:
    """The day's ruleset, from the weekly rotation ``DAILY_RULES`` (Monday first)."""
    return engine.RULESETS[settings.DAILY_RULES[date.weekday()]]


def difficulty(nodes: int) -> str:
    """The band of a search of ``nodes`` nodes (:data:`DIFFICULTY_BANDS`)."""
    for name, bound in DIFFICULTY_BANDS:
        if nodes < bound:
            return name
    return EXPERT


@dataclass(frozen=True, slots=True)
class Certified:
    """A day's deal proved winnable: which candidate, its seed, a checked winning line (API
    commands) and the nodes the search took."""

    rules: str
    counter: int
    seed: int
    solution: tuple[dict[str, Any], ...]
    nodes: int

    @property
    def difficulty(self) -> str:
        return difficulty(self.nodes)


def certify(date: dt.date, *, max_nodes: int | None = None) -> Certified:
    """The day's certified deal: the first candidate the solver proves winnable.

    :class:`ChallengeNotReady` when ``max_nodes`` (in all, ``None``: no cap) runs out first,
    or when no candidate is proved within ``DAILY_MAX_CANDIDATES``. Remembered per process:
    the answer is a pure function of the secret, the date and the settings.
    """
    key = (
        settings.DAILY_SECRET,
        date,
        rules_of(date).name,
        settings.DAILY_SOLVER_BUDGET,
        settings.DAILY_MAX_CANDIDATES,
    )
    found = _certified.get(key)
    if found is not None:
        return found
    found = _search(date, rules_of(date), max_nodes)
    _certified[key] = found
    return found


#: Days certified by this process (a few entries: one per day asked for).
_certified: dict[tuple[Any, ...], Certified] = {}


def _search(date: dt.date, rules: engine.Ruleset, max_nodes: int | None) -> Certified:
    spent = 0
    budget = settings.DAILY_SOLVER_BUDGET
    for counter in range(settings.DAILY_MAX_CANDIDATES):
        if max_nodes is not None and spent >= max_nodes:
            break
        seed = secret_seed(date, counter)
        deal = engine.seeded_deal(rules, seed)
        solution = solve(rules, engine.new_game(rules, deal), budget)
        spent += solution.nodes
        if solution.verdict != "won":
            continue
        try:
            final = engine.replay(rules, deal, solution.line)
        except engine.RuleViolation as error:
            logger.error(
                "daily %s candidate %d: the solver's line is refused: %s", date, counter, error
            )
            continue
        if final.status != engine.WON:
            logger.error("daily %s candidate %d: the solver's line does not win", date, counter)
            continue
        commands = tuple(engine.action_to_command(action) for action in solution.line)
        return Certified(rules.name, counter, seed, commands, solution.nodes)
    raise ChallengeNotReady()


def prepare(date: dt.date, *, max_nodes: int | None = None) -> tuple[DailyChallenge, bool]:
    """The challenge of ``date``, made now if missing (any date: the scheduled job and
    ``manage.py prepare_challenges`` make days ahead); and whether this call made it.

    The search runs outside any transaction; the insert is guarded by the date's primary
    key, so concurrent preparers all return the one row that won."""
    existing = DailyChallenge.objects.filter(date=date).first()
    if existing is not None:
        return existing, False
    found = certify(date, max_nodes=max_nodes)
    try:
        with transaction.atomic():
            made = DailyChallenge.objects.create(
                date=date,
                rules=found.rules,
                seed=found.seed,
                counter=found.counter,
                solution=list(found.solution),
                difficulty=found.difficulty,
                nodes=found.nodes,
                created_at=clock.now(),
            )
    except IntegrityError:  # another preparer inserted it first
        return DailyChallenge.objects.get(date=date), False
    logger.info(
        "daily %s prepared: %s, candidate %d, %d nodes (%s)",
        date,
        found.rules,
        found.counter,
        found.nodes,
        found.difficulty,
    )
    return made, True


def parse_date(text: str) -> dt.date:
    """A ``YYYY-MM-DD`` date (``today`` for the current day); :class:`ChallengeNotFound`
    for anything else."""
    if text == "today":
        return today()
    try:
        date = dt.date.fromisoformat(text)
    except ValueError:
        raise ChallengeNotFound() from None
    if len(text) != 10:
        raise ChallengeNotFound()
    return date


def challenge_get(date: dt.date) -> DailyChallenge:
    """The challenge of ``date``, read only: :class:`ChallengeNotFound` for a day that has
    not begun, and for a past day that has no challenge (none was prepared while it ran);
    :class:`ChallengeNotReady` for today while the scheduled job has not prepared it."""
    current = today()
    if date > current:
        raise ChallengeNotFound()
    challenge = DailyChallenge.objects.filter(date=date).first()
    if challenge is not None:
        return challenge
    if date < current:
        raise ChallengeNotFound()
    raise ChallengeNotReady()


def is_open(date: dt.date | str | None) -> bool:
    """Whether the challenge of ``date`` is still running (``None``: no challenge)."""
    if date is None:
        return False
    if isinstance(date, str):
        date = dt.date.fromisoformat(date)
    return date >= today()


def starts_at(date: dt.date) -> dt.datetime:
    return dt.datetime.combine(date, dt.time(0, 0), tzinfo=dt.UTC)
