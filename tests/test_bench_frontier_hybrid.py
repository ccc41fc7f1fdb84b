"""benchmarks/bench_frontier_hybrid.py: annealing with the exact solver beside it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks import bench_frontier_hybrid as bh
from benchmarks.bench_frontier import checked
from benchmarks.frontier_instances import make_instances, pattern_grid
from cpu_reference.sudoku.verify import conflicted_cells


@pytest.mark.parametrize("order", [3, 4])
def test_conflicts_and_units_around_match_a_cell_by_cell_count(order):
    """The repair's cells in conflict (verify.conflicted_cells) are exactly the cells a peer
    shares their digit with; around marks exactly the cells sharing a row, column or box with
    one of the given cells."""
    N = order * order
    rng = np.random.default_rng(order)
    grid = pattern_grid(order, rng).ravel()
    assert not conflicted_cells(grid, order).any()
    grid[rng.choice(grid.size, size=5, replace=False)] = rng.integers(1, N + 1, size=5)
    r, c = np.divmod(np.arange(grid.size), N)
    b = (r // order) * order + c // order
    peers = (r[:, None] == r) | (c[:, None] == c) | (b[:, None] == b)
    np.fill_diagonal(peers, False)
    want = ((grid[:, None] == grid[None, :]) & peers).any(axis=1)
    assert want.any() and np.array_equal(conflicted_cells(grid, order), want)
    picked = np.array([0, grid.size - 1])
    assert np.array_equal(bh.around(order, picked), (peers[picked].any(axis=0)) | np.isin(
        np.arange(grid.size), picked))  # fmt: skip


@pytest.mark.parametrize("method", ["repair 1:100000:20000", "guided 1:20000", "search 1:20000"])
def test_each_hybrid_solves_by_its_exact_search_and_the_verifier_passes_it(method):
    """With every chain repaired (cost bound above any cost), or a guided or unguided search
    after each plateau, the exact search finds a 16x16 puzzle's solution before annealing does;
    it passes the verifier and the row names the hybrid."""
    inst = make_instances([4], [45], 1, 2)[0]
    got = bh.hybrid(inst.cells.astype(np.uint8), 4, method, 30.0, 2)
    row = checked(got, inst, 30.0)
    assert row["solved"] and row["verified"], row
    assert row["by"] == method.split()[0] and row["searches"] >= 1


def test_measure_and_report_on_16x16():
    """measure runs every method on every instance and the report shows each method's row."""
    args = SimpleNamespace(order=4, fill=45, count=2, seed=2, limit=10.0,
                           method=["anneal 20", "repair 20:4:2000"], out=None)  # fmt: skip
    result = bh.measure(args)
    assert [r["method"] for r in result["table"]] == args.method
    for entry in result["table"]:
        assert entry["solved"] == 2 and all(r["verified"] for r in entry["rows"])
    text = bh.render(result)
    assert "| anneal 20 | 2/2 |" in text and "| repair 20:4:2000 | 2/2 |" in text


def test_append_adds_methods_replaces_a_remeasured_one_and_refuses_other_instances():
    """--append keeps the earlier methods, replaces the rows of a method measured again, keeps
    every run's command, and refuses a run on other instances."""
    args = dict(order=4, fill=45, count=2, seed=2, limit=10.0)

    def run(methods, command, **changed):
        table = [{"method": m, "solved": 0, "instances": 2, "times": [], "rows": []}
                 for m in methods]  # fmt: skip
        return {"args": {**args, **changed}, "table": table,
                "runs": [{"machine": {}, "command": command}]}  # fmt: skip

    merged = bh.appended(run(["anneal 20", "guided 20:99"], "a"), run(["guided 20:99", "x 1"], "b"))
    assert [r["method"] for r in merged["table"]] == ["anneal 20", "guided 20:99", "x 1"]
    assert [r["command"] for r in merged["runs"]] == ["a", "b"]
    with pytest.raises(ValueError, match="seed 2"):
        bh.appended(run(["anneal 20"], "a"), run(["x 1"], "b", seed=1))
