"""Full Sudoku grids from empty or partly filled grids: random swaps and randomised backtracking.

Glossary of index names (as in ``sudoku_layout``):
    n       order: box side (2..8)
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    c, a, b cell index (row-major); a and b are the two cells of a swap
    u       unit index: rows 0..N-1, columns N..2N-1, boxes 2N..3N-1
    j       slot of a unit in ``cell_units[c]``: 0 row, 1 column, 2 box
    d, x, y digit, 1..N; 0 means blank; x and y are the digits a swap exchanges
    i       grid index in a batch
    cnt     occurrences, cnt[u, d] = how many cells of unit u hold d

Surplus criterion (seed 002, "nombre de surnumeraires"): the number of surplus occurrences over
all rows, columns and boxes, sum over u and d of max(cnt[u, d] - 1, 0). It is 0 exactly on a valid
full grid.

Random swaps with criterion improvement (method "permute"): each row starts as a random
permutation of the digits it lacks (givens stay put), so each digit appears N times; then two free
cells are drawn at random and swapped, and the swap is kept only if the surplus drops. This is pure
descent, so it can get stuck in a local minimum; after ``patience`` proposals in a row without a
drop the grid is counted as stuck and restarted from a fresh random fill, up to ``max_restarts``
restarts. ``moves`` = MOVES_ANY draws the two cells anywhere (the seed's move), MOVES_ROW draws
both in one row (rows stay permutations, so only columns and boxes carry surplus).

Randomised backtracking (method "backtrack"): the exact solver (``exact.search``) with
branch values in random order, limit one solution, restarted with a growing node budget so that a
bad early branch on a big grid does not run forever.

Every grid is worked on by its own seed, so results do not depend on the number of threads.
Both batches take ``stop`` (uint8[1]): another thread sets ``stop[0]`` (a time limit, Ctrl-C)
and the grids not finished then are given up, the others kept.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cpu_reference.sudoku.exact import Tables, search, workspace

MOVES_ANY = 0
MOVES_ROW = 1
STOP_EVERY = 1024  # proposals between two reads of the stop flag


def grid_seeds(seed: int, purpose: int, first: int, count: int) -> np.ndarray:
    """Seeds (int64, below 2**31) of grids first..first+count-1: splitmix64 of seed, purpose, i."""
    mask = (1 << 64) - 1
    out = np.empty(count, dtype=np.int64)
    base = (int(seed) * 0x9E3779B97F4A7C15 + int(purpose) * 0xBF58476D1CE4E5B9) & mask
    for k in range(count):
        z = (base + (first + k + 1) * 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        out[k] = z & 0x7FFFFFFF
    return out


@nb.njit(cache=True)
def surplus(grid, units, N):
    """Surplus occurrences of a full (or partial, 0 = blank) grid over all 3N units."""
    total = 0
    seen = np.zeros(N + 1, dtype=np.int32)
    for u in range(units.shape[0]):
        seen[:] = 0
        for i in range(N):
            d = grid[units[u, i]]
            if d != 0:
                if seen[d] > 0:
                    total += 1
                seen[d] += 1
    return total


@nb.njit(cache=True)
def _fill_rows(grid, givens, N):
    """Each row: its givens, then the missing digits in random order on the free cells."""
    missing = np.empty(N, dtype=np.uint8)
    for r in range(N):
        have = np.zeros(N + 1, dtype=np.bool_)
        for k in range(N):
            have[givens[r * N + k]] = True
        m = 0
        for d in range(1, N + 1):
            if not have[d]:
                missing[m] = d
                m += 1
        for t in range(m - 1, 0, -1):
            s = np.random.randint(0, t + 1)
            missing[t], missing[s] = missing[s], missing[t]
        m = 0
        for k in range(N):
            c = r * N + k
            if givens[c] != 0:
                grid[c] = givens[c]
            else:
                grid[c] = missing[m]
                m += 1


@nb.njit(cache=True)
def _counts(grid, units, cnt, N):
    cnt[:] = 0
    total = 0
    for u in range(units.shape[0]):
        for i in range(N):
            d = grid[units[u, i]]
            if cnt[u, d] > 0:
                total += 1
            cnt[u, d] += 1
    return total


@nb.njit(cache=True)
def permute_one(givens, units, cell_units, N, moves, patience, max_restarts, grid, stop):
    """Random swaps kept when the surplus drops, restarting when stuck; fills ``grid``.

    Returns (surplus left, restarts, proposals): surplus 0 means ``grid`` is a valid full grid;
    otherwise ``max_restarts`` restarts were spent, or ``stop[0]`` was set (read every
    STOP_EVERY proposals and at each restart; the last grid is left in ``grid``).
    Uses numba's np.random stream, which the caller seeds.
    """
    cells = N * N
    free = np.empty(cells, dtype=np.int32)
    nfree = 0
    row_start = np.zeros(N + 1, dtype=np.int32)
    for r in range(N):
        row_start[r] = nfree
        for k in range(N):
            if givens[r * N + k] == 0:
                free[nfree] = r * N + k
                nfree += 1
    row_start[N] = nfree
    cnt = np.zeros((3 * N, N + 1), dtype=np.int32)
    proposals = 0
    restarts = 0
    while True:
        _fill_rows(grid, givens, N)
        cost = _counts(grid, units, cnt, N)
        idle = 0
        while cost > 0 and idle < patience and nfree >= 2:
            proposals += 1
            idle += 1
            if proposals % STOP_EVERY == 0 and stop[0] != 0:
                return cost, restarts, proposals
            if moves == MOVES_ROW:
                r = np.random.randint(0, N)
                lo = row_start[r]
                width = row_start[r + 1] - lo
                if width < 2:
                    continue
                a = free[lo + np.random.randint(0, width)]
                b = free[lo + np.random.randint(0, width)]
            else:
                a = free[np.random.randint(0, nfree)]
                b = free[np.random.randint(0, nfree)]
            x = grid[a]
            y = grid[b]
            if x == y:
                continue
            delta = 0
            for j in range(3):
                ua = cell_units[a, j]
                ub = cell_units[b, j]
                if ua == ub:
                    continue
                if cnt[ua, x] >= 2:
                    delta -= 1
                if cnt[ua, y] >= 1:
                    delta += 1
                if cnt[ub, y] >= 2:
                    delta -= 1
                if cnt[ub, x] >= 1:
                    delta += 1
            if delta < 0:
                for j in range(3):
                    ua = cell_units[a, j]
                    ub = cell_units[b, j]
                    if ua == ub:
                        continue
                    cnt[ua, x] -= 1
                    cnt[ua, y] += 1
                    cnt[ub, y] -= 1
                    cnt[ub, x] += 1
                grid[a] = y
                grid[b] = x
                cost += delta
                idle = 0
        if cost == 0:
            return 0, restarts, proposals
        if restarts >= max_restarts or stop[0] != 0:
            return cost, restarts, proposals
        restarts += 1


@nb.njit(cache=True, parallel=True, nogil=True)
def permute_batch(
    givens, seeds, units, cell_units, N, moves, patience, max_restarts, grids, costs, restarts,
    proposals, stop,
):  # fmt: skip
    """``permute_one`` for every row of ``givens`` (uint8[G, cells]) on all threads; a grid
    not started when ``stop[0]`` is set is left unfilled (cost -1). Releases the GIL, so that
    another thread can set ``stop``."""
    for i in nb.prange(givens.shape[0]):
        if stop[0] != 0:
            costs[i] = -1
            continue
        np.random.seed(seeds[i])
        cost, rs, props = permute_one(
            givens[i], units, cell_units, N, moves, patience, max_restarts, grids[i], stop
        )
        costs[i] = cost
        restarts[i] = rs
        proposals[i] = props


@nb.njit(cache=True)
def backtrack_one(
    givens, seed, units, cell_units, peer_list, N, P, base_nodes, max_nodes, grid, stop
):  # fmt: skip
    """One random completion of ``givens`` by restarted randomised search; fills ``grid``.

    Returns (count, restarts, nodes): count 1 found, 0 no completion exists, -1 ``max_nodes``
    (> 0) spent first, -2 ``stop[0]`` set (read at each restart).
    """
    ws = workspace(N)
    grid_tables = Tables(units, cell_units, peer_list)
    total = 0
    r = 0
    while True:
        if stop[0] != 0:
            return -2, r, total
        cap = base_nodes * (1 + r // 4)
        if max_nodes > 0:
            cap = min(cap, max_nodes - total)
            if cap <= 0:
                return -1, r, total
        shuffle = (seed + r * 1000003) % 2147483647
        count, nodes = search(givens, grid_tables, 1, shuffle, cap, ws, grid)
        total += nodes
        if count >= 0:
            return count, r, total
        r += 1


@nb.njit(cache=True, parallel=True, nogil=True)
def backtrack_batch(
    givens, seeds, units, cell_units, peer_list, N, P, base_nodes, max_nodes, grids, counts,
    restarts, nodes, stop,
):  # fmt: skip
    """``backtrack_one`` for every row of ``givens`` on all threads (``stop`` as there);
    releases the GIL."""
    for i in nb.prange(givens.shape[0]):
        count, rs, nd = backtrack_one(
            givens[i], seeds[i], units, cell_units, peer_list, N, P, base_nodes, max_nodes,
            grids[i], stop,
        )  # fmt: skip
        counts[i] = count
        restarts[i] = rs
        nodes[i] = nd
