"""The impasse chain with a second move, the recolouring move: an experiment for
benchmarks.bench_impasse_solve_rate (--recolours), not an engine option.

The engine's move (cpu_reference.sudoku.impasse) only writes into an open cell: a digit a
filled cell holds changes only by the cell being opened first. The recolouring move chooses
the cell for a digit instead of the digit for a cell, and may rewrite a filled cell in one
step. With probability P a move (fixed point, P x 2**16 over 2**16), after drawing the open cell
x as the engine's move does:

    k uniform in 0..2, u = units[x, k]        one of x's units
    d uniform among x's candidates            (the move does nothing when u holds d)
    y among places[u, d]: the free cells of u that may take d, x among them, each with
        weight w(delta_y), delta_y the change of cost of y taking d: the holders of d in y's
        units open (u holds none), and y closes if it was open (-1); a filled y leaves its
        digit and stays filled (0)

so a filled cell changes its digit without opening, which the engine's move cannot do. Else
the move is the engine's heat-bath move. No stay option: the move always writes.

Glossary of index names (as in cpu_reference.sudoku.impasse):
    i        chain index; chain i draws from xoroshiro128+ stream i
    u        a unit 0..3N-1; places[u, d, :nplaces[u, d]] the free cells of u with candidate d
    y        the cell the recolouring move writes
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import int64, uint64

from cpu_reference.anneal.rng import uniform_below
from cpu_reference.sudoku.impasse import (
    STAY_WEIGHT,
    _open_cell,
    blank_chain,
    cell_delta,
    draw_digit,
    fresh_trial,
    write_digit,
)

P_BITS = 16  # a move's chance of recolouring: P x 2**P_BITS over 2**P_BITS


def place_tables(tables, side: int) -> tuple[np.ndarray, np.ndarray]:
    """(places int16[3N, N + 1, N], nplaces int16[3N, N + 1]): for each unit u and digit d, the
    free cells of u that have d among their candidates, in cell order."""
    _, free, cand, ncand, units = tables
    places = np.full((3 * side, side + 1, side), -1, np.int16)
    nplaces = np.zeros((3 * side, side + 1), np.int16)
    for cell in free.tolist():
        for d in cand[cell, : ncand[cell]].tolist():
            for u in units[cell].tolist():
                places[u, d, nplaces[u, d]] = cell
                nplaces[u, d] += 1
    return places, nplaces


@nb.njit(cache=True)
def recolour_slice(
    i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, places, nplaces, chance,
):  # fmt: skip
    """impasse_slice's chain (no fresh trials but the first, best kept only once solved) with
    the recolouring move taken with probability chance / 2**P_BITS (module docstring)."""
    if solved[i] != 0:
        return
    s0, s1 = uint64(states[i, 0]), uint64(states[i, 1])
    moves, trials = int64(counts[i, 0]), int64(counts[i, 2])
    if trials == 0:
        s0, s1 = fresh_trial(
            i, s0, s1, grid, holder, oset, where, filled, free, cand, ncand, units, side
        )
        trials = 1
    stay = int64(weights[i, STAY_WEIGHT])
    for _ in range(slice_moves):
        size = int64(oset[i, 0])
        if size == 0:
            break
        at, s0, s1 = uniform_below(s0, s1, size)
        x = int64(oset[i, 1 + int64(at)])
        moves += 1
        coin, s0, s1 = uniform_below(s0, s1, 1 << P_BITS)
        if int64(coin) < chance:
            k, s0, s1 = uniform_below(s0, s1, 3)
            m, s0, s1 = uniform_below(s0, s1, ncand[x])
            d = int64(cand[x, int64(m)])
            u = int64(units[x, int64(k)])
            if int64(holder[i, u * (side + 1) + d]) >= 0:
                continue
            total, pick = int64(0), int64(-1)
            for j in range(nplaces[u, d]):
                y = int64(places[u, d, j])
                delta = cell_delta(i, y, d, holder, units, side) + (1 if grid[i, y] != 0 else 0)
                w = weights[i, delta + 1]
                total += w
                r, s0, s1 = uniform_below(s0, s1, total)
                if int64(r) < w:
                    pick = y
            if pick >= 0:
                if grid[i, pick] != 0:
                    _open_cell(i, pick, grid, holder, oset, where, units, side)
                write_digit(i, pick, d, grid, holder, oset, where, units, side)
            continue
        pick, s0, s1 = draw_digit(i, x, stay, -1, s0, s1, weights, holder, cand, ncand, units, side)
        if pick != 0:
            write_digit(i, x, pick, grid, holder, oset, where, units, side)
    if oset[i, 0] == 0:
        solved[i] = 1
        best_f[i] = 0
        best[i, :] = grid[i, :]
    counts[i, 0], counts[i, 2] = moves, trials
    states[i, 0], states[i, 1] = s0, s1


@nb.njit(parallel=True, cache=True)
def run_recolour(
    states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, places, nplaces, chance,
):  # fmt: skip
    """One slice of recolour_slice on every chain (its arguments after i)."""
    for i in nb.prange(states.shape[0]):
        recolour_slice(
            i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
            filled, free, cand, ncand, units, side, slice_moves, places, nplaces, chance,
        )  # fmt: skip


def chance_of(probability: float) -> int:
    """A move's recolouring probability in run_recolour's fixed point."""
    return round(probability * (1 << P_BITS))


def compile_recolour() -> None:
    """Compile (or load from the cache) run_recolour: 10 moves of one chain on a blank 4x4."""
    tables, args = blank_chain()
    run_recolour(*args, *place_tables(tables, 4), chance_of(0.5))
