"""benchmarks/bench_paper.py: the 95 % ranges, which ranges exclude the paper's figure, the
literal stall rule's schedule, and paper.md rendered from paper.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarks import bench_paper as bp
from cpu_reference.sudoku.schedules import by_name

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks/results/anneal"


def row(name, paper, p_low, p_high, schedule="sirdey-course", solved=8, runs=8, trials=16):
    """A result row with only the fields the rendering reads."""
    base = schedule.partition(":")[0]
    return {
        "schedule": schedule, "base_schedule": base, "stall_mode": "scaled",
        "stall_plateaus": 10_000, "e_p": 810.0, "name": name, "givens": 24,
        "puzzle": name, "paper_mean_trials": paper, "runs": runs, "solved_runs": solved,
        "trials": trials, "p_low": p_low, "p_high": p_high,
        "mean_trials": trials / solved if solved else None, "seconds_per_trial": 0.05,
    }  # fmt: skip


def measurement(rows, stall="scaled", skipped=()):
    """A measurement block around `rows`."""
    facts = {"cpu": "test cpu", "cores": 2, "load_average": [0.0, 0.0, 0.0], "date": "today"}
    return {"machine": facts, "command": "cmd", "stall": stall, "runs": 8, "time_limit": 20.0,
            "skipped": list(skipped), "rows": rows}  # fmt: skip


def test_trial_range_is_one_over_the_interval_of_p():
    assert bp.trial_range(row("a", 3.0, 0.25, 0.5)) == (2.0, 4.0)
    lo, hi = bp.trial_range(row("a", 3.0, 0.0, 0.04, solved=0))
    assert lo == 25.0 and hi == math.inf


@pytest.mark.parametrize(
    "paper, excluded", [(2.0, False), (3.0, False), (4.0, False), (1.99, True), (4.01, True)]
)
def test_excludes_paper_at_and_beyond_the_ends(paper, excluded):
    assert bp.excludes_paper(row("a", paper, 0.25, 0.5)) is excluded


def test_no_solved_run_excludes_only_figures_below_the_range():
    r = row("a", 7.69, 0.0, 0.04, solved=0)  # range 25-inf
    assert bp.excludes_paper(r)
    assert not bp.excludes_paper({**r, "paper_mean_trials": 1000.0})


def test_exclusion_sentence_names_each_excluded_grid_with_its_range():
    rows = [row("table I", 3.0, 0.25, 0.5), row("table II", 2.28, 0.5, 0.8)]
    (line,) = bp.exclusion_sentences([measurement(rows)])
    assert "1 of 2 ranges exclude" in line
    assert "table II (1.25-2.00 vs 2.28)" in line
    assert "table I includes it" in line


def test_exclusion_sentences_one_per_schedule_and_stall():
    rows = [row("table I", 3.0, 0.25, 0.5), row("table I", 3.0, 0.25, 0.5, "sirdey-paper")]
    literal = {**row("table I", 3.0, 0.0, 0.01, "sirdey-paper:stall=10000", solved=0)}
    lines = bp.exclusion_sentences([measurement(rows), measurement([literal], "literal")])
    assert [line.split(":")[0] for line in lines] == [
        "- sirdey-course (stall 10,000)",
        "- sirdey-paper (stall 10,000)",
        "- sirdey-paper",  # "sirdey-paper:stall=10000 (stall 10,000)" up to its first colon
    ]
    assert "1 of 1 ranges exclude" in lines[2] and "100.00-inf vs 3.0" in lines[2]


def test_committed_json_ranges_exclude_what_the_review_found():
    """The review's reading of paper.json: course ranges exclude tables II, III and IV (IV:
    2.93-11.63 vs 2.38), the paper schedule's (scaled stall) all four (II: 1.03-2.25 vs 2.28)."""
    data = json.loads((RESULTS / "paper.json").read_text())
    rows = [r for m in data["measurements"] for r in m["rows"] if r["stall_mode"] == "scaled"]
    out = {
        s: {r["name"] for r in rows if r["schedule"] == s and r["paper_mean_trials"]
            and bp.excludes_paper(r)}
        for s in ("sirdey-course", "sirdey-paper")
    }  # fmt: skip
    assert out["sirdey-course"] == {"table II", "table III", "table IV"}
    assert out["sirdey-paper"] == {"table I", "table II", "table III", "table IV"}


def test_committed_markdown_is_rendered_from_the_committed_json():
    data = json.loads((RESULTS / "paper.json").read_text())
    assert (RESULTS / "paper.md").read_text() == bp.render(data)


def test_literal_stall_is_ten_thousand_plateaus_at_the_papers_e_p():
    literal = by_name(bp.schedule_string("sirdey-paper", "literal"), 3)
    scaled = by_name(bp.schedule_string("sirdey-paper", "scaled"), 3)
    assert (literal.stall, literal.e_p) == (10_000, 16202.0)
    assert scaled.stall == round(10_000 * 16203 / 811) == 199_790
    # the course page's e_P = 810 leaves 10,000 unscaled: literal and scaled coincide there
    assert by_name(bp.schedule_string("sirdey-course", "literal"), 3) == by_name("sirdey-course", 3)


def test_render_literal_rows_with_no_solved_run():
    lit = row("table I", 7.69, 0.0, 0.0081, "sirdey-paper:stall=10000", 0, 8, 453)
    lit["stall_mode"] = "literal"
    skipped = [{"schedule": "sirdey-course", "stall_plateaus": 10_000, "e_p": 810.0}]
    text = bp.render({"measurements": [measurement([lit], "literal", skipped)]})
    assert "| sirdey-paper:stall=10000 | 10,000 | table I | 24 | 7.69 | - | 123.46-inf | 0/8 |" in (
        text
    )
    assert "0 of 8 runs on the paper's 1 grids solved, 0 of 453 trials" in text
    assert "sirdey-course is not measured again" in text


def test_different_puzzles_under_one_name_are_refused():
    a, b = row("table I", 3.0, 0.2, 0.5), row("table I", 3.0, 0.2, 0.5)
    b["puzzle"] = "other"
    with pytest.raises(SystemExit, match="table I"):
        bp.check_same_puzzles([measurement([a]), measurement([b])])
