"""The solvability survey: Wilson intervals, and the management command end to end."""

import io

from django.core.management import call_command

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
