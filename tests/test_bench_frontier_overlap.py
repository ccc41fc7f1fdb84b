"""benchmarks.bench_frontier_overlap: the free cells a near-solution shares with the planted
grid, and how far apart runs' best grids are."""

from __future__ import annotations

import json

import numpy as np

from benchmarks import bench_frontier_overlap as bo


def test_overlap_splits_the_free_cells_into_agree_differ_and_open():
    """Free cells 0..5 of a grid against its planted grid: 2 alike, 3 filled otherwise, 1 open;
    a cell outside the free ones is not counted."""
    planted = np.array([1, 2, 3, 4, 5, 6, 7])
    best = np.array([1, 2, 4, 3, 6, 0, 9])
    got = bo.overlap(best, planted, np.arange(6))
    assert got == {"agree": 2, "differ": 3, "open": 1}


def test_apart_counts_the_free_cells_each_pair_fills_differently():
    """Three grids on free cells 0..2: pairs (a, b), (a, c), (b, c) in that order."""
    a, b, c = np.array([1, 2, 3, 9]), np.array([1, 3, 3, 8]), np.array([2, 3, 1, 9])
    assert bo.apart([a, b, c], np.arange(3)) == [1, 3, 2]


def test_chance_is_the_mean_of_one_over_the_candidates():
    """Two free cells of 2 and 4 candidates: (1/2 + 1/4) / 2."""
    ncand = np.array([9, 2, 4], np.uint8)
    tables = (None, np.array([1, 2]), None, ncand, None)
    assert bo.chance(tables) == 0.375


def test_a_run_accounts_for_every_free_cell_of_every_run(tmp_path):
    """16x16 at 45 %, two chains' seeds, 5 s a run: each run's agree, differ and open add up to
    the instance's free cells, a solved run has none open, and the report names each run."""
    out = tmp_path / "overlap"
    argv = ["--order", "4", "--fill", "45", "--count", "1", "--limit", "5",
            "--chain-seeds", "1,2", "--out", str(out)]  # fmt: skip
    assert bo.main(argv) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    (entry,) = result["instances"]
    assert len(entry["runs"]) == 2 and len(entry["apart"]) == 1
    for run in entry["runs"]:
        assert run["agree"] + run["differ"] + run["open"] == entry["free"]
        assert run["status"] != "solved" or run["open"] == 0
    report = out.with_suffix(".md").read_text()
    assert "1: " in report and "2: " in report and entry["instance"] in report


def test_solutions_seen_counts_the_planted_grid_and_each_other_solution_once():
    """Four runs: a solved one equal to the planted grid, two solved ones on the same other
    grid, one unsolved: two solutions seen; with the two others apart, three."""

    def run(status: str, differ: int) -> dict:
        return {"status": status, "differ": differ, "open": 0 if status == "solved" else 2}

    runs = [run("solved", 0), run("solved", 40), run("solved", 40), run("unsolved", 30)]
    # pairs in order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    same = {"runs": runs, "apart": [40, 40, 30, 0, 35, 35]}
    assert bo.solutions_seen(same) == 2
    assert bo.solutions_seen({**same, "apart": [40, 40, 30, 12, 35, 35]}) == 3
    assert bo.solutions_seen({"runs": runs[3:], "apart": []}) == 1


def test_a_single_run_renders_without_a_pair_to_compare(recwarn):
    """One chains' seed: no pair of runs, so the apart cell is empty and nothing warns."""
    run = {"chain_seed": 1, "status": "unsolved", "open": 2, "agree": 40, "differ": 58}
    entry = {"instance": "inst16x16_45_0", "free": 100, "chance": 0.25, "apart": [],
             "runs": [run]}  # fmt: skip
    result = {"command": "c", "commit": "x", "machine": {}, "order": 4, "fill": 45, "seed": 1,
              "limit": 1.0, "temperature": 0.3, "instances": [entry]}  # fmt: skip
    row = [line for line in bo.render(result).splitlines() if "inst16x16_45_0" in line][0]
    assert row.endswith("| 25 % |  | 1 |") and not recwarn.list
