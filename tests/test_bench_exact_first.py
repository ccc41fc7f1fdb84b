"""benchmarks/bench_exact_first.py: the exact search's branch values as a head start."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from benchmarks import bench_exact_first as bench

HEAD = Path(__file__).parent / "data" / "general_25x25_head.tsv"  # inst25x25_45_0 and _1


def test_lewis_instances_are_searched_under_the_cap(tmp_path):
    """Every 16x16 instance at 45 % is answered within the cap (a solution found), and the
    report has its row."""
    out = tmp_path / "ef"
    assert bench.main(["--orders", "4", "--fills", "45", "--count", "2", "--out", str(out)]) == 0
    rows = json.loads(out.with_suffix(".json").read_text())["rows"]
    assert [r["name"] for r in rows] == ["inst16x16_45_0", "inst16x16_45_1"]
    assert all(r["count"] == 1 and 0 <= r["nodes"] <= 5000 for r in rows)
    assert "| lewis-seed4 | 16x16 | 45 | 2/2 |" in out.with_suffix(".md").read_text()


def test_the_cap_leaves_a_longer_search_unanswered(tmp_path):
    """Of the two Lloyd & Amos instances, a cap between their searches' lengths answers the
    shorter one alone; with room for both, both."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(HEAD, data / "general_25x25.tsv")
    runs = {}
    for cap in (40_000, None):
        out = tmp_path / f"ef{cap}"
        argv = ["--lloyd-amos", str(data), "--levels", "45", "--per-level", "2", "--orders",
                "4", "--fills", "45", "--count", "1", "--out", str(out)]  # fmt: skip
        if cap is None:  # between the two lengths found with room for both
            lengths = sorted(r["nodes"] for r in runs[40_000] if r["set"] == "lloyd-amos")
            argv += ["--la-max-nodes", str((lengths[0] + lengths[1]) // 2)]
        else:
            argv += ["--la-max-nodes", str(cap)]
        assert bench.main(argv) == 0
        runs[cap] = json.loads(out.with_suffix(".json").read_text())["rows"]
    both = [r for r in runs[40_000] if r["set"] == "lloyd-amos"]
    assert [r["count"] for r in both] == [1, 1] and both[0]["nodes"] != both[1]["nodes"]
    capped = [r for r in runs[None] if r["set"] == "lloyd-amos"]
    assert sorted(r["count"] for r in capped) == [-1, 1]


def test_a_folder_without_the_set_stops_with_one_line(tmp_path, capsys):
    code = bench.main(["--lloyd-amos", str(tmp_path), "--out", str(tmp_path / "ef")])
    err = capsys.readouterr().err
    assert code == 2 and "holds no general_25x25.tsv" in err and err.count("\n") == 1
