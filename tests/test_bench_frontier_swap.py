"""benchmarks.bench_frontier_swap: box-permutation chains keep their invariants and solve."""

from __future__ import annotations

import numpy as np

from benchmarks import bench_frontier_swap as bs
from benchmarks.frontier_instances import make_instances


def _invariants(chain, order: int) -> int:
    """Every box a permutation, every free cell on a candidate, the givens kept, the counts,
    the cost and the conflict set those of the grid recounted from scratch."""
    filled, masks, movable, _, _, _, grid, row_count, col_count, cset, where = chain
    N = order * order
    boxes = grid.reshape(order, order, order, order).transpose(0, 2, 1, 3).reshape(N, N)
    assert all(sorted(box) == list(range(1, N + 1)) for box in boxes.tolist())
    assert np.all((masks >> (grid - 1)) & 1)
    assert np.array_equal(grid[filled > 0], filled[filled > 0])
    rows, cols = np.zeros_like(row_count), np.zeros_like(col_count)
    cost = bs.count_lines(N, grid, rows, cols)
    assert np.array_equal(rows, row_count) and np.array_equal(cols, col_count)
    expected = {c for c in np.flatnonzero(movable)
                if rows[c // N, grid[c]] > 1 or cols[c % N, grid[c]] > 1}  # fmt: skip
    assert set(cset[1 : 1 + cset[0]].tolist()) == expected
    assert all(cset[1 + where[c]] == c for c in expected)
    return cost


def test_a_chain_keeps_its_boxes_candidates_cost_and_conflict_set_exact():
    """16x16 at 45 %: after plateaus of swaps (restarts included) the chain's state is the one
    recounted from its grid, and state[0] is that grid's cost."""
    inst = make_instances([4], [45], 1, 7)[0]
    chain, state = bs.new_chain(inst.cells, 4, seed=3)
    _invariants(chain, 4)
    params = np.array([0.7, 0.55, 3.0, 0.6, 1.0])  # trials of 3 plateaus: fresh grids too
    for _ in range(6):
        bs.run_plateaus(4, 5, chain, state, params)
        cost = _invariants(chain, 4)
        assert state[0] == cost
    assert state[3] >= 4 and state[4] > 0
