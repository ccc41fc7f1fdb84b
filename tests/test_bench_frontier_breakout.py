"""benchmarks.bench_frontier_breakout: breakout chains keep their invariants, raise the weights
of what is in conflict at a local minimum, and solve."""

from __future__ import annotations

import numpy as np
from frontier_solve import assert_solves_16x16
from tabu_chain_state import checked_cost

from benchmarks import bench_frontier_breakout as bb
from benchmarks import bench_frontier_tabu as bt
from benchmarks.frontier_instances import make_instances


def started(order: int, fill: int, seed: int):
    """(chain, weight, state) of a fresh breakout chain on one Lewis-style instance."""
    inst = make_instances([order], [fill], 1, 7)[0]
    chain, state = bt.new_chain(inst.cells, order, seed=seed)
    N = order * order
    return chain, np.ones((3 * N, N + 1), np.int64), state


def in_conflict(chain) -> set[tuple[int, int]]:
    """The (unit, digit) pairs that two or more cells hold."""
    count = chain[7]
    return {(int(u), int(d)) for u, d in zip(*np.nonzero(count >= 2), strict=True) if d > 0}


def test_a_chain_keeps_its_candidates_cost_and_conflict_set_exact():
    """16x16 at 45 %: after breakout steps (restarts included) the chain's state is the one
    recounted from its grid, state[0] is that grid's cost, and a restart resets the weights."""
    chain, weight, state = started(4, 45, 3)
    assert state[0] == checked_cost(chain, 4)
    params = np.array([0.0, 7.0])  # a restart after 7 steps without a new best
    for _ in range(60):
        bb.run_steps(4, 9, chain, weight, state, params)
        assert state[0] == checked_cost(chain, 4)
        if state[4] >= 2 or state[6]:
            break
    assert state[4] >= 2 and state[5] > 0


def test_a_breakout_raises_each_unit_and_digit_in_conflict_once():
    """Every (unit, digit) two cells hold gains exactly 1, the others none, and the counts are
    left as they were (the marks undone)."""
    chain, weight, _ = started(4, 45, 5)
    count = chain[7].copy()
    conflicted = in_conflict(chain)
    assert conflicted
    bb.breakout(16, chain[7], weight, chain[9], chain[6], chain[4], 0.0)
    assert np.array_equal(chain[7], count)
    raised = {(int(u), int(d)) for u, d in zip(*np.nonzero(weight == 2), strict=True)}
    assert raised == conflicted
    assert int((weight > 2).sum()) == 0


def test_smoothing_lowers_weights_above_one_only():
    """With RHO = 1 a breakout raises the conflicted weights, then lowers every weight above 1:
    weights of 5 end at 4 (or 5 where raised), weights of 1 stay 1."""
    chain, weight, _ = started(4, 45, 5)
    weight[:, 1] = 5
    conflicted = in_conflict(chain)
    bb.breakout(16, chain[7], weight, chain[9], chain[6], chain[4], 1.0)
    for u in range(48):
        for d in range(1, 17):
            base = 5 if d == 1 else 1
            expected = base + ((u, d) in conflicted)
            assert weight[u, d] == (expected - 1 if expected > 1 else 1)


def test_breakout_solves_a_16x16_puzzle():
    """Two chains solve a 16x16 instance at 45 % within the limit: a full grid, every unit
    holding each digit once, the givens kept."""
    assert_solves_16x16(bb.breakout_solve, "0:0")
