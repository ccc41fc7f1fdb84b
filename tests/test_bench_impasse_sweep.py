"""benchmarks/bench_impasse_sweep.py: --method impasse's held temperature per order and fill."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench_impasse_sweep as sweep


def test_every_temperature_runs_on_the_same_instances(tmp_path):
    """Each temperature of a cell solves the same instances (verified), and the report has one
    row a temperature with its count solved."""
    out = tmp_path / "sweep"
    assert sweep.main(["--cells", "4:45:0.3/0.45", "--count", "2", "--limit", "20",
                       "--out", str(out)]) == 0  # fmt: skip
    result = json.loads(out.with_suffix(".json").read_text())
    (cell,) = result["cells"]
    assert [row["temperature"] for row in cell["rows"]] == [0.3, 0.45]
    names = [[r["instance"] for r in row["runs"]] for row in cell["rows"]]
    assert names == [["inst16x16_45_0", "inst16x16_45_1"]] * 2
    assert all(r["solved"] for row in cell["rows"] for r in row["runs"])
    report = out.with_suffix(".md").read_text()
    assert "## 16x16, 45 % filled" in report and "| 0.45 | 2/2, median" in report


@pytest.mark.parametrize("bad", ["6:45", "6:45:x", "9:45:0.3", "6:45:0"])
def test_a_malformed_cell_is_refused_naming_the_form(bad):
    """A cell without temperatures, with one that is not a number above 0, or past order 8."""
    with pytest.raises(ValueError, match="--cells"):
        sweep.parse_cells(bad)
