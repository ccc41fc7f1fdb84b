"""benchmarks.bench_frontier_impasse: chains on partial legal grids stay legal, keep their
holders and open set exact, and solve."""

from __future__ import annotations

import numpy as np
import pytest
from frontier_solve import assert_solves_16x16

from benchmarks import bench_frontier_impasse as bi
from benchmarks.frontier_instances import make_instances


def checked_open(chain, order: int) -> int:
    """Every free cell open or on one of its candidates, the deduced cells kept, no unit
    holding a digit twice, the holders and the open set those of the grid; returns the number
    of open cells."""
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    N = order * order
    free = np.flatnonzero(movable)
    assert all(grid[c] == 0 or grid[c] in cand[c, : ncand[c]] for c in free)
    assert np.array_equal(grid[filled > 0], filled[filled > 0])
    expected = np.full_like(holder, -1)
    for cell in range(N * N):
        if grid[cell]:
            for u in units[cell]:
                assert expected[u, grid[cell]] < 0, "a unit holds a digit twice"
                expected[u, grid[cell]] = cell
    assert np.array_equal(holder, expected)
    open_cells = {int(c) for c in free if grid[c] == 0}
    assert set(oset[1 : 1 + oset[0]].tolist()) == open_cells
    assert all(oset[1 + where[c]] == c for c in open_cells)
    assert all(where[c] == -1 for c in range(N * N) if c not in open_cells)
    return len(open_cells)


def started(order: int, fill: int, seed: int):
    """(chain, state) of a fresh impasse chain on one Lewis-style instance."""
    inst = make_instances([order], [fill], 1, 7)[0]
    return bi.new_chain(inst.cells, order, seed=seed)


def test_moves_and_restarts_keep_a_chain_legal_and_exact():
    """25x25 at 45 %: after moves at a hot temperature (every move of cost +1 or +2 likely
    taken) and restarts every 50 moves, the chain is legal and its state recounted from its
    grid, and state[0] counts its open cells."""
    chain, state = started(5, 45, 3)
    assert state[0] == checked_open(chain, 5)
    params = np.array([5.0, 5.0, 50.0])
    for _ in range(40):
        bi.run_steps(5, 17, chain, state, params)
        assert state[0] == checked_open(chain, 5)
    assert state[2] >= 10 and state[3] > 0


def test_a_move_opens_the_holders_of_its_digit_and_returns_the_change_of_cost():
    """Each accepted move changes the open cells by the change of cost it returns, writes its
    digit into a cell that was open, and opens only cells that held that digit."""
    chain, state = started(4, 45, 5)
    grid, oset = chain[5], chain[7]
    written_moves = 0
    for _ in range(300):
        before = grid.copy()
        open_before = int(oset[0])
        delta = bi.impasse_move(chain, np.exp(-1.0), np.exp(-2.0))  # T = 1: rises taken too
        assert int(oset[0]) == open_before + delta
        changed = np.flatnonzero(grid != before)
        written = [c for c in changed if grid[c]]
        assert len(written) <= 1
        if written:
            written_moves += 1
            d = grid[written[0]]
            assert before[written[0]] == 0
            assert all(before[c] == d for c in changed if c != written[0])
        checked_open(chain, 4)
    assert written_moves > 100


def test_replica_exchange_keeps_every_replica_legal_and_its_rungs_a_permutation():
    """25x25 at 45 %, four replicas: after rounds of moves and exchanges every replica is
    legal and exact, each temperature held by one replica, state[0] the fewest open cells,
    and exchanges happened (the rungs moved)."""
    inst = make_instances([5], [45], 1, 7)[0]
    chain, ladder, state = bi.new_ladder(inst.cells, 5, 3, 4)
    grids, holders, osets, wheres, rung = ladder
    params = bi.ladder_settings("pt4/0.8:2.0:25")[1]
    moved = 0
    for _ in range(30):
        before = rung.copy()
        bi.run_ladder(5, 3, chain, ladder, state, params)
        moved += not np.array_equal(before, rung)
        assert sorted(rung.tolist()) == [0, 1, 2, 3]
        opens = []
        for r in range(4):
            own = (*chain[:5], grids[r], holders[r], osets[r], wheres[r])
            opens.append(checked_open(own, 5))
        assert state[0] == min(opens)
    assert moved > 5


def test_replica_exchange_solves_a_16x16_puzzle():
    """Two ladders of three replicas solve a 16x16 instance at 45 % within the limit."""
    assert_solves_16x16(bi.impasse_solve, "pt3/0.3:0.5:2000")


def test_partialcol_steps_keep_a_chain_legal_and_record_the_best():
    """25x25 at 45 %: PartialCol steps with restarts every 60 steps keep the chain legal and
    exact, state[0] its open cells and state[5] at most the trial's open cells seen."""
    chain, state = started(5, 45, 5)
    tabu = np.zeros((5**4, 26), np.int64)
    params = bi.tabu_settings("tabu/10:0.6:60")
    for _ in range(40):
        bi.run_partialcol(5, 7, chain, tabu, state, params)
        assert state[0] == checked_open(chain, 5)
        assert state[5] <= state[0]
    assert state[2] >= 3


def test_partialcol_solves_a_16x16_puzzle():
    """Two PartialCol chains solve a 16x16 instance at 45 % within the limit."""
    assert_solves_16x16(bi.impasse_solve, "tabu/10:0.6:100000")


def test_heat_bath_moves_keep_a_chain_legal_and_return_the_change_of_cost():
    """Heat-bath moves at T = 1 change the open cells by what they return and leave the chain
    legal and exact; some write a digit, some leave the cell open."""
    chain, state = started(4, 45, 5)
    oset = chain[7]
    weights = np.exp(-np.arange(-1.0, 3.0))  # exp(-delta / T) at T = 1
    deltas = np.zeros(16, np.int64)
    rng = np.array([bi.xorshift_seed(3)]).view(np.uint64)
    moved = 0
    for _ in range(300):
        open_before = int(oset[0])
        delta = bi.heat_bath_move(chain, weights, deltas, rng)
        assert int(oset[0]) == open_before + delta
        moved += delta != 0
        checked_open(chain, 4)
    assert 30 < moved < 300


def test_the_chain_generator_draws_evenly_in_range():
    """_below(n) stays in 0..n-1 and hits each value about n / draws times (within 10 %);
    _uniform stays in [0, 1) with a mean near 1/2; seeds give different states, never 0."""
    rng = np.array([bi.xorshift_seed(11)]).view(np.uint64)
    counts = np.zeros(7, np.int64)
    for _ in range(70_000):
        counts[bi._below(rng, 7)] += 1
    assert counts.min() > 9_000 and counts.max() < 11_000
    draws = [bi._uniform(rng) for _ in range(20_000)]
    assert 0.0 <= min(draws) and max(draws) < 1.0 and abs(np.mean(draws) - 0.5) < 0.01
    seeds = {int(bi.xorshift_seed(k)) for k in range(100)}
    assert len(seeds) == 100 and 0 not in seeds


def test_a_trial_starts_from_a_greedy_legal_fill():
    """A fresh trial leaves open only cells that no candidate could fill without a clash."""
    chain, _ = started(5, 45, 9)
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    for cell in oset[1 : 1 + oset[0]]:
        for d in cand[cell, : ncand[cell]]:
            assert any(holder[u, d] >= 0 for u in units[cell])


def test_impasse_solves_a_16x16_puzzle():
    """Two chains solve a 16x16 instance at 45 % within the limit: a full grid, every unit
    holding each digit once, the givens kept."""
    assert_solves_16x16(bi.impasse_solve, "0.4:0.2:5000000")


def test_a_malformed_setting_is_refused():
    """T0:T1:STEPS[:DT] with a missing part, a temperature of 0, or a spread that takes a
    chain's temperature to 0 or below is a ValueError naming the form."""
    inst = make_instances([4], [45], 1, 7)[0]
    refused = (("0.3:0.2", 1), ("0:0.2:100", 1), ("0.3:0.2:100:-0.1", 3), ("a:b:c", 1))
    for setting, chains in refused:
        with pytest.raises(ValueError, match=r"T0:T1:STEPS\[:DT\]"):
            bi.impasse_solve(inst.cells, 4, setting, chains, 1.0, 1)
    for setting in ("pt1/0.3:0.4:10", "pt4/0:0.4:10", "pt4/0.3:0.4", "ptx/0.3:0.4:10"):
        with pytest.raises(ValueError, match=r"ptR/T_LOW:T_HIGH:MOVES"):
            bi.impasse_solve(inst.cells, 4, setting, 2, 1.0, 1)
    for setting in ("tabu/10:0.6", "tabu/-1:0.6:100", "tabu/a:b:c"):
        with pytest.raises(ValueError, match=r"tabu/L:LAMBDA:STEPS"):
            bi.impasse_solve(inst.cells, 4, setting, 2, 1.0, 1)


def test_a_spread_gives_each_chain_its_temperature():
    """T0:T1:STEPS:DT gives chain i T0 + i DT down to T1 + i DT; without DT every chain runs
    the same temperatures."""
    spread = bi.chain_settings("0.26:0.25:1e12:0.01", 3)
    expected = [[0.26, 0.25, 1e12, 0], [0.27, 0.26, 1e12, 0], [0.28, 0.27, 1e12, 0]]
    assert np.allclose(np.array(spread), np.array(expected), rtol=0, atol=1e-12)
    same = bi.chain_settings("0.3:0.2:500", 2)
    assert [s.tolist() for s in same] == [[0.3, 0.2, 500.0, 0.0], [0.3, 0.2, 500.0, 0.0]]
    heat = bi.chain_settings("heat/0.3:0.2:500", 1)
    assert heat[0].tolist() == [0.3, 0.2, 500.0, 1.0]
