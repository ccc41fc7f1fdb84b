"""benchmarks.bench_frontier_tabu: tabu chains keep their invariants and solve."""

from __future__ import annotations

import numpy as np
from tabu_chain_state import checked_cost

from benchmarks import bench_frontier_tabu as bt
from benchmarks.frontier_instances import make_instances


def test_a_chain_keeps_its_candidates_cost_and_conflict_set_exact():
    """16x16 at 45 %: after tabu steps (restarts included) the chain's state is the one
    recounted from its grid, and state[0] is that grid's cost."""
    inst = make_instances([4], [45], 1, 7)[0]
    chain, state = bt.new_chain(inst.cells, 4, seed=3)
    assert state[0] == checked_cost(chain, 4)
    params = np.array([5.0, 0.3, 7.0])  # a restart after 7 steps without a new best
    for _ in range(60):
        bt.run_steps(4, 9, chain, state, params)
        assert state[0] == checked_cost(chain, 4)
        if state[4] >= 2 or state[6]:
            break
    assert state[4] >= 2 and state[5] > 0
