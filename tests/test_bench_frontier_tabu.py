"""benchmarks.bench_frontier_tabu: tabu chains keep their invariants and solve."""

from __future__ import annotations

import numpy as np

from benchmarks import bench_frontier_tabu as bt
from benchmarks.frontier_instances import make_instances


def _invariants(chain, order: int) -> int:
    """Every free cell on a candidate, the givens kept, the counts, the conflicts, the cost and
    the conflict set those of the grid recounted from scratch."""
    filled, cand, ncand, movable, units, _, grid, count, conf, cset, where, _ = chain
    N = order * order
    free = np.flatnonzero(movable)
    assert all(grid[c] in cand[c, : ncand[c]] for c in free)
    assert np.array_equal(grid[filled > 0], filled[filled > 0])
    expected_count = np.zeros_like(count)
    for cell in range(N * N):
        for u in units[cell]:
            expected_count[u, grid[cell]] += 1
    assert np.array_equal(count, expected_count)
    cost = int((expected_count * (expected_count - 1) // 2).sum())
    peers = [sum(expected_count[u, grid[c]] - 1 for u in units[c]) for c in range(N * N)]
    assert all(conf[c] == peers[c] for c in free)
    expected = {c for c in free if peers[c] > 0}
    assert set(cset[1 : 1 + cset[0]].tolist()) == expected
    assert all(cset[1 + where[c]] == c for c in expected)
    return cost


def test_a_chain_keeps_its_candidates_cost_and_conflict_set_exact():
    """16x16 at 45 %: after tabu steps (restarts included) the chain's state is the one
    recounted from its grid, and state[0] is that grid's cost."""
    inst = make_instances([4], [45], 1, 7)[0]
    chain, state = bt.new_chain(inst.cells, 4, seed=3)
    assert state[0] == _invariants(chain, 4)
    params = np.array([5.0, 0.3, 7.0])  # a restart after 7 steps without a new best
    for _ in range(60):
        bt.run_steps(4, 9, chain, state, params)
        assert state[0] == _invariants(chain, 4)
        if state[4] >= 2 or state[6]:
            break
    assert state[4] >= 2 and state[5] > 0
