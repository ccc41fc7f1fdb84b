"""benchmarks/bench_lloyd_amos.py: the engine's default on Lloyd & Amos' set, level by level."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import bench_lloyd_amos as bench
from gpu_anneal.impasse_solver import temperature_at

HEAD = Path(__file__).parent / "data" / "general_25x25_head.tsv"  # inst25x25_45_0 and _1


@pytest.fixture
def data(tmp_path):
    """A folder whose general_25x25.tsv holds the two 45 % instances of the set's head."""
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(HEAD, folder / "general_25x25.tsv")
    return folder


def test_each_level_runs_its_first_instances_by_the_default(data, tmp_path):
    """Both instances are solved (the verifier passed them): inst25x25_45_0 by the exact search
    the default runs first (4,090 branch values, within EXACT_FIRST_NODES' 5,000), _1 (5,073)
    by the impasse chains held at the band's temperature; the report has the level's row."""
    out = tmp_path / "la"
    assert bench.main(["--data", str(data), "--levels", "45", "--per-level", "2",
                       "--limit", "20", "--out", str(out)]) == 0  # fmt: skip
    result = json.loads(out.with_suffix(".json").read_text())
    rows = result["rows"]
    assert [(r["name"], r["method"]) for r in rows] == [
        ("inst25x25_45_0", "exact"), ("inst25x25_45_1", "impasse")]  # fmt: skip
    assert all(r["solved"] for r in rows)
    assert rows[0]["moves"] == 0 and rows[1]["t0"] == temperature_at(5, 45.0)
    report = out.with_suffix(".md").read_text()
    assert f"| 45 | gpu-anneal | {temperature_at(5, 45.0):g} | 2/2 | 1 |" in report


def test_the_impasse_method_at_a_t0_holds_every_chain_there(data, tmp_path):
    """--method impasse --t0 runs the chains alone at that temperature, and the report says
    it."""
    out = tmp_path / "la"
    assert bench.main(["--data", str(data), "--levels", "45", "--per-level", "1",
                       "--limit", "20", "--method", "impasse", "--t0", "0.33",
                       "--out", str(out)]) == 0  # fmt: skip
    rows = json.loads(out.with_suffix(".json").read_text())["rows"]
    assert [(r["name"], r["method"], r["t0"]) for r in rows] == [
        ("inst25x25_45_0", "impasse", 0.33)]  # fmt: skip
    assert "| 45 | gpu-anneal | 0.33 | 1/1 | 0 |" in out.with_suffix(".md").read_text()


def test_an_unsolved_instance_counts_as_infinitely_slow():
    """The median and slowest of a level with an unsolved instance fall past the limit."""
    rows = [{"solved": True, "seconds": 1.0}, {"solved": False, "seconds": 9.0}]
    assert bench.summary(rows) == {"solved": 1, "instances": 2, "median": None, "p90": None,
                                   "max": None}  # fmt: skip
    rows.append({"solved": True, "seconds": 2.0})
    assert bench.summary(rows)["median"] == 2.0


@pytest.mark.parametrize(
    ("argv", "says"),
    [(["--peers", "acs"], "--peers: 'acs' is not one of cp-sat"),
     (["--size", "36"], "general_36x36.tsv is not a file"),
     (["--t0", "0.3"], "--t0 holds the impasse chains: give --method impasse with it")],
)  # fmt: skip
def test_a_bad_argument_stops_with_one_line(data, tmp_path, capsys, argv, says):
    """An unknown peer, a set that is not there or a --t0 without the chains: exit 2 and one
    line naming it."""
    code = bench.main(["--data", str(data), "--out", str(tmp_path / "la"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and says in err and err.count("\n") == 1
