"""Box permutations at the frontier: Lewis's representation with candidate-keeping swaps drawn
at a conflicted cell, beside the default technique, on bench_frontier's Lewis-style instances.

An experiment, not an engine option. Deduction first (cpu_reference.sudoku.batch.logic_fill);
then every box holds a permutation of its missing digits, each free cell a digit among its
candidates (a random perfect matching of the box's free cells to its missing digits: one
exists whenever the puzzle has a solution). Boxes never conflict, so the cost is the peer pairs
holding the same digit in a row or a column. A move: a free cell in conflict drawn uniformly
(the conflict set kept exact after each accepted swap), then up to SWAP_TRIES draws of another
free cell of its box until one whose digit is a candidate of the first and the other way round;
the two swap digits under Metropolis acceptance. Schedule: geometric from T_HI to T_LO over K
plateaus of (free cells) proposals; an unsolved trial is reheated to T_REHEAT up to REHEATS
times in a row, then starts from a fresh matching. Chains run in threads (one each), each on
numba's generator seeded from (--seed, chain); a solution counts when the verifier passes it
within --limit wall seconds.

Glossary of index names (as in cpu_reference.sudoku.layout):
    n        order, N = n * n digits and the side of the grid
    cell     r * N + c (row r, column c); b its box, (r // n) * n + c // n
    d        digit 1..N; candidates as masks, bit d - 1
    cset     the conflict set: cset[0] its size, cset[1:] its cells; where[cell] the cell's
             place in it (-1 outside)

Results: benchmarks/results/tuning/frontier_swap_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_swap [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--chains 2] [--swap T_HI:T_LO:K:T_REHEAT:REHEATS ...] [--no-default]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from benchmarks.frontier_chains import chains_report, experiment_main, race
from cpu_reference.sudoku.batch import logic_fill

SWAP_TRIES = 4  # partner draws a proposal makes before it gives up
PLATEAUS_A_CALL = 20  # plateaus between two looks at the clock
SCHEDULES = ("0.7:0.55:3000:0.6:3",)  # the best of a first sweep at 25x25, 45 %


@nb.njit(cache=True, nogil=True)
def _augment(i, free, masks, digits, count, owner, seen):
    """Kuhn's augmenting path from free cell i (of free[]) to digits[:count] (random order)."""
    order = np.random.permutation(count)
    for t in range(count):
        j = order[t]
        if seen[j] or (masks[free[i]] >> (digits[j] - 1)) & 1 == 0:
            continue
        seen[j] = True
        if owner[j] < 0 or _augment(owner[j], free, masks, digits, count, owner, seen):
            owner[j] = i
            return True
    return False


@nb.njit(cache=True, nogil=True)
def fresh_grid(n, filled, masks, box_free, box_count, grid):
    """A random start: the deduced grid, each box's free cells matched at random to its missing
    digits among their candidates. False when some box has no such matching."""
    N = n * n
    grid[:] = filled
    digits = np.empty(N, np.int64)
    for b in range(N):
        k = box_count[b]
        if k == 0:
            continue
        present = np.zeros(N + 1, np.bool_)
        for i in range(n):
            for j in range(n):
                present[filled[((b // n) * n + i) * N + (b % n) * n + j]] = True
        count = 0
        for d in range(1, N + 1):
            if not present[d]:
                digits[count] = d
                count += 1
        owner = np.full(N, -1, np.int64)
        order = np.random.permutation(k)
        for t in range(k):
            if not _augment(
                order[t], box_free[b], masks, digits, count, owner, np.zeros(N, np.bool_)
            ):
                return False
        for j in range(count):
            grid[box_free[b, owner[j]]] = digits[j]
    return True


@nb.njit(cache=True, nogil=True)
def count_lines(N, grid, row_count, col_count):
    """Fill the per-line digit counts; the cost (peer pairs alike in a row or a column)."""
    row_count[:] = 0
    col_count[:] = 0
    cost = 0
    for cell in range(N * N):
        d = grid[cell]
        cost += row_count[cell // N, d] + col_count[cell % N, d]
        row_count[cell // N, d] += 1
        col_count[cell % N, d] += 1
    return cost


@nb.njit(cache=True, nogil=True)
def _place(N, cell, grid, movable, row_count, col_count, cset, where):
    """Put a movable cell in or out of the conflict set as its digit's counts say."""
    if not movable[cell]:
        return
    d = grid[cell]
    inside = row_count[cell // N, d] > 1 or col_count[cell % N, d] > 1
    if inside and where[cell] < 0:
        where[cell] = cset[0]
        cset[1 + cset[0]] = cell
        cset[0] += 1
    elif not inside and where[cell] >= 0:
        last = cset[cset[0]]
        cset[1 + where[cell]] = last
        where[last] = where[cell]
        cset[0] -= 1
        where[cell] = -1


@nb.njit(cache=True, nogil=True)
def fill_set(N, grid, movable, row_count, col_count, cset, where):
    """The conflict set of the whole grid."""
    cset[0] = 0
    where[:] = -1
    for cell in range(N * N):
        _place(N, cell, grid, movable, row_count, col_count, cset, where)


@nb.njit(cache=True, nogil=True)
def _refresh(N, r, c, x, y, grid, movable, row_count, col_count, cset, where):
    """The cells of row r and column c holding x or y: their place in the conflict set."""
    for j in range(N):
        for cell in (r * N + j, j * N + c):
            if grid[cell] == x or grid[cell] == y:
                _place(N, cell, grid, movable, row_count, col_count, cset, where)


@nb.njit(cache=True, nogil=True)
def run_plateaus(n, plateaus, chain, state, params):
    """`plateaus` plateaus of one chain (see the module docstring). state: int64[cost, plateau
    of the trial, reheats in a row, trials, proposals, solved]; params: float64[T_HI, T_LO, K,
    T_REHEAT, REHEATS]."""
    filled, masks, movable, box_of, box_free, box_count, grid, row_count, col_count, cset, where = (
        chain
    )
    N = n * n
    t_hi, t_lo, k_plateaus, t_reheat, reheats = (
        params[0],
        params[1],
        params[2],
        params[3],
        params[4],
    )
    per_plateau = 0
    for cell in range(N * N):
        per_plateau += movable[cell]
    cost = state[0]
    for _ in range(plateaus):
        beta = 1.0 / (t_hi * (t_lo / t_hi) ** (state[1] / k_plateaus))
        for _m in range(per_plateau):
            state[4] += 1
            if cset[0] == 0:
                break
            a = cset[1 + np.random.randint(cset[0])]
            x = grid[a]
            box = box_of[a]
            b = -1
            for _t in range(SWAP_TRIES):
                other = box_free[box, np.random.randint(box_count[box])]
                y = grid[other]
                if other != a and (masks[a] >> (y - 1)) & 1 and (masks[other] >> (x - 1)) & 1:
                    b = other
                    break
            if b < 0:
                continue
            y = grid[b]
            r1, c1, r2, c2 = a // N, a % N, b // N, b % N
            delta = 0
            if r1 != r2:
                delta += row_count[r1, y] - row_count[r1, x] + 1
                delta += row_count[r2, x] - row_count[r2, y] + 1
            if c1 != c2:
                delta += col_count[c1, y] - col_count[c1, x] + 1
                delta += col_count[c2, x] - col_count[c2, y] + 1
            if delta > 0 and np.random.random() >= np.exp(-beta * delta):
                continue
            grid[a], grid[b] = y, x
            if r1 != r2:
                row_count[r1, x] -= 1
                row_count[r1, y] += 1
                row_count[r2, y] -= 1
                row_count[r2, x] += 1
            if c1 != c2:
                col_count[c1, x] -= 1
                col_count[c1, y] += 1
                col_count[c2, y] -= 1
                col_count[c2, x] += 1
            cost += delta
            _refresh(N, r1, c1, x, y, grid, movable, row_count, col_count, cset, where)
            _refresh(N, r2, c2, x, y, grid, movable, row_count, col_count, cset, where)
        if cost == 0:
            state[0], state[5] = 0, 1
            return
        state[1] += 1
        if state[1] >= k_plateaus:
            state[3] += 1
            if state[2] < reheats:
                state[2] += 1
                state[1] = int(np.ceil(k_plateaus * np.log(t_reheat / t_hi) / np.log(t_lo / t_hi)))
            else:
                state[1], state[2] = 0, 0
                fresh_grid(n, filled, masks, box_free, box_count, grid)
                cost = count_lines(N, grid, row_count, col_count)
                fill_set(N, grid, movable, row_count, col_count, cset, where)
    state[0] = cost


@nb.njit(cache=True, nogil=True)
def _seed(seed):
    np.random.seed(seed)


def new_chain(cells: np.ndarray, order: int, seed: int):
    """(chain, state) of one chain on the puzzle, started; None when deduction contradicts the
    givens or a box has no matching. Seeds numba's generator of the calling thread."""
    N = order * order
    filled, masks = logic_fill(np.asarray(cells, np.uint8), order)
    if masks is None:
        return None
    filled = filled.astype(np.int64)
    movable = filled == 0
    box_of = np.array([(c // N) // order * order + (c % N) // order for c in range(N * N)])
    box_free = np.zeros((N, N), np.int64)
    box_count = np.zeros(N, np.int64)
    for c in np.flatnonzero(movable):
        box_free[box_of[c], box_count[box_of[c]]] = c
        box_count[box_of[c]] += 1
    grid = np.zeros(N * N, np.int64)
    row_count = np.zeros((N, N + 1), np.int64)
    col_count = np.zeros((N, N + 1), np.int64)
    cset = np.zeros(N * N + 1, np.int64)
    where = np.full(N * N, -1, np.int64)
    _seed(seed)
    if not fresh_grid(order, filled, masks, box_free, box_count, grid):
        return None
    cost = count_lines(N, grid, row_count, col_count)
    fill_set(N, grid, movable, row_count, col_count, cset, where)
    chain = (filled, masks, movable.astype(np.int64), box_of, box_free, box_count, grid,
             row_count, col_count, cset, where)  # fmt: skip
    return chain, np.array([cost, 0, 0, 0, 0, 0], np.int64)


def swap_solve(cells, order: int, schedule: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` box-permutation chains, one thread each, until one solves or
    `limit` wall seconds pass: an outcome bench_frontier.checked reads (status, seconds,
    solution, proposals, trials)."""
    params = np.array([float(v) for v in schedule.split(":")], np.float64)
    if params.size != 5:
        raise ValueError(f"swap {schedule!r}: expected T_HI:T_LO:K:T_REHEAT:REHEATS")

    def advance(chain, state) -> list | None:
        run_plateaus(order, PLATEAUS_A_CALL, chain, state, params)
        return chain[6].tolist() if state[5] else None

    return race(chains, limit, lambda index: new_chain(cells, order, seed * 1000 + index),
                advance, lambda state: (state[4], state[3]))  # fmt: skip


HOW = (
    "swap T_HI:T_LO:K:T_REHEAT:REHEATS: {chains} chains, one thread each, every box a "
    "permutation of candidates, a conflicted cell swapping with another free cell of its box "
    "(module docstring). M/s: proposals of all chains over the seconds spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "Box permutations at the frontier", HOW, 1)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(__doc__, "swap", "T_HI:T_LO:K:T_REHEAT:REHEATS", SCHEDULES, swap_solve, render)


if __name__ == "__main__":
    main()
