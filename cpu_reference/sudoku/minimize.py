"""Emptying full Sudoku grids to minimal unique puzzles: annealing on the set of givens (seed 002).

Glossary of index names (as in ``sudoku_layout``):
    n       order: box side (2..8)
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    c       cell index (row-major)
    d       digit, 1..N; 0 means blank
    i       grid index in a batch
    E       energy: the number of givens of the current puzzle
    T       temperature; Ti, Tf its first and last value, ``step`` the linear decrement
    k       step index, T = Ti - k * step for k = 0 .. steps - 1, steps = ceil((Ti - Tf) / step)

Annealing (seed 002, "vider"): start from the full grid (E = cells). At each step draw a cell c.
A given is removed when the puzzle without it still has exactly one solution (the uniqueness
oracle is the exact solver counting up to two); a blank cell is refilled with its digit from the
grid (a "degradation", E + 1) with probability exp(-1 / T). The puzzle of lowest E seen is kept.

Greedy pass: the best puzzle's givens, in random order, are each removed when uniqueness survives.
A given that cannot be removed at some point cannot be removed later either (fewer givens only add
solutions), so after one pass no single given can be removed: the puzzle is minimal.

Each grid has its own seed (numba's np.random stream, seeded per grid), so results do not depend on
the number of threads.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from cpu_reference.sudoku.exact import Tables, search, workspace
from cpu_reference.sudoku.exact_bands9 import DEPTH, STATE, solve9

# Columns of the per-grid statistics array.
S_SA_GIVENS = 0  # givens of the best puzzle the annealing reached
S_GIVENS = 1  # givens after the greedy pass
S_CHECKS = 2  # uniqueness checks (exact solver calls)
S_DEGRADATIONS = 3  # refilled cells
S_NODES = 4  # branch values the exact solver tried, all calls
S_STEPS = 5  # annealing steps
STATS = 6


def step_count(ti: float, tf: float, step: float) -> int:
    """Annealing steps from Ti down to Tf by ``step``: ceil((Ti - Tf) / step)."""
    return max(0, math.ceil((ti - tf) / step - 1e-9))


@nb.njit(cache=True)
def _unique(puzzle, units, cell_units, peer_list, N, P, ws, solution, max_nodes, stack9):
    """(unique, nodes): unique is True when ``puzzle`` has exactly one solution.

    9x9 goes to the band solver (scratch ``stack9``), other orders to the exact solver's search.
    A search cut short by ``max_nodes`` (> 0) counts as not unique.
    """
    if N == 9:
        count, nodes = solve9(puzzle, 2, max_nodes, stack9, solution)
    else:
        grid_tables = Tables(units, cell_units, peer_list)
        count, nodes = search(puzzle, grid_tables, 2, -1, max_nodes, ws, solution)
    return count == 1, nodes


@nb.njit(cache=True)
def minimize_tries(
    grid, units, cell_units, peer_list, N, P, ti, step, steps, max_nodes, tries, out, stats, stop
):
    """``minimize_one`` ``tries`` times in a row on one stream; the puzzle of fewest givens wins.

    Counters (checks, degradations, nodes, steps) add up over the tries. ``stop`` as in
    ``minimize_one``: no further try starts once it is set.
    """
    work = np.empty_like(out)
    st = np.zeros(STATS, dtype=np.int64)
    for col in (S_CHECKS, S_DEGRADATIONS, S_NODES, S_STEPS):
        stats[col] = 0
    for t in range(tries):
        if stop[0] != 0:
            return
        minimize_one(
            grid, units, cell_units, peer_list, N, P, ti, step, steps, max_nodes, work, st, stop
        )
        if t == 0 or st[S_GIVENS] < stats[S_GIVENS]:
            out[:] = work
            stats[S_SA_GIVENS] = st[S_SA_GIVENS]
            stats[S_GIVENS] = st[S_GIVENS]
        for col in (S_CHECKS, S_DEGRADATIONS, S_NODES, S_STEPS):
            stats[col] += st[col]


@nb.njit(cache=True)
def minimize_one(
    grid, units, cell_units, peer_list, N, P, ti, step, steps, max_nodes, out, stats, stop
):
    """Anneal then greedily empty the full ``grid``; the minimal puzzle goes to ``out``.

    ``stats`` (int64[STATS]) receives the counters named by the S_* columns. Uses numba's
    np.random stream, which the caller seeds. ``max_nodes`` bounds each check during the
    annealing only (0: none); the greedy pass always runs checks to the end. ``stop``
    (uint8[1]) set non-zero by another thread ends the try at its next step or check: ``out``
    then holds no minimal puzzle, to be thrown away.
    """
    cells = N * N
    ws = workspace(N)
    stack9 = np.empty((DEPTH, STATE), dtype=np.int32)
    solution = np.zeros(cells, dtype=np.uint8)
    puzzle = grid.copy()
    energy = cells
    best_energy = cells
    out[:] = grid
    checks = 0
    degradations = 0
    nodes = 0
    for k in range(steps):
        if stop[0] != 0:
            return
        t = ti - k * step
        c = np.random.randint(0, cells)
        if puzzle[c] != 0:
            puzzle[c] = 0
            checks += 1
            ok, nd = _unique(
                puzzle, units, cell_units, peer_list, N, P, ws, solution, max_nodes, stack9
            )
            nodes += nd
            if ok:
                energy -= 1
                if energy < best_energy:
                    best_energy = energy
                    out[:] = puzzle
            else:
                puzzle[c] = grid[c]
        elif np.random.random() < math.exp(-1.0 / t):
            puzzle[c] = grid[c]
            energy += 1
            degradations += 1
    order = np.random.permutation(cells)
    givens = best_energy
    for j in range(cells):
        if stop[0] != 0:
            return
        c = order[j]
        if out[c] == 0:
            continue
        out[c] = 0
        checks += 1
        ok, nd = _unique(out, units, cell_units, peer_list, N, P, ws, solution, np.int64(0), stack9)
        nodes += nd
        if ok:
            givens -= 1
        else:
            out[c] = grid[c]
    stats[S_SA_GIVENS] = best_energy
    stats[S_GIVENS] = givens
    stats[S_CHECKS] = checks
    stats[S_DEGRADATIONS] = degradations
    stats[S_NODES] = nodes
    stats[S_STEPS] = steps


@nb.njit(cache=True, parallel=True, nogil=True)
def minimize_batch(
    grids, seeds, units, cell_units, peer_list, N, P, ti, step, steps, max_nodes, tries, out, stats,
    stop,
):  # fmt: skip
    """``minimize_tries`` for every row of ``grids`` (uint8[G, cells]) on all threads; ``stop``
    (uint8[1]) set by another thread ends every grid's try within a step (the batch's puzzles
    are then to be thrown away). Releases the GIL."""
    for i in nb.prange(grids.shape[0]):
        np.random.seed(seeds[i])
        minimize_tries(
            grids[i], units, cell_units, peer_list, N, P, ti, step, steps, max_nodes, tries,
            out[i], stats[i], stop,
        )  # fmt: skip


@nb.njit(cache=True)
def is_minimal(puzzle, units, cell_units, peer_list, N, P):
    """(unique, minimal): the puzzle has one solution, and removing any single given adds one."""
    ws = workspace(N)
    stack9 = np.empty((DEPTH, STATE), dtype=np.int32)
    solution = np.zeros(N * N, dtype=np.uint8)
    work = puzzle.copy()
    ok, _ = _unique(work, units, cell_units, peer_list, N, P, ws, solution, np.int64(0), stack9)
    if not ok:
        return False, False
    for c in range(N * N):
        if work[c] == 0:
            continue
        d = work[c]
        work[c] = 0
        again, _ = _unique(
            work, units, cell_units, peer_list, N, P, ws, solution, np.int64(0), stack9
        )
        work[c] = d
        if again:
            return True, False
    return True, True
