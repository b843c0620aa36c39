"""The solvability survey: Wilson intervals, and the management command end to end."""

import io

import pytest
from django.core.management import CommandError, call_command

from games.engine.solver.survey import report, survey, wilson


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(10, 100)
    assert round(low, 4) == 0.0552 and round(high, 4) == 0.1744
    assert wilson(0, 50)[0] < 1e-12 and round(wilson(0, 50)[1], 4) == 0.0713
    assert wilson(50, 50)[1] > 1 - 1e-12


def test_survey_counts_every_deal_once_in_parallel_as_alone() -> None:
    alone, first = survey("open", range(5), 5000, jobs=1)
    pooled, second = survey("open", range(5), 5000, jobs=2)
    assert alone == pooled and sum(alone.values()) == 5
    assert [(o.seed, o.verdict, o.nodes) for o in first] == [
        (o.seed, o.verdict, o.nodes) for o in second
    ]
    assert report("open", alone, 5000)[0] == "open: 5 deals, budget 5,000 nodes"


def test_solvability_command_prints_counts_with_intervals() -> None:
    out, err = io.StringIO(), io.StringIO()
    call_command("solvability", rules="open", deals=4, budget=5000, jobs=1, stdout=out, stderr=err)
    text = out.getvalue()
    assert "open: 4 deals, budget 5,000 nodes" in text
    for verdict in ("won", "lost", "unknown"):
        assert verdict in text and "95% CI" in text


@pytest.mark.parametrize(("name", "budget"), [("classic", 300), ("easy", 1100), ("double", 1200)])
def test_a_deal_decided_within_a_budget_gets_the_same_answer_under_a_larger_one(
    name: str, budget: int
) -> None:
    """Why a survey may re-run only its unknown seeds at a larger budget (easy and double:
    with their probes, and easy's same-suit search first, see games.engine.solver)."""
    _, small = survey(name, range(10), budget, jobs=1)
    _, large = survey(name, range(10), 30_000, jobs=1)
    decided = [(o.seed, o.verdict, o.nodes) for o in small if o.verdict != "unknown"]
    seeds = {seed for seed, _, _ in decided}
    assert decided, "the test needs a decided deal"
    assert decided == [(o.seed, o.verdict, o.nodes) for o in large if o.seed in seeds]
    assert any(o.verdict == "unknown" for o in small), "the test needs an undecided deal"
    assert all(o.nodes <= budget for o in small if o.verdict == "unknown")


def test_solvability_names_its_unknown_seeds_and_reruns_only_those() -> None:
    out = io.StringIO()
    call_command(
        "solvability",
        "--seeds",
        "0-9",
        rules="classic",
        budget=300,
        jobs=1,
        stdout=out,
        stderr=io.StringIO(),
    )
    _, expected = survey("classic", range(10), 300, jobs=1)
    unknown = [o.seed for o in expected if o.verdict == "unknown"]
    text = out.getvalue()
    assert "seeds 0..9," in text
    assert f"  unknown seeds: {','.join(map(str, unknown))}" in text.splitlines()

    again = io.StringIO()
    call_command(
        "solvability",
        "--seeds",
        ",".join(map(str, unknown)),
        rules="classic",
        budget=30_000,
        jobs=1,
        stdout=again,
        stderr=io.StringIO(),
    )
    assert f"classic: {len(unknown)} deals, budget 30,000 nodes" in again.getvalue()


def test_solvability_refuses_a_malformed_seed_list() -> None:
    for bad in ("x", "5-2", "-3", ","):
        with pytest.raises(CommandError):
            call_command("solvability", "--seeds", bad, stdout=io.StringIO())
