"""benchmarks.bench_frontier_weighted: weighted impasse chains price a move by the weights of
the cells it opens, keep their grids legal, raise the weights of open cells, and solve."""

from __future__ import annotations

import numpy as np
import pytest
from frontier_solve import assert_solves_16x16
from test_impasse import assert_legal, lewis

from benchmarks import bench_frontier_weighted as bw
from cpu_reference.sudoku import impasse


def started(cells, order: int, seed: int):
    """A fresh chain's arguments (impasse.chain_arrays, one chain) and its cell weights."""
    args = list(impasse.chain_arrays(impasse.impasse_tables(cells, order), order, 1, seed, 0.32))
    return args, np.full(order**4, bw.SCALE, np.int64)


def run(args, cw, moves: int, temperature: float, setting: tuple) -> None:
    """`moves` moves of the chain at this temperature and (BUMP, EVERY, RHO)."""
    bw.weighted_moves(moves, *args[:9], *args[10:16], cw, bw.heat_table(temperature),
                      np.array(setting, np.float64))  # fmt: skip


def test_at_even_weights_a_move_costs_the_engines_change_times_the_scale():
    """With every weight SCALE, writing d into an open cell changes the weighted cost by SCALE
    times impasse.cell_delta, for every open cell and candidate of a chain under way."""
    cells = lewis(5, 45)
    args, cw = started(cells, 5, 3)
    run(args, cw, 2_000, 0.32, (0, 1, 0))
    _, _, cand, ncand, units = impasse.impasse_tables(cells, 5)
    oset, holder = args[impasse.OSET], args[impasse.HOLDER]
    checked = 0
    for x in oset[0, 1 : 1 + oset[0, 0]]:
        for d in cand[x, : ncand[x]]:
            got = bw.weighted_delta(int(x), int(d), holder, units, 25, cw)
            assert got == bw.SCALE * impasse.cell_delta(0, int(x), int(d), holder, units, 25)
            checked += 1
    assert checked > 0


def test_a_heavier_holder_costs_more_to_open():
    """Raising the weight of the cell that holds d in an open cell's unit raises the price of
    writing d there by as much."""
    cells = lewis(5, 45)
    args, cw = started(cells, 5, 4)
    run(args, cw, 2_000, 0.32, (0, 1, 0))
    _, _, cand, ncand, units = impasse.impasse_tables(cells, 5)
    holder = args[impasse.HOLDER]
    oset = args[impasse.OSET]
    for x in oset[0, 1 : 1 + oset[0, 0]]:
        for d in cand[x, : ncand[x]]:
            y = holder[0, int(units[x, 0]) * 26 + int(d)]
            if y >= 0:
                before = bw.weighted_delta(int(x), int(d), holder, units, 25, cw)
                cw[y] += 5
                assert bw.weighted_delta(int(x), int(d), holder, units, 25, cw) == before + 5
                return
    pytest.fail("no open cell with a held candidate")


def test_moves_keep_the_grid_legal_and_raise_only_weights_of_cells_left_open():
    """25x25 at 45 %, a bump every move, no smoothing: the chain's grid stays legal with its
    holders, open set and best exact; a weight rises from SCALE only on a free cell, within
    CAP."""
    cells = lewis(5, 45)
    args, cw = started(cells, 5, 5)
    run(args, cw, 20_000, 0.32, (1, 1, 0))
    assert_legal(args, cells, 5)
    free = impasse.impasse_tables(cells, 5)[1]
    raised = np.flatnonzero(cw > bw.SCALE)
    assert raised.size > 0 and set(raised.tolist()) <= set(free.tolist())
    assert cw.max() <= bw.CAP and cw.min() >= bw.SCALE


def test_full_smoothing_brings_every_weight_down_by_one():
    """With RHO 1 and a bump of 0 every weight above SCALE loses one at each look."""
    cells = lewis(5, 45)
    args, cw = started(cells, 5, 6)
    cw[:] = bw.SCALE + 3
    run(args, cw, 2, 0.32, (0, 1, 1.0))  # a bump of 0 makes no look: weights unchanged
    assert (cw == bw.SCALE + 3).all()
    run(args, cw, 2, 0.32, (1, 1, 1.0))
    assert cw.min() >= bw.SCALE + 1 and cw.max() <= bw.SCALE + 3


def test_a_setting_of_the_wrong_form_is_refused():
    """T:BUMP:EVERY:RHO with T above 0 and EVERY at least 1, else ValueError naming the form."""
    cells = lewis(4, 45)
    for setting in ("0.3:1:1000", "0:1:1000:0", "0.3:1:0:0"):
        with pytest.raises(ValueError, match="T:BUMP:EVERY:RHO"):
            bw.weighted_solve(cells, 4, setting, 1, 1.0, 1)


@pytest.mark.parametrize("setting", ["0.32:0:1000:0", "0.32:1:100:0.5"])
def test_weighted_chains_solve_a_16x16_puzzle(setting):
    """Two chains, with and without weights, solve a 16x16 instance at 45 %."""
    assert_solves_16x16(bw.weighted_solve, setting)
