"""benchmarks/bench_impasse_horizon.py: the moves impasse chains make before they solve."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench_impasse_horizon as horizon
from benchmarks.frontier_instances import make_instances
from cpu_reference.sudoku.impasse import impasse_replay


def test_every_chain_runs_to_its_budget_and_the_solved_ones_replay(tmp_path):
    """Each solved chain's moves are within the budget, sorted, and equal those of the same
    stream replayed alone (so they are the moves a card would run); the report has a row an
    instance with its count solved."""
    out = tmp_path / "horizon"
    argv = ["--cells", "4:40", "--count", "2", "--chains", "8", "--moves", "300000",
            "--out", str(out)]  # fmt: skip
    assert horizon.main(argv) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    (cell,) = result["cells"]
    assert [run["instance"] for run in cell["runs"]] == ["inst16x16_40_0", "inst16x16_40_1"]
    for run, inst in zip(cell["runs"], make_instances([4], [40], 2, 1), strict=True):
        got = run["solved_moves"]
        assert got, "a 16x16 at 40 % solves within the budget on some of 8 chains"
        assert got == sorted(got) and got[-1] <= 300_000 and run["verified"]
        replays = [
            impasse_replay(inst.cells, 4, 8, 1, cell["temperature"], chain, max_moves=300_000)
            for chain in range(8)
        ]
        assert got == sorted(r["moves"] for r in replays if r["status"] == "solved")
    report = out.with_suffix(".md").read_text()
    assert "## 16x16, 40 % filled" in report and "| inst16x16_40_0 |" in report


def test_first_of_c_chains_is_the_quantile_and_none_past_the_data():
    """The first of C chains is the solved moves' rank ceil(K / (C + 1)); None when fewer
    chains solved, or when C is not below K."""
    solved = [10, 20, 30, 40]
    assert horizon.first_of(solved, 40, 16) == 30  # rank ceil(40 / 17) = 3
    assert horizon.first_of(solved, 40, 2) is None  # rank 14: 4 solved
    assert horizon.first_of(solved, 100, 16) is None  # rank 6: 4 solved
    assert horizon.first_of(solved, 16, 16) is None


@pytest.mark.parametrize("bad", ["6", "6:x", "9:45", "6:145"])
def test_a_malformed_cell_is_refused_naming_the_form(bad):
    """A cell without a fill, with one not a number, past order 8 or over 100 %."""
    with pytest.raises(ValueError, match="--cells"):
        horizon.parse_cells(bad)
