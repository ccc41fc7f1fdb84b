"""benchmarks.bench_impasse_inline: the CPU runner with its slice inlined makes the moves of
the slice called, and the report gives both runners' rates and their ratio."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import bench_impasse_inline as bi
from benchmarks.frontier_instances import make_instances
from cpu_reference.sudoku import impasse


def test_both_runners_end_in_the_same_chains():
    """Three chains on a 25x25 instance at 45 %, five slices: the same RNG states, grids,
    best grids and counts from either runner."""
    inst = make_instances([5], [45], 1, 3)[0]
    tables = impasse.impasse_tables(np.asarray(inst.cells, np.uint8), 5)
    a, _ = bi.timed(bi.run_called, tables, 5, 3, 5, 3_000)
    b, _ = bi.timed(impasse.run_impasse_cpu, tables, 5, 3, 5, 3_000)
    for k in range(impasse.WEIGHTS):
        assert np.array_equal(a[k], b[k]), k
    assert a[impasse.COUNTS][:, 0].sum() > 0


def test_a_run_reports_each_runner_and_the_ratio(tmp_path):
    """Two reps on 1 and 2 chains: two rates a runner a row, one row a chain count, the
    report's ratio the ratio of the means."""
    out = tmp_path / "inline"
    argv = ["--chains", "1,2", "--reps", "2", "--slices", "2", "--moves", "2000",
            "--order", "4", "--fill", "45", "--k", "0", "--out", str(out)]  # fmt: skip
    assert bi.main(argv) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert [row["chains"] for row in result["rows"]] == [1, 2]
    for row in result["rows"]:
        assert all(len(row["rates"][name]) == 2 for name in bi.RUNNERS)
    row = result["rows"][1]
    ratio = np.mean(row["rates"]["slice inlined"]) / np.mean(row["rates"]["slice called"])
    report = out.with_suffix(".md").read_text()
    assert "| 2 |" in report and f"{ratio:.2f} |" in report


@pytest.mark.parametrize(
    ("bad", "named"),
    [(["--chains", "1,x"], "--chains"), (["--reps", "0"], "--reps"), (["--order", "9"], "--order")],
)
def test_bad_values_stop_in_one_line_naming_the_flag(bad, named, capsys):
    """A chain count that is not an integer, no repetition or an order past 8: exit 2, one
    line naming the flag."""
    with pytest.raises(SystemExit) as stop:
        bi.main(bad)
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert stop.value.code == 2 and named in line
