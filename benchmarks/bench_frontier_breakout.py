"""Breakout at the frontier: local search on weighted constraints (Morris's breakout method) on
the engine's one-cell candidate moves, beside the default technique, on bench_frontier's
Lewis-style instances.

An experiment, not an engine option. The start, the candidates and the conflict set are those
of bench_frontier_tabu (deduction first, every free cell on a random candidate). Each unit and
digit has a weight, 1 at the start; the weighted cost is the sum over units and digits of the
weight times the pairs of the unit's cells holding the digit. A step looks at every move of
every free cell in conflict (the cell to another of its candidates) and makes the one that
lowers the weighted cost most (ties broken at random). Where none lowers it (a local minimum of
the weighted cost), every unit and digit in conflict gains 1 on its weight (a breakout), and
with probability RHO every weight above 1 then loses 1 (smoothing, as in SAPS). A trial whose
cost (unweighted) has not improved its best for STALL steps restarts from fresh random
candidates and weights of 1 (0: never). Chains run in threads (one each), each on numba's
generator seeded from (--seed, chain); a solution counts when the verifier passes it within
--limit wall seconds.

Glossary of index names (as in cpu_reference.sudoku.layout and bench_frontier_tabu):
    n        order, N = n * n digits and the side of the grid
    cell     r * N + c (row r, column c)
    unit     0..N-1 the rows, N..2N-1 the columns, 2N..3N-1 the boxes; units[cell] its three
    d        digit 1..N; cand[cell, :ncand[cell]] the cell's candidates after deduction
    count    count[unit, d]: the unit's cells holding d
    weight   weight[unit, d]: the weight of the pairs of the unit's cells holding d
    cset     the conflict set: cset[0] its size, cset[1:] its cells

Results: benchmarks/results/tuning/frontier_breakout_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_breakout [--order 6] [--fill 50] [--count 3]
        [--seed 2] [--limit 60] [--chains 2] [--breakout RHO:STALL ...] [--no-default]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from benchmarks.bench_frontier_tabu import fresh_grid, move_cell, new_chain, recount
from benchmarks.frontier_chains import chains_report, experiment_main, race

STEPS_A_CALL = 20_000  # steps between two looks at the clock
SETTINGS = ("0:0",)  # no smoothing, no restart: the breakout method as Morris gives it


@nb.njit(cache=True, nogil=True)
def breakout(N, count, weight, cset, grid, units, rho):
    """Every unit and digit in conflict gains 1 on its weight; then, with probability rho,
    every weight above 1 loses 1. A unit and digit shared by several conflicted cells gains 1
    once (a weight gains where count reaches 2 or more; marked by the count's sign meanwhile)."""
    for i in range(cset[0]):
        x = cset[1 + i]
        d = grid[x]
        for k in range(3):
            u = units[x, k]
            if count[u, d] >= 2:
                weight[u, d] += 1
                count[u, d] = -count[u, d]  # marked: counted once
    for i in range(cset[0]):
        x = cset[1 + i]
        d = grid[x]
        for k in range(3):
            u = units[x, k]
            if count[u, d] < 0:
                count[u, d] = -count[u, d]
    if rho > 0.0 and np.random.random() < rho:
        for u in range(3 * N):
            for d in range(1, N + 1):
                if weight[u, d] > 1:
                    weight[u, d] -= 1


@nb.njit(cache=True, nogil=True)
def breakout_step(N, chain, weight, cost, rho):
    """One step of a chain whose grid costs `cost` (unweighted): the move of a conflicted cell
    that lowers the weighted cost most, ties broken at random, or a breakout where none lowers
    it. Returns the new cost (unweighted)."""
    filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, _ = chain
    best = 0  # only a move that lowers the weighted cost is made
    ties = 0
    bx = -1
    bd = 0
    bdelta = 0
    for i in range(cset[0]):
        x = cset[1 + i]
        a = grid[x]
        ux, uy, uz = units[x, 0], units[x, 1], units[x, 2]
        lost = (weight[ux, a] * (count[ux, a] - 1) + weight[uy, a] * (count[uy, a] - 1)
                + weight[uz, a] * (count[uz, a] - 1))  # fmt: skip
        for k in range(ncand[x]):
            d = cand[x, k]
            if d == a:
                continue
            gained = (weight[ux, d] * count[ux, d] + weight[uy, d] * count[uy, d]
                      + weight[uz, d] * count[uz, d])  # fmt: skip
            delta = gained - lost
            if delta < best:
                best, ties, bx, bd = delta, 1, x, d
            elif delta == best and bx >= 0:
                ties += 1
                if np.random.randint(ties) == 0:
                    bx, bd = x, d
    if bx < 0:
        breakout(N, count, weight, cset, grid, units, rho)
        return cost
    a = grid[bx]
    for k in range(3):
        bdelta += count[units[bx, k], bd] - (count[units[bx, k], a] - 1)
    move_cell(N, bx, bd, grid, movable, units, members, count, conf, cset, where)
    return cost + bdelta


@nb.njit(cache=True, nogil=True)
def run_steps(n, steps, chain, weight, state, params):
    """`steps` steps of one chain (see the module docstring). state: int64[cost, step, best
    cost of the trial, step of that best, trials, steps in all, solved]; params: float64[RHO,
    STALL]."""
    filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, _ = chain
    N = n * n
    rho, stall = params[0], params[1]
    cost = state[0]
    for _ in range(steps):
        if cost == 0:
            state[0], state[6] = 0, 1
            return
        cost = breakout_step(N, chain, weight, cost, rho)
        state[1] += 1
        state[5] += 1
        if cost < state[2]:
            state[2], state[3] = cost, state[1]
        elif stall > 0 and state[1] - state[3] >= stall:
            state[4] += 1
            fresh_grid(N, filled, cand, ncand, grid)
            cost = recount(N, grid, movable, units, count, conf, cset, where)
            weight[:] = 1
            state[1], state[2], state[3] = 0, cost, 0
    state[0] = cost
    if cost == 0:
        state[6] = 1


def breakout_solve(cells, order: int, setting: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` breakout chains, one thread each, until one solves or `limit`
    wall seconds pass: an outcome bench_frontier.checked reads (status, seconds, solution,
    proposals (the steps), trials)."""
    params = np.array([float(v) for v in setting.split(":")], np.float64)
    if params.size != 2:
        raise ValueError(f"breakout {setting!r}: expected RHO:STALL")
    N = order * order

    def start(index: int):
        made = new_chain(cells, order, seed * 1000 + index)
        if made is None:
            return None
        chain, state = made
        return (chain, np.ones((3 * N, N + 1), np.int64)), state

    def advance(chain_and_weight, state) -> list | None:
        chain, weight = chain_and_weight
        run_steps(order, STEPS_A_CALL, chain, weight, state, params)
        return chain[6].tolist() if state[6] else None

    return race(chains, limit, start, advance, lambda state: (state[5], state[4]))


HOW = (
    "breakout RHO:STALL: {chains} chains, one thread each, the move of a conflicted cell that "
    "lowers the weighted cost most, else a breakout (module docstring). M/s: millions of "
    "proposals (default) or of steps (breakout) of all chains over the seconds spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "Breakout at the frontier", HOW, 2)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(__doc__, "breakout", "RHO:STALL", SETTINGS, breakout_solve, render)


if __name__ == "__main__":
    main()
