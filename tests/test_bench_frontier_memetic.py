"""benchmarks.bench_frontier_memetic: the crossover, the tabu improvement, its settings (its
solves: tests/test_frontier_chains.py)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bench_frontier_memetic as bm
from benchmarks import bench_frontier_tabu as bt
from benchmarks.frontier_instances import make_instances


def _chain(order: int, fill: int, seed: int):
    inst = make_instances([order], [fill], 1, 7)[0]
    chain, _ = bt.new_chain(inst.cells, order, seed)
    return inst, chain


def _random_grid(chain, order: int) -> np.ndarray:
    filled, cand, ncand = chain[0], chain[1], chain[2]
    grid = np.zeros_like(filled)
    bt.fresh_grid(order * order, filled, cand, ncand, grid)
    return grid


def _cost(grid, chain, order: int) -> int:
    units = chain[4]
    N = order * order
    count = np.zeros((3 * N, N + 1), np.int64)
    for cell in range(N * N):
        for u in units[cell]:
            count[u, grid[cell]] += 1
    return int((count * (count - 1) // 2).sum())


def test_a_child_of_one_grid_with_itself_is_that_grid():
    """Every digit's class comes whole from the parent, so no cell is left to chance."""
    _, chain = _chain(4, 45, 1)
    filled, cand, ncand = chain[0], chain[1], chain[2]
    parent = _random_grid(chain, 4)
    child = np.zeros_like(parent)
    bm.crossover(16, filled, cand, ncand, parent, parent.copy(), child,
                 np.zeros((2, 17), np.int64))  # fmt: skip
    assert np.array_equal(child, parent)


def test_a_child_keeps_the_givens_and_holds_candidates_mostly_its_parents():
    """The deduced cells stay; every free cell holds one of its candidates; a cell holding
    neither parent's digit was one no parent's class reached (filled at random), and those
    are few."""
    _, chain = _chain(5, 45, 2)
    filled, cand, ncand = chain[0], chain[1], chain[2]
    pa, pb = _random_grid(chain, 5), _random_grid(chain, 5)
    child = np.zeros_like(pa)
    bm.crossover(25, filled, cand, ncand, pa, pb, child, np.zeros((2, 26), np.int64))
    given = filled > 0
    assert np.array_equal(child[given], filled[given])
    free = np.flatnonzero(~given)
    assert all(child[c] in cand[c, : ncand[c]] for c in free)
    from_parents = (child[free] == pa[free]) | (child[free] == pb[free])
    assert from_parents.mean() > 0.8


def test_improve_keeps_the_lowest_cost_grid_it_saw_and_its_cost():
    """The returned cost is the kept grid's, recounted; no higher than the start's."""
    _, chain = _chain(5, 45, 3)
    start_cost = _cost(chain[6], chain, 5)
    best = np.zeros_like(chain[6])
    made = np.zeros(1, np.int64)
    cost = bm.improve(5, 300, chain, 5.0, 0.3, best, made)
    assert cost == _cost(best, chain, 5)
    assert cost <= start_cost
    assert made[0] == 300  # no solution within 300 steps: each one taken


def test_the_steps_counted_are_the_steps_taken_when_a_member_solves():
    """A 16x16 population solved while it is made counts the steps up to the solution, not
    POP x STEPS."""
    inst = make_instances([4], [45], 1, 7)[0]
    made = bm.new_population(inst.cells, 4, "4:1000000:5:0.3", seed=1)
    assert made is not None
    population, state = made
    assert state[2] >= 0  # a member solved while the population was made
    assert 0 < state[1] < (state[2] + 1) * 1_000_000


def test_a_malformed_setting_is_refused():
    with pytest.raises(ValueError, match="POP:STEPS:L_RAND:LAMBDA"):
        bm.parse_setting("10:2000")
    with pytest.raises(ValueError, match="POP at least 2"):
        bm.parse_setting("1:2000:5:0.3")
