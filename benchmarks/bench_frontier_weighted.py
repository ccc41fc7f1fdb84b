"""Weighted impasse chains at the frontier: the engine's heat-bath chain on partial legal grids
(cpu_reference.sudoku.impasse) with a weight on every cell that grows while the cell stays
open (breakout on cells), beside the default technique, on bench_frontier's Lewis-style
instances.

An experiment, not an engine option. The chain is impasse's (deduction first, a trial filled
as impasse.fresh_trial fills it, a move drawing an open cell x and choosing among staying open
and its candidates by heat-bath) with one change: its cost is the weighted sum of its open
cells, so the change of cost of writing d into x is the weights of the distinct holders of d
in x's units less x's weight. Every cell starts at weight SCALE; every EVERY moves each open
cell gains BUMP, and with probability RHO every weight above SCALE then loses one
(smoothing, as in SAPS). The held temperature T is in units of SCALE (T 0.32 with BUMP 0 is
the engine's chain, drawn in floating point). Chains run in threads (one each) on xoroshiro128+
streams of the chains' seed; a solution counts when the verifier passes it within --limit wall
seconds.

Glossary of index names (as in cpu_reference.sudoku.impasse):
    cell     r * N + c (row r, column c)
    unit     0..N-1 the rows, N..2N-1 the columns, 2N..3N-1 the boxes; units[cell] its three
    d        digit 1..N; cand[cell, :ncand[cell]] the cell's candidates after deduction
    holder   holder[0, unit * (N + 1) + d]: the cell of the unit holding d, or -1
    cw       cw[cell]: the cell's weight (SCALE at the start)
    oset     the open set: oset[0, 0] its size, oset[0, 1:] its cells

Results: benchmarks/results/tuning/frontier_weighted_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_weighted [--order 6] [--fill 50] [--count 3]
        [--seed 2] [--limit 60] [--chains 2] [--weighted T:BUMP:EVERY:RHO ...] [--no-default]
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import int64, uint64

from benchmarks.frontier_chains import chains_report, experiment_main, race
from cpu_reference.anneal.rng import init_states, uniform_below, uniform_float64
from cpu_reference.sudoku.impasse import (
    BEST,
    BEST_F,
    COUNTS,
    GRID,
    HOLDER,
    OSET,
    SOLVED,
    STATES,
    WHERE,
    chain_arrays,
    fresh_trial,
    impasse_tables,
    write_digit,
)

SCALE = 16  # a cell's weight at the start
CAP = 64 * SCALE  # a weight grows no further
MOVES_A_CALL = 200_000  # moves between two looks at the clock
SETTINGS = ("0.32:0:1000:0", "0.32:1:1000:0.05")


def heat_table(temperature: float) -> np.ndarray:
    """float64[4 CAP + 1]: exp(-delta / (T SCALE)) at index delta + CAP, delta -CAP..3 CAP."""
    deltas = np.arange(-CAP, 3 * CAP + 1, dtype=np.float64)
    return np.exp(-deltas / (temperature * SCALE))


@nb.njit(cache=True, inline="always")
def weighted_delta(x, d, holder, units, side, cw):
    """The change of weighted cost of writing d into open cell x: the weights of the distinct
    holders of d in its units less x's weight."""
    a = int64(holder[0, int64(units[x, 0]) * (side + 1) + d])
    b = int64(holder[0, int64(units[x, 1]) * (side + 1) + d])
    c = int64(holder[0, int64(units[x, 2]) * (side + 1) + d])
    delta = -int64(cw[x])
    if a >= 0:
        delta += cw[a]
    if b >= 0 and b != a:
        delta += cw[b]
    if c >= 0 and c != a and c != b:
        delta += cw[c]
    return delta


@nb.njit(cache=True, nogil=True)
def weighted_moves(moves, states, best, best_f, solved, grid, holder, oset, where, counts,
                   filled, free, cand, ncand, units, side, cw, table, params):  # fmt: skip
    """Up to `moves` moves of the one chain in these rows (row 0 of each), the module
    docstring's; params: float64[BUMP, EVERY, RHO]."""
    bump, every, rho = int64(params[0]), int64(params[1]), params[2]
    s0 = uint64(states[0, 0])
    s1 = uint64(states[0, 1])
    if counts[0, 2] == 0:
        s0, s1 = fresh_trial(0, s0, s1, grid, holder, oset, where, filled, free, cand, ncand,
                             units, side)  # fmt: skip
        counts[0, 2] = 1
    cells = side * side
    for _ in range(moves):
        size = int64(oset[0, 0])
        if size < best_f[0]:
            best_f[0] = size
            for cell in range(cells):
                best[0, cell] = grid[0, cell]
        if size == 0:
            solved[0] = 1
            break
        at, s0, s1 = uniform_below(s0, s1, size)
        x = int64(oset[0, 1 + int64(at)])
        total = table[CAP]
        pick = 0
        for m in range(ncand[x]):
            d = int64(cand[x, m])
            delta = weighted_delta(x, d, holder, units, side, cw)
            w = table[min(max(delta, -CAP), 3 * CAP) + CAP]
            total += w
            u, s0, s1 = uniform_float64(s0, s1)
            if u * total < w:
                pick = d
        if pick != 0:
            write_digit(0, x, pick, grid, holder, oset, where, units, side)
        counts[0, 0] += 1
        if bump > 0 and counts[0, 0] % every == 0:
            for k in range(int64(oset[0, 0])):
                y = int64(oset[0, 1 + k])
                cw[y] = min(cw[y] + bump, CAP)
            u, s0, s1 = uniform_float64(s0, s1)
            if u < rho:
                for cell in range(cells):
                    if cw[cell] > SCALE:
                        cw[cell] -= 1
    states[0, 0] = s0
    states[0, 1] = s1


def weighted_solve(cells, order: int, setting: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` weighted chains, one thread each, until one solves or `limit`
    wall seconds pass: an outcome bench_frontier.checked reads (status, seconds, solution,
    proposals (the moves), trials)."""
    values = [float(v) for v in setting.split(":")]
    if len(values) != 4 or values[0] <= 0 or values[2] < 1:
        raise ValueError(f"weighted {setting!r}: expected T:BUMP:EVERY:RHO, T > 0, EVERY >= 1")
    temperature, params = values[0], np.array(values[1:], np.float64)
    cells = np.asarray(cells, np.uint8).ravel()
    tables = impasse_tables(cells, order)
    streams = init_states(chains, seed)
    table = heat_table(temperature)
    N = order * order

    def start(index: int):
        if tables is None:
            return None
        args = list(chain_arrays(tables, order, 1, seed, temperature))
        args[STATES] = streams[index : index + 1].copy()
        return (args, np.full(N * N, SCALE, np.int64)), args[COUNTS]

    def advance(chain, counts) -> list | None:
        a, cw = chain
        weighted_moves(MOVES_A_CALL, a[STATES], a[BEST], a[BEST_F], a[SOLVED], a[GRID],
                       a[HOLDER], a[OSET], a[WHERE], a[COUNTS], *a[10:16], cw, table,
                       params)  # fmt: skip
        return a[BEST][0].astype(np.int64).tolist() if a[SOLVED][0] else None

    return race(chains, limit, start, advance, lambda counts: (counts[0, 0], counts[0, 2]))


HOW = (
    "weighted T:BUMP:EVERY:RHO: {chains} impasse chains, one thread each, on cells weighted "
    f"from {SCALE} (module docstring). M/s: millions of moves of all chains over the seconds "
    "spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "Weighted impasse chains at the frontier", HOW, 2)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(__doc__, "weighted", "T:BUMP:EVERY:RHO", SETTINGS, weighted_solve, render)


if __name__ == "__main__":
    main()
