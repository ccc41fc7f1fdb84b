"""benchmarks/bench_impasse_rate.py: --method impasse's moves a second against chains."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench_impasse_rate as rate


def test_a_run_counts_the_moves_the_chains_made(tmp_path):
    """Each chain count's row holds the moves its chains made over the slices (no more than
    chains x slices x moves, the difference the solved chains' unmade moves) and their rates;
    the report has one row a count."""
    out = tmp_path / "rate"
    args = ["--chains", "1,3", "--slices", "2", "--moves", "1500", "--order", "4", "--fill",
            "45", "--out", str(out)]  # fmt: skip
    assert rate.main(args) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert [r["chains"] for r in result["rows"]] == [1, 3]
    for row in result["rows"]:
        most = row["chains"] * 2 * 1500
        assert 0 < row["moves"] <= most
        assert row["solved_chains"] > 0 or row["moves"] == most
        assert row["rate"] == pytest.approx(row["moves"] / row["seconds"])
        assert row["rate_a_chain"] == pytest.approx(row["rate"] / row["chains"])
    report = out.with_suffix(".md").read_text()
    assert "inst16x16_45_0" in report and report.count("\n| 1 |") == 1
    assert "| 3 |" in report


@pytest.mark.parametrize("bad", [["--chains", "two"], ["--chains", "0"], ["--order", "9"]])
def test_bad_values_are_one_line_and_exit_two(bad, capsys):
    """A chain count that is not a positive integer or an order past 8 is refused."""
    with pytest.raises(SystemExit) as stop:
        rate.parse_args(bad)
    assert stop.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()[-1:]) == 1
