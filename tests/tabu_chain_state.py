"""The state a tabu chain of benchmarks.bench_frontier_tabu keeps (and each replica of
bench_frontier_quantum), checked against its grid recounted from scratch."""

from __future__ import annotations

import numpy as np


def checked_cost(chain, order: int) -> int:
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
