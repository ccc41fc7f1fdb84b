"""Tabu search at the frontier: TabuCol's rule on the engine's one-cell candidate moves, beside
the default technique, on bench_frontier's Lewis-style instances.

An experiment, not an engine option. Deduction first (cpu_reference.sudoku.batch.logic_fill);
then every free cell holds one of its candidates, drawn at random. The cost: the pairs of
cells holding the same digit in a row, a column or a box, a pair sharing two units counted in
each (the annealing counts such a pair once). A step looks at every move of every free cell in
conflict (the cell to another of its candidates), and makes the best one not tabu (ties broken
at random); a tabu move is still made when it reaches a cost below the trial's best
(aspiration). A cell that leaves digit x may not take x back for L_RAND x U + LAMBDA x (cells
in conflict) steps (U uniform in [0, 1)), as in Hertz and de Werra's TabuCol (Galinier and
Hao's tenure). A trial that has not improved its best for STALL steps restarts from fresh
random candidates. Chains run in threads (one each), each on numba's generator seeded from
(--seed, chain); a solution counts when the verifier passes it within --limit wall seconds.

Glossary of index names (as in cpu_reference.sudoku.layout):
    n        order, N = n * n digits and the side of the grid
    cell     r * N + c (row r, column c)
    unit     0..N-1 the rows, N..2N-1 the columns, 2N..3N-1 the boxes; units[cell] its three
    d        digit 1..N; cand[cell, :ncand[cell]] the cell's candidates after deduction
    count    count[unit, d]: the unit's cells holding d
    cset     the conflict set: cset[0] its size, cset[1:] its cells; where[cell] the cell's
             place in it (-1 outside)
    tabu     tabu[cell, d]: the first step at which the cell may take d again

Results: benchmarks/results/tuning/frontier_tabu_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_tabu [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--chains 2] [--tabu L_RAND:LAMBDA:STALL ...] [--no-default]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from benchmarks.frontier_chains import chains_report, experiment_main, race
from cpu_reference.sudoku.batch import logic_fill

STEPS_A_CALL = 20_000  # steps between two looks at the clock
SETTINGS = ("5:0.3:2000000",)  # the best of a short sweep at 25x25, 45 %; a restart after 2 M steps


@nb.njit(cache=True, nogil=True)
def fresh_grid(N, filled, cand, ncand, grid):
    """A random start: the deduced grid, each free cell on a random candidate."""
    for cell in range(N * N):
        grid[cell] = filled[cell] if filled[cell] else cand[cell, np.random.randint(ncand[cell])]


@nb.njit(cache=True, nogil=True)
def recount(N, grid, movable, units, count, conf, cset, where):
    """Counts, conflicts and the conflict set of the whole grid; returns its cost."""
    count[:] = 0
    cost = 0
    for cell in range(N * N):
        for k in range(3):
            cost += count[units[cell, k], grid[cell]]
            count[units[cell, k], grid[cell]] += 1
    cset[0] = 0
    where[:] = -1
    for cell in range(N * N):
        conf[cell] = 0
        for k in range(3):
            conf[cell] += count[units[cell, k], grid[cell]] - 1
        _place(cell, movable, conf, cset, where)
    return cost


@nb.njit(cache=True, nogil=True)
def _place(cell, movable, conf, cset, where):
    """Put a movable cell in or out of the conflict set as its conflicts say."""
    if not movable[cell]:
        return
    if conf[cell] > 0 and where[cell] < 0:
        where[cell] = cset[0]
        cset[1 + cset[0]] = cell
        cset[0] += 1
    elif conf[cell] == 0 and where[cell] >= 0:
        last = cset[cset[0]]
        cset[1 + where[cell]] = last
        where[last] = where[cell]
        cset[0] -= 1
        where[cell] = -1


@nb.njit(cache=True, nogil=True)
def move_cell(N, x, d, grid, movable, units, members, count, conf, cset, where):
    """Cell x from its digit to d: counts, the conflicts of x and of its peers, the set."""
    a = grid[x]
    for k in range(3):
        u = units[x, k]
        count[u, a] -= 1
        count[u, d] += 1
        for j in range(N):
            y = members[u, j]
            if y == x:
                continue
            if grid[y] == a:
                conf[y] -= 1
                _place(y, movable, conf, cset, where)
            elif grid[y] == d:
                conf[y] += 1
                _place(y, movable, conf, cset, where)
    grid[x] = d
    conf[x] = 0
    for k in range(3):
        conf[x] += count[units[x, k], d] - 1
    _place(x, movable, conf, cset, where)


@nb.njit(cache=True, nogil=True)
def tabu_step(N, chain, cost, aspiration, it, l_rand, lam):
    """Step number `it` of a chain whose grid costs `cost`: the best move of a conflicted cell
    that is not tabu (a tabu one that reaches below `aspiration`), ties broken at random; a
    random move when every one is tabu. Returns the new cost (unchanged when that random move
    drew the cell's own digit and nothing moved)."""
    filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, tabu = chain
    best_delta = 1 << 30
    ties = 0
    bx = -1
    bd = 0
    for i in range(cset[0]):
        x = cset[1 + i]
        a = grid[x]
        ux, uy, uz = units[x, 0], units[x, 1], units[x, 2]
        lost = count[ux, a] + count[uy, a] + count[uz, a] - 3
        for k in range(ncand[x]):
            d = cand[x, k]
            if d == a:
                continue
            delta = count[ux, d] + count[uy, d] + count[uz, d] - lost
            if tabu[x, d] > it and cost + delta >= aspiration:
                continue
            if delta < best_delta:
                best_delta, ties, bx, bd = delta, 1, x, d
            elif delta == best_delta:
                ties += 1
                if np.random.randint(ties) == 0:
                    bx, bd = x, d
    if bx < 0:  # every move tabu: a random one
        bx = cset[1 + np.random.randint(cset[0])]
        bd = cand[bx, np.random.randint(ncand[bx])]
        if bd == grid[bx]:
            return cost
        a = grid[bx]
        best_delta = 0
        for k in range(3):
            best_delta += count[units[bx, k], bd] - count[units[bx, k], a] + 1
    a = grid[bx]
    move_cell(N, bx, bd, grid, movable, units, members, count, conf, cset, where)
    tabu[bx, a] = it + 1 + int(l_rand * np.random.random() + lam * cset[0])
    return cost + best_delta


@nb.njit(cache=True, nogil=True)
def run_steps(n, steps, chain, state, params):
    """`steps` tabu steps of one chain (see the module docstring). state: int64[cost, step,
    best cost of the trial, step of that best, trials, steps in all, solved]; params:
    float64[L_RAND, LAMBDA, STALL]."""
    filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, tabu = chain
    N = n * n
    l_rand, lam, stall = params[0], params[1], params[2]
    cost = state[0]
    for _ in range(steps):
        if cost == 0:
            state[0], state[6] = 0, 1
            return
        cost = tabu_step(N, chain, cost, state[2], state[1], l_rand, lam)
        state[1] += 1
        state[5] += 1
        if cost < state[2]:
            state[2], state[3] = cost, state[1]
        elif state[1] - state[3] >= stall:
            state[4] += 1
            fresh_grid(N, filled, cand, ncand, grid)
            cost = recount(N, grid, movable, units, count, conf, cset, where)
            tabu[:] = 0
            state[1], state[2], state[3] = 0, cost, 0
    state[0] = cost
    if cost == 0:
        state[6] = 1


@nb.njit(cache=True, nogil=True)
def seed_generator(seed):
    """Seed numba's generator of the calling thread."""
    np.random.seed(seed)


def puzzle_tables(cells: np.ndarray, order: int):
    """(filled, movable, cand, ncand, units) of a puzzle after deduction (glossary; int64
    arrays, filled the deduced grid, movable 1 on its open cells), or None when deduction
    contradicts the givens."""
    N = order * order
    filled, masks = logic_fill(np.asarray(cells, np.uint8), order)
    if masks is None:
        return None
    filled = filled.astype(np.int64)
    movable = (filled == 0).astype(np.int64)
    bits = masks.view(np.uint64)
    cand = np.zeros((N * N, N), np.int64)
    ncand = np.ones(N * N, np.int64)
    for cell in np.flatnonzero(movable):
        digits = [d for d in range(1, N + 1) if (int(bits[cell]) >> (d - 1)) & 1]
        cand[cell, : len(digits)] = digits
        ncand[cell] = len(digits)
    rows, cols = np.divmod(np.arange(N * N), N)
    boxes = 2 * N + (rows // order) * order + cols // order
    units = np.stack([rows, N + cols, boxes], axis=1).astype(np.int64)
    return filled, movable, cand, ncand, units


def new_chain(cells: np.ndarray, order: int, seed: int):
    """(chain, state) of one chain on the puzzle, started; None when deduction contradicts the
    givens. Seeds numba's generator of the calling thread."""
    N = order * order
    tables = puzzle_tables(cells, order)
    if tables is None:
        return None
    filled, movable, cand, ncand, units = tables
    members = np.zeros((3 * N, N), np.int64)
    fill = np.zeros(3 * N, np.int64)
    for cell in range(N * N):
        for u in units[cell]:
            members[u, fill[u]] = cell
            fill[u] += 1
    grid = np.zeros(N * N, np.int64)
    count = np.zeros((3 * N, N + 1), np.int64)
    conf = np.zeros(N * N, np.int64)
    cset = np.zeros(N * N + 1, np.int64)
    where = np.full(N * N, -1, np.int64)
    tabu = np.zeros((N * N, N + 1), np.int64)
    seed_generator(seed)
    fresh_grid(N, filled, cand, ncand, grid)
    cost = recount(N, grid, movable, units, count, conf, cset, where)
    chain = (filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, tabu)
    return chain, np.array([cost, 0, cost, 0, 0, 0, 0], np.int64)


def tabu_solve(cells, order: int, setting: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` tabu chains, one thread each, until one solves or `limit` wall
    seconds pass: an outcome bench_frontier.checked reads (status, seconds, solution, proposals
    (the steps), trials)."""
    params = np.array([float(v) for v in setting.split(":")], np.float64)
    if params.size != 3:
        raise ValueError(f"tabu {setting!r}: expected L_RAND:LAMBDA:STALL")

    def advance(chain, state) -> list | None:
        run_steps(order, STEPS_A_CALL, chain, state, params)
        return chain[6].tolist() if state[6] else None

    return race(chains, limit, lambda index: new_chain(cells, order, seed * 1000 + index),
                advance, lambda state: (state[5], state[4]))  # fmt: skip


HOW = (
    "tabu L_RAND:LAMBDA:STALL: {chains} chains, one thread each, the best non-tabu move of a "
    "conflicted cell each step (module docstring). M/s: millions of proposals (default) or "
    "of steps (tabu) of all chains over the seconds spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "Tabu search at the frontier", HOW, 2)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(__doc__, "tabu", "L_RAND:LAMBDA:STALL", SETTINGS, tabu_solve, render)


if __name__ == "__main__":
    main()
