"""benchmarks.bench_frontier_quantum: the coupling, the replicas' state, the energy's rule, its
settings (its solves: tests/test_frontier_chains.py)."""

from __future__ import annotations

import numpy as np
import pytest
from tabu_chain_state import checked_cost

from benchmarks import bench_frontier_quantum as bq
from benchmarks.frontier_instances import make_instances


def _ring(setting: str, seed: int = 3):
    inst = make_instances([5], [45], 1, 7)[0]
    params = bq.parse_setting(setting)
    (shared, reps), state = bq.new_ring(inst.cells, 5, params, seed)
    return inst, params, shared, reps, state


def test_the_coupling_is_near_zero_at_a_large_field_and_grows_as_it_falls():
    fields = [4.0, 1.0, 0.3, 0.03, 0.003]
    couplings = [bq.coupling(0.4, g) for g in fields]
    assert couplings[0] < 1e-6
    assert all(a < b for a, b in zip(couplings, couplings[1:], strict=False))
    assert couplings[-1] == pytest.approx(-0.2 * np.log(np.tanh(0.003 / 0.4)))


def test_every_replica_keeps_its_candidates_counts_and_conflict_set_exact():
    """25x25 at 45 %: after sweeps through two fresh starts, each replica holds the givens and
    candidates only, and its counts, conflicts and conflict set are its grid's recounted."""
    inst, params, shared, reps, state = _ring("4:0.45:0.3:0.5:300:1")
    bq.run_sweeps(5, 700, shared, reps, state, params)
    assert state[1] == 2 and state[2] == 4 * 700  # two trials ended, a fresh start between
    for k in range(4):
        checked_cost((*shared, *(r[k] for r in reps), None), 5)


def test_a_solved_ring_counts_its_proposals_up_to_the_replica_that_solved():
    """16x16 at 45 %: the sweep that solves stops at the solving replica, and the proposals
    counted are P for every whole sweep plus one for each replica up to that one."""
    inst = make_instances([4], [45], 1, 7)[0]
    params = bq.parse_setting("4:0.45:0.3:0.5:20000:3")
    (shared, reps), state = bq.new_ring(inst.cells, 4, params, seed=2)
    for _ in range(500):
        bq.run_sweeps(4, 200, shared, reps, state, params)
        if state[3]:
            break
    assert state[3] >= 1, "the ring did not solve the 16x16 grid"
    assert reps[3][state[3] - 1][0] == 0  # that replica has no cell in conflict
    assert (state[2] - state[3]) % 4 == 0


def test_a_strong_coupling_pulls_the_replicas_onto_one_grid():
    """With a small field held (SWEEPS 1: every sweep starts a trial at G0), the replicas agree
    on more cells after the sweeps than at their random starts, and than replicas under a
    large field (no coupling to speak of) do."""

    def agreement(setting: str) -> tuple[float, float]:
        _, params, shared, reps, state = _ring(setting, seed=5)
        free = np.flatnonzero(shared[3])
        grids = reps[0]
        before = np.mean([(grids[k][free] == grids[k + 1][free]).mean() for k in range(3)])
        bq.run_sweeps(5, 4000, shared, reps, state, params)
        after = np.mean([(grids[k][free] == grids[k + 1][free]).mean() for k in range(3)])
        return before, after

    before, coupled = agreement("4:0.3:0.3:0.000001:1:1000000")
    _, free = agreement("4:0.3:0.3:1000:1000000000:0")
    assert coupled > before + 0.2
    assert coupled > free + 0.2


def test_a_malformed_setting_is_refused():
    with pytest.raises(ValueError, match="P:T0:T1:G0:SWEEPS:REHEATS"):
        bq.parse_setting("10:0.45:0.3")
    with pytest.raises(ValueError, match="P >= 2"):
        bq.parse_setting("1:0.45:0.3:0.5:1000:3")
    with pytest.raises(ValueError, match="P:T0:T1"):
        bq.parse_setting("10:hot:0.3:0.5:1000:3")
