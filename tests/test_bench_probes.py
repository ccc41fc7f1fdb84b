"""The experiment benchmarks' own logic: the conflicted cells of bench_hybrid_36 and the
focused chain of bench_focus_9x9 (its conflict set kept right, the same seed the same run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_exact_peers import full_grid
from benchmarks.bench_focus_9x9 import chain
from benchmarks.bench_hybrid_36 import conflicted
from cpu_reference.sudoku.batch import logic_fill

DATA = Path(__file__).parent / "data"


def conflicted_by_hand(grid, n):
    """The cells whose digit shows again among their peers, by brute force."""
    N = n * n
    g = grid.reshape(N, N)
    out = np.zeros((N, N), bool)
    for r in range(N):
        for k in range(N):
            for r2 in range(N):
                for k2 in range(N):
                    same_unit = r == r2 or k == k2 or (r // n, k // n) == (r2 // n, k2 // n)
                    if (r, k) != (r2, k2) and same_unit and g[r, k] == g[r2, k2]:
                        out[r, k] = True
    return out.reshape(-1)


@pytest.mark.parametrize("n", [2, 3])
def test_conflicted_cells_match_brute_force(n):
    rng = np.random.default_rng(n)
    grid = full_grid(n, rng).reshape(-1)
    assert not conflicted(grid, n).any()
    for _ in range(5):
        broken = grid.copy()
        broken[rng.integers(grid.size, size=3)] = rng.integers(1, n * n + 1, size=3)
        assert np.array_equal(conflicted(broken, n), conflicted_by_hand(broken, n))


def lloyd_amos_9x9():
    """inst9x9_40_1 (Lloyd & Amos, 40 % filled): 35 cells left after the deductions."""
    for line in (DATA / "general_9x9_head.tsv").read_text().splitlines():
        name, _, values = line.split("\t")
        if name == "inst9x9_40_1":
            filled, masks = logic_fill(np.array(values.split(","), np.uint8), 3)
            return filled.astype(np.int64), masks
    raise AssertionError("inst9x9_40_1 missing")


def test_chain_meets_solutions_replays_and_focus_helps():
    """Fixed seed: both cell choices meet solutions (at least 20 in 400,000 proposals), the same
    seed gives the same run, and choosing only conflicted cells (q = 1) meets more than the
    uniform choice; with a stale conflict set the focused chain would stall instead."""
    filled, masks = lloyd_amos_9x9()
    uniform = chain(filled, masks, 0.5, 0.0, 20_000, 400_000, 1)
    focused = chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1)
    assert uniform[1] == focused[1] == 400_000
    assert uniform[0] >= 20 and focused[0] > uniform[0]
    assert chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1) == focused
