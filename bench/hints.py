"""Hints from the player's view: their latency, and how often following them wins.

    .venv/bin/python bench/hints.py [--deals N] [--first SEED] [--winnable] [--before]
                                    [--search [--configs C] [--inner I] [--margin M] [--z Z]
                                               [--every-choice]]
                                    [--samples K] [--budget B] [--time-limit S]
                                    [--curve S1,S2,...] [--full-budget B] [--workers W]
                                    [--rules R]

On deals of a ruleset (``classic`` unless ``--rules`` names another), in one run:

- **full information**: the solver with every card known (``--full-budget`` nodes a deal)
  says whether the deal can be won at all: the ceiling for any player;
- **hint follower**: a player who always plays ``GET /hint``'s move, computed as the server
  computes it (``games.engine.hint.hint`` on the player's view and the boards of the game's
  line of play, with its defaults unless ``--samples``, ``--budget`` or ``--time-limit``
  (seconds, 0 for none) name others),
  until the game is won, no hint is left, a position comes back a third time (a loop), or
  300 actions;
- **the hint before** (``--before``): the same player following the hint as it was before
  it spent the native core's speed (``bench/hint_before.py``: 32 samples of 400 nodes);
- **the search** (``--search``): the same player following the hint that weighs the
  near-tied actions one reveal deeper (``bench/hint_search.py``), with the same samples,
  budget and time limit (``--configs``, ``--inner``, ``--margin``, ``--z`` and
  ``--every-choice`` name its own settings, else its defaults);
- **heuristic follower**: the same player following the one-move heuristic
  (``games.engine.heuristic``).

With ``--curve`` (time limits in seconds, comma-separated), the hint (and the search, with
``--search``) plays the same deals once per time limit, and a table is printed: at each
limit, each follower's wins, share of full information with its 95% interval (Wilson), and
its latency (wall clock median and p95, CPU time p95): the share against the time budget.

The deals are seeds ``first .. first + N - 1``; with ``--winnable``, the first N seeds from
``first`` on that full information wins (every follower's win rate is then its share of
what full information wins, and a hundred deals cost what a thousand seeds would).

Printed: each player's wins, hint wins over full-information wins (target >= 0.8), and
each hint's latency over every position its follower met: median, p95 (target <= 300 ms)
and max, measured in the process that computed it, in wall clock and in that process's CPU
time (what the hint costs when the machine is shared). The hint is computed in-process:
the HTTP path adds the read of the game's row and the cache. ``--workers`` plays deals in
parallel processes, each a player asking for hints back to back (latency is then measured
under that load: 8 workers on 2 cores give each a quarter of a core).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import hint_before, hint_search  # noqa: E402
from games import engine  # noqa: E402
from games.engine import heuristic  # noqa: E402
from games.engine import hint as hints  # noqa: E402
from games.engine.solver import solve  # noqa: E402
from games.engine.solver.survey import wilson  # noqa: E402

MAX_ACTIONS = 300
#: A position met this many times means the follower is going round in circles.
LOOP = 3

View = dict[str, Any]
#: An adviser reads the player's view and the boards of the game's line of play.
Adviser = Callable[[engine.Ruleset, View, frozenset[Hashable]], tuple[engine.Action | None, bool]]


@dataclass
class Played:
    """One follower's game: how it ended (won, none when no hint was left, loop or long),
    each hint's latency (wall clock and CPU time of the process, seconds) and how many of
    the hints the solver chose."""

    end: str = ""
    latencies: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    solver_hints: int = 0

    @property
    def won(self) -> bool:
        return self.end == "won"


@dataclass
class Outcome:
    """One deal: the full-information verdict and each follower's game."""

    seed: int
    full: str
    played: dict[str, Played]


def _key(state: engine.State) -> Hashable:
    return (state.columns, state.down, state.reserve, state.cells)


def follow(rules: engine.Ruleset, seed: int, advise: Adviser) -> Played:
    """Play the deal of ``seed`` following ``advise`` from the player's view."""
    state = engine.new_game(rules, engine.seeded_deal(rules, seed))
    seen: Counter[Hashable] = Counter()
    played = Played(end="long")
    for _ in range(MAX_ACTIONS):
        if state.status == engine.WON:
            played.end = "won"
            return played
        seen[_key(state)] += 1
        if seen[_key(state)] >= LOOP:
            played.end = "loop"
            break
        view = engine.player_view(state)
        started = time.perf_counter()
        started_cpu = time.process_time()
        action, by_solver = advise(rules, view, hints.line_boards(state))
        played.latencies.append(time.perf_counter() - started)
        played.cpu.append(time.process_time() - started_cpu)
        played.solver_hints += by_solver
        if action is None:
            played.end = "none"
            break
        state = engine.apply(state, action)[0]
    return played


@dataclass(frozen=True)
class Job:
    rules: str
    seed: int
    full: str
    samples: int
    budget: int
    time_limit: float | None
    before: bool
    search: bool = False
    heuristic: bool = True
    #: The search's settings (``bench/hint_search.py``).
    configs: int = hint_search.CONFIGS
    inner: int = hint_search.INNER
    margin: float = hint_search.MARGIN
    z: float = hint_search.Z
    reveals_only: bool = hint_search.REVEALS_ONLY


def advisers(job: Job) -> dict[str, Adviser]:
    """The players of ``job``, by name."""

    def hinted(
        rules: engine.Ruleset, view: View, been: frozenset[Hashable]
    ) -> tuple[engine.Action | None, bool]:
        found = hints.hint(
            rules,
            view,
            samples=job.samples,
            budget=job.budget,
            time_limit=job.time_limit,
            been=been,
        )
        return found.action, found.source == "solver"

    def before(
        rules: engine.Ruleset, view: View, _: frozenset[Hashable]
    ) -> tuple[engine.Action | None, bool]:
        found = hint_before.hint(rules, view)
        return found.action, found.source == "solver"

    def one_move(
        rules: engine.Ruleset, view: View, _: frozenset[Hashable]
    ) -> tuple[engine.Action | None, bool]:
        return heuristic.best(rules, view), False

    def searched(
        rules: engine.Ruleset, view: View, been: frozenset[Hashable]
    ) -> tuple[engine.Action | None, bool]:
        found, _ = hint_search.search_hint(
            rules,
            view,
            samples=job.samples,
            budget=job.budget,
            time_limit=job.time_limit,
            been=been,
            configs=job.configs,
            inner=job.inner,
            margin=job.margin,
            z=job.z,
            reveals_only=job.reveals_only,
        )
        return found.action, found.source == "solver"

    players: dict[str, Adviser] = {"hint": hinted}
    if job.search:
        players["search"] = searched
    if job.before:
        players["before"] = before
    if job.heuristic:
        players["heuristic"] = one_move
    return players


def play_deal(job: Job) -> Outcome:
    rules = engine.RULESETS[job.rules]
    played = {name: follow(rules, job.seed, advise) for name, advise in advisers(job).items()}
    return Outcome(job.seed, job.full, played)


def full_verdict(job: tuple[str, int, int]) -> tuple[int, str]:
    name, seed, budget = job
    rules = engine.RULESETS[name]
    return seed, solve(
        rules, engine.new_game(rules, engine.seeded_deal(rules, seed)), budget
    ).verdict


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


Mapper = Callable[..., Iterable[tuple[int, str]]]


def deals(args: argparse.Namespace, mapper: Mapper) -> Iterator[tuple[int, str]]:
    """``(seed, full-information verdict)`` of the deals to play."""
    if not args.winnable:
        seeds = range(args.first, args.first + args.deals)
        yield from mapper(full_verdict, [(args.rules, seed, args.full_budget) for seed in seeds])
        return
    found = 0
    start = args.first
    while found < args.deals:
        chunk = [(args.rules, seed, args.full_budget) for seed in range(start, start + 200)]
        for seed, verdict in sorted(mapper(full_verdict, chunk)):
            if verdict == "won" and found < args.deals:
                found += 1
                yield seed, verdict
        start += 200


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--winnable", action="store_true")
    parser.add_argument("--before", action="store_true")
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--configs", type=int, default=hint_search.CONFIGS)
    parser.add_argument("--inner", type=int, default=hint_search.INNER)
    parser.add_argument("--margin", type=float, default=hint_search.MARGIN)
    parser.add_argument("--z", type=float, default=hint_search.Z)
    parser.add_argument("--every-choice", action="store_true")
    parser.add_argument("--samples", type=int, default=hints.SAMPLES)
    parser.add_argument("--budget", type=int, default=hints.SAMPLE_BUDGET)
    parser.add_argument("--time-limit", type=float, default=hints.TIME_LIMIT)
    parser.add_argument("--curve", type=_limits, default=None)
    parser.add_argument("--full-budget", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rules", default="classic", choices=sorted(engine.RULESETS))
    args = parser.parse_args()
    started = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        chosen = list(deals(args, pool.map))
        surveyed = time.perf_counter() - started
        if args.curve:
            rows: list[str] = []
            pairs: list[str] = []
            for limit in args.curve:
                begun = time.perf_counter()
                outcomes = _play(pool, args, chosen, limit, heuristic=False, quiet=True)
                rows.extend(_curve_rows(limit, outcomes, time.perf_counter() - begun))
                print(rows[-1 - args.search], flush=True)
                if args.search:
                    print(rows[-1], flush=True)
                    pairs.append(f"  at {limit or 'none'}: {_paired(outcomes)}")
        else:
            outcomes = _play(pool, args, chosen, args.time_limit, heuristic=True, quiet=False)
    elapsed = time.perf_counter() - started
    seeds = sorted(seed for seed, _ in chosen)
    print()
    print(
        f"{args.rules}: {len(chosen)} deals{' that full information wins' if args.winnable else ''}"
        f", seeds {seeds[0]}..{seeds[-1]}; {args.workers} workers; hint: K = {args.samples} "
        f"samples x {args.budget} nodes, time limit "
        f"{', '.join(str(t or 'none') for t in args.curve or [args.time_limit])}; "
        f"{elapsed:.0f} s ({surveyed:.0f} s of it choosing and solving the deals)"
        + (
            f"; search: {args.configs} outcomes x {args.inner} completions, margin "
            f"{args.margin}, z {args.z}, "
            f"{'every choice' if args.every_choice else 'choices that show a card'}"
            if args.search
            else ""
        )
    )
    if args.curve:
        _print_curve(rows)
        for line in pairs:
            print(line)
    else:
        _summary(outcomes)


def _limits(text: str) -> list[float]:
    """``--curve``'s time limits: seconds, comma-separated (0 for none)."""
    return [float(part) for part in text.split(",") if part.strip()]


def _play(
    pool: Any,
    args: argparse.Namespace,
    chosen: list[tuple[int, str]],
    limit: float,
    *,
    heuristic: bool,
    quiet: bool,
) -> list[Outcome]:
    """Every follower's game on each deal of ``chosen``, the hints under ``limit`` seconds."""
    jobs = [
        Job(
            args.rules,
            seed,
            full,
            args.samples,
            args.budget,
            limit or None,
            args.before,
            args.search,
            heuristic,
            args.configs,
            args.inner,
            args.margin,
            args.z,
            not args.every_choice,
        )
        for seed, full in chosen
    ]
    outcomes: list[Outcome] = []
    for outcome in pool.imap_unordered(play_deal, jobs):
        outcomes.append(outcome)
        if not quiet:
            print(_line(outcome), flush=True)
    return outcomes


def _curve_rows(limit: float, outcomes: list[Outcome], elapsed: float) -> list[str]:
    """One table row per follower: its share of full information at ``limit``, and its
    latency."""
    full = sum(o.full == "won" for o in outcomes)
    rows = []
    for name in outcomes[0].played:
        games = [o.played[name] for o in outcomes]
        won = sum(game.won for game in games)
        low, high = wilson(won, full)
        latencies = [latency for game in games for latency in game.latencies]
        cpu = [latency for game in games for latency in game.cpu]
        rows.append(
            f"| {limit or 'none'} | {name} | {won} | {won / full:.2f} ({low:.2f}–{high:.2f}) | "
            f"{statistics.median(latencies) * 1000:.0f} | "
            f"{percentile(latencies, 0.95) * 1000:.0f} | "
            f"{percentile(cpu, 0.95) * 1000:.0f} | {elapsed:.0f} |"
        )
    return rows


def _print_curve(rows: list[str]) -> None:
    print(
        "| time limit (s) | follower | won | of full information (95%) | latency p50 (ms) "
        "| p95 (ms) | CPU p95 (ms) | run (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)
    print("  target: hint / full information >= 0.8, hint p95 <= 300 ms")


def _paired(outcomes: list[Outcome]) -> str:
    """The deals the search and the hint ended differently, and how likely as many or more
    would go one way by luck alone (a two-sided sign test)."""
    gained = sorted(o.seed for o in outcomes if o.played["search"].won > o.played["hint"].won)
    lost = sorted(o.seed for o in outcomes if o.played["search"].won < o.played["hint"].won)
    n, k = len(gained) + len(lost), min(len(gained), len(lost))
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n) if n else 1.0
    return (
        f"the search won {len(gained)} deals the hint lost and lost {len(lost)} it won "
        f"(sign test p = {p:.2f}); won only by the search: {gained}; only by the hint: {lost}"
    )


def _summary(outcomes: list[Outcome]) -> None:
    count = len(outcomes)
    full = sum(o.full == "won" for o in outcomes)
    unknown = sum(o.full == "unknown" for o in outcomes)
    print(f"  full information : {full:3d} won ({full / count:.1%}), {unknown} unknown")
    for name in outcomes[0].played:
        games = [o.played[name] for o in outcomes]
        won = sum(game.won for game in games)
        ends = Counter(game.end for game in games if not game.won)
        ratio = won / full if full else float("nan")
        low, high = wilson(won, full) if full else (float("nan"), float("nan"))
        print(
            f"  {name:17s}: {won:3d} won ({won / count:.1%}), {ratio:.2f} of full information "
            f"(95%: {low:.2f}–{high:.2f}); the others ended "
            + (", ".join(f"{reason} {n}" for reason, n in sorted(ends.items())) or "-")
        )
    print("  target: hint / full information >= 0.8")
    if "search" in outcomes[0].played:
        print(f"  {_paired(outcomes)}")
    for name in outcomes[0].played:
        if name == "heuristic":
            continue
        games = [o.played[name] for o in outcomes]
        latencies = [latency for game in games for latency in game.latencies]
        cpu = [latency for game in games for latency in game.cpu]
        share = sum(game.solver_hints for game in games) / max(1, len(latencies))
        print(
            f"  {name} latency over {len(latencies)} positions: wall clock median "
            f"{statistics.median(latencies) * 1000:.0f} ms, p95 "
            f"{percentile(latencies, 0.95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms; "
            f"CPU time median {statistics.median(cpu) * 1000:.0f} ms, p95 "
            f"{percentile(cpu, 0.95) * 1000:.0f} ms, max {max(cpu) * 1000:.0f} ms; "
            f"the solver chose {share:.0%} of the hints"
        )
    print("  target: hint p95 <= 300 ms")


def _line(outcome: Outcome) -> str:
    games = "  ".join(
        f"{name} {game.end:4s} ({len(game.latencies)} hints, p95 "
        f"{percentile(game.latencies, 0.95) * 1000 if game.latencies else 0:.0f} ms)"
        for name, game in outcome.played.items()
        if name != "heuristic"
    )
    return (
        f"seed {outcome.seed:5d}: full {outcome.full:7s} {games}  "
        f"heuristic {outcome.played['heuristic'].end if 'heuristic' in outcome.played else '-'}"
    )


if __name__ == "__main__":
    main()
