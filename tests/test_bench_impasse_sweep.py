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


def test_several_chain_seeds_run_each_instance_once_a_seed(tmp_path):
    """--chain-seeds runs every instance at every temperature once for each seed, each run
    naming its seed; the report's cell for an instance counts its runs; other seeds make other
    moves."""
    out = tmp_path / "sweep"
    assert sweep.main(["--cells", "4:45:0.45", "--count", "1", "--limit", "20",
                       "--chain-seeds", "1,2", "--out", str(out)]) == 0  # fmt: skip
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["chain_seeds"] == [1, 2]
    (row,) = result["cells"][0]["rows"]
    assert [(r["instance"], r["chain_seed"]) for r in row["runs"]] == [
        ("inst16x16_45_0", 1),
        ("inst16x16_45_0", 2),
    ]
    assert all(r["solved"] for r in row["runs"])
    assert row["runs"][0]["moves"] != row["runs"][1]["moves"]
    report = out.with_suffix(".md").read_text()
    assert "chains' seed 1, 2" in report and "| 0.45 | 2/2, median" in report
    assert "| 2/2, median" in report.split("| 0.45 | 2/2, median")[1]  # the instance's cell


def test_chain_seeds_that_are_not_integers_are_refused(capsys):
    """--chain-seeds 1,x stops with a one-line usage error naming the flag."""
    with pytest.raises(SystemExit) as stop:
        sweep.main(["--chain-seeds", "1,x"])
    assert stop.value.code == 2 and "argument --chain-seeds: '1,x'" in capsys.readouterr().err


def test_probe_probes_before_the_chains_and_the_report_says_so(tmp_path, monkeypatch):
    """--probe runs failed-literal probing on each instance before its chains, records it and
    names it in the report; without it no probe runs."""
    from benchmarks import probing

    probed = []
    real = probing.probe
    monkeypatch.setattr(
        probing, "probe", lambda masks, order: probed.append(order) or real(masks, order)
    )
    out = tmp_path / "sweep"
    assert sweep.main(["--cells", "4:45:0.45", "--count", "1", "--limit", "20",
                       "--out", str(out)]) == 0  # fmt: skip
    assert probed == [] and json.loads(out.with_suffix(".json").read_text())["probe"] is False
    assert sweep.main(["--cells", "4:45:0.45", "--count", "1", "--limit", "20", "--probe",
                       "--out", str(out)]) == 0  # fmt: skip
    assert probed and set(probed) == {4}
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["probe"] is True and result["cells"][0]["rows"][0]["runs"][0]["solved"]
    assert "Deduction probed every candidate" in out.with_suffix(".md").read_text()


def test_moves_a_solve_is_all_runs_moves_over_their_solves():
    """Two runs of 3 M and 5 M moves with one solve: 8 M a solve; none solved: more than their
    moves."""
    runs = [{"moves": 3_000_000, "solved": True}, {"moves": 5_000_000, "solved": False}]
    assert sweep.moves_a_solve_text(runs) == "8 M"
    assert sweep.moves_a_solve_text([dict(r, solved=False) for r in runs]) == "> 8 M"
    assert sweep.moves_a_solve_text([{"moves": 2_150_000_000, "solved": True}]) == "2,150 M"


def test_the_rate_is_all_runs_moves_over_their_seconds():
    """6 M moves in 1 s and 2 M in 1 s: 4 M moves a second."""
    runs = [{"moves": 6_000_000, "seconds": 1.0}, {"moves": 2_000_000, "seconds": 1.0}]
    assert sweep.rate_text(runs) == "4 M/s"


def test_trial_moves_run_each_temperature_once_a_length(tmp_path):
    """--trial-moves 0,1000 runs every temperature twice: chains that never start afresh (one
    trial each) and chains that start a fresh trial every 1,000 moves (more trials than
    chains); each row labelled by its length, every run verified."""
    out = tmp_path / "sweep"
    assert sweep.main(["--cells", "4:45:0.45", "--count", "1", "--limit", "20",
                       "--trial-moves", "0,1000", "--out", str(out)]) == 0  # fmt: skip
    result = json.loads(out.with_suffix(".json").read_text())
    never, fresh = result["cells"][0]["rows"]
    assert (never["trial_moves"], fresh["trial_moves"]) == (0, 1000)
    assert all(r["solved"] for r in never["runs"] + fresh["runs"])
    assert never["runs"][0]["trials"] == 2  # a trial a chain
    run = fresh["runs"][0]
    assert run["trials"] >= run["moves"] // 1000
    report = out.with_suffix(".md").read_text()
    assert "| 0.45, fresh every 0.001 M | 1/1, median" in report


def test_negative_trial_moves_are_refused(capsys):
    """--trial-moves -1 stops with a usage error naming the flag."""
    with pytest.raises(SystemExit) as stop:
        sweep.main(["--trial-moves", "-1"])
    assert stop.value.code == 2 and "--trial-moves 0 or more" in capsys.readouterr().err


def test_stays_run_each_temperature_once_a_stay_factor(tmp_path):
    """--stays 1,0 runs every temperature twice, at the heat bath and with the drawn cell always
    moving: each run verified, the two rows' chains taking other moves, the second row labelled
    by its stay factor (the heat bath's row is not)."""
    out = tmp_path / "sweep"
    assert sweep.main(["--cells", "4:45:0.45", "--count", "1", "--limit", "20",
                       "--stays", "1,0", "--out", str(out)]) == 0  # fmt: skip
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["stays"] == [1.0, 0.0]
    heat, moving = result["cells"][0]["rows"]
    assert (heat["stay"], moving["stay"]) == (1.0, 0.0)
    assert all(r["solved"] for r in heat["runs"] + moving["runs"])
    assert heat["runs"][0]["moves"] != moving["runs"][0]["moves"]
    report = out.with_suffix(".md").read_text()
    assert "| 0.45 | 1/1, median" in report and "| 0.45, stay 0 | 1/1, median" in report


@pytest.mark.parametrize("bad", ["1.5", "-0.5", "x"])
def test_a_stay_factor_outside_0_to_1_is_refused(bad, capsys):
    """--stays 1.5, -0.5 or x stops with a one-line usage error naming the flag."""
    with pytest.raises(SystemExit) as stop:
        sweep.main(["--stays", bad])
    assert stop.value.code == 2 and "--stays" in capsys.readouterr().err
