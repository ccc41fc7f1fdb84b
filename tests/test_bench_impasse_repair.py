"""benchmarks.bench_impasse_repair: the region an attempt blanks is the open cells and rings of
blockers as defined, and attempts on chains' near-solutions are counted by outcome, every
completion verified."""

from __future__ import annotations

import numpy as np
from test_impasse import lewis

from benchmarks import bench_impasse_repair as rp
from cpu_reference.sudoku import impasse


def near_solution(order: int, fill: int, slices: int = 30):
    """(cells, tables, grid): a chain's fewest-open grid after `slices` slices of 5,000 moves on
    a Lewis-style puzzle, while it is unsolved."""
    cells = lewis(order, fill)
    tables = impasse.impasse_tables(cells, order)
    args = list(impasse.chain_arrays(tables, order, 1, 5, 0.35))
    args[impasse.SLICE_AT] = 5_000
    for _ in range(slices):
        impasse.run_impasse_cpu(*args)
    assert not args[impasse.SOLVED][0]
    return cells, tables, args[impasse.BEST][0].copy()


def test_unit_members_are_the_rows_columns_and_boxes():
    """9x9: unit 0 is row 0, unit 9 column 0, unit 18 the top-left box, unit 26 the last box."""
    tables = impasse.impasse_tables(np.zeros(81, np.uint8), 3)
    members = rp.unit_members(tables[4], 9)
    assert members[0].tolist() == list(range(9))
    assert members[9].tolist() == list(range(0, 81, 9))
    assert members[18].tolist() == [0, 1, 2, 9, 10, 11, 18, 19, 20]
    assert members[26].tolist() == [60, 61, 62, 69, 70, 71, 78, 79, 80]


def test_the_region_is_the_open_cells_and_their_blockers_ring_by_ring():
    """25x25 at 45 %: depth 0 is the chain's open cells; each further ring is every free cell
    outside the region so far, sharing a unit with a cell of the last ring and holding one of
    that cell's candidates (checked cell by cell against the definition); regions grow."""
    cells, tables, grid = near_solution(5, 45)
    _, free, cand, ncand, units = tables
    open_cells = [int(x) for x in free if grid[x] == 0]
    assert rp.repair_region(grid, tables, 25, 0).tolist() == sorted(open_cells)
    region, ring = set(open_cells), set(open_cells)
    for depth in (1, 2):
        expected = {
            int(y) for x in ring for y in free
            if int(y) not in region and set(units[x]) & set(units[y])
            and grid[y] in cand[x, : ncand[x]]
        }  # fmt: skip
        region |= expected
        ring = expected
        assert rp.repair_region(grid, tables, 25, depth).tolist() == sorted(region)
    assert len(region) > len(open_cells)


def test_attempts_are_counted_by_outcome_and_completions_verified():
    """25x25 at 40 %, 60 slices (fixed seeds): the open cells alone (depth 0) complete none of
    the chains' grids (each open cell's candidates are held in its units), every free cell
    blanked (depth 6) completes all, each attempt has one outcome, and the chains' own solves
    are the same whatever the depth (attempts leave the chains alone)."""
    cells = lewis(5, 40)
    runs = {
        depth: rp.run_repairs(
            cells, 5, ("depth", depth), 6, 1e9, 5_000, 20_000, 0.35, 2, 1, max_slices=60
        )
        for depth in (0, 6)
    }
    for run in runs.values():
        assert run["attempts"] > 0
        assert run["completed"] + run["none"] + run["gave_up"] == run["attempts"]
    assert runs[0]["completed"] == 0 and runs[0]["none"] == runs[0]["attempts"]
    assert runs[6]["completed"] == runs[6]["attempts"]
    assert runs[6]["regions"] > runs[0]["regions"]
    assert runs[0]["chain_solves"] == runs[6]["chain_solves"]


def test_a_keep_blanks_every_free_cell_but_k_written_ones():
    """keep_region on a 25x25 chain's grid: the kept cells are K of the written free cells, the
    open ones always blanked, the givens never; K above the written ones keeps them all."""
    _, tables, grid = near_solution(5, 45)
    free = tables[1].astype(np.int64)
    written = free[grid[free] != 0]
    region = rp.keep_region(grid, tables, 30, np.random.default_rng(0))
    kept = np.setdiff1d(free, region)
    assert kept.size == 30 and np.isin(kept, written).all()
    assert np.isin(region, free).all() and np.isin(free[grid[free] == 0], region).all()
    everything = rp.keep_region(grid, tables, 10**6, np.random.default_rng(0))
    assert everything.tolist() == sorted(free[grid[free] == 0].tolist())


def test_a_main_run_writes_its_table(tmp_path):
    """main on a Lloyd & Amos file of a 25x25 grid: one run a rule, the table names each."""
    from benchmarks.frontier_instances import write_lloyd_amos

    path = tmp_path / "grid.txt"
    write_lloyd_amos(path, 5, lewis(5, 40))
    out = tmp_path / "repair"
    argv = [str(path), "--depths", "1", "--keeps", "100", "--seconds", "0.5", "--open", "6",
            "--slice-moves", "5000", "--out", str(out)]  # fmt: skip
    assert rp.main(argv) == 0
    text = (tmp_path / "repair.md").read_text()
    assert "| grid | depth 1 |" in text and "| grid | keep 100 |" in text
