"""A memetic search at the frontier: Galinier and Hao's hybrid evolutionary algorithm (a
population, a greedy partition crossover, tabu search on every child) on the engine's one-cell
candidate moves, beside the default technique, on bench_frontier's Lewis-style instances.

An experiment, not an engine option. Sudoku is graph colouring with the givens precoloured, and
on hard colouring instances this hybrid is the reference method where tabu search alone stalls.
Deduction first (cpu_reference.sudoku.batch.logic_fill), every free cell on one of its
candidates, the cost the tabu search's (benchmarks/bench_frontier_tabu.py, whose tabu steps this
uses).

    population  POP grids, each a random start improved by STEPS tabu steps (the lowest-cost
                grid the steps saw is kept)
    generation  two members drawn at random; their child by the crossover; STEPS tabu steps
                from it; the child's lowest-cost grid replaces the worse of the two parents,
                unless the population holds that grid already
    crossover   a digit's class is the set of free cells holding it. The parents take turns
                (the first drawn at random): the parent whose turn it is gives the digit, not
                yet given, whose class has the most cells not yet filled in the child, and
                those cells take it. After N turns every digit has been given once; a cell
                still empty takes a random candidate.

Digits keep their names (the givens fix them), so the crossover picks a digit, not a colour
class up to renaming as in graph colouring. One population a thread (`--chains`), each on
numba's generator seeded from (--seed, chain); a solution counts when the verifier passes it
within --limit wall seconds.

Glossary of index names (as in benchmarks/bench_frontier_tabu.py):
    n, N     order and side; cells N * N, cell r * N + c
    d        digit 1..N
    pop      pop[i]: the grid of member i; pcost[i] its cost
    left     left[p, d]: cells not yet filled in the child whose digit in parent p is d

Results: benchmarks/results/tuning/frontier_memetic_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_memetic [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--chains 2] [--memetic POP:STEPS:L_RAND:LAMBDA ...] [--no-default]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from benchmarks import bench_frontier_tabu as bt
from benchmarks.frontier_chains import chains_report, experiment_main, race

SETTINGS = ("10:20000:5:0.3",)  # 10 members, 20,000 tabu steps a child, the tabu's tenure


@nb.njit(cache=True, nogil=True)
def improve(n, steps, chain, l_rand, lam, best, made):
    """`steps` tabu steps from the chain's grid (tenures cleared first); best gets the
    lowest-cost grid seen (the start included). Returns its cost; stops at a solution. The
    steps taken are added to made[0]."""
    filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, tabu = chain
    N = n * n
    cost = bt.recount(N, grid, movable, units, count, conf, cset, where)
    tabu[:] = 0
    best[:] = grid
    best_cost = cost
    for it in range(steps):
        if cost == 0:
            break
        cost = bt.tabu_step(N, chain, cost, best_cost, it, l_rand, lam)
        made[0] += 1
        if cost < best_cost:
            best_cost = cost
            best[:] = grid
    return best_cost


@nb.njit(cache=True, nogil=True)
def crossover(N, filled, cand, ncand, pa, pb, child, left):
    """The child of parents pa and pb (module docstring): child gets the givens and deduced
    cells, then the digits' classes the parents give in turn, then random candidates."""
    left[:] = 0
    for cell in range(N * N):
        child[cell] = filled[cell]
        if not filled[cell]:
            left[0, pa[cell]] += 1
            left[1, pb[cell]] += 1
    given = np.zeros(N + 1, np.bool_)
    p = np.random.randint(2)
    for _ in range(N):
        pick, most, ties = 0, -1, 0
        for d in range(1, N + 1):
            if given[d]:
                continue
            if left[p, d] > most:
                pick, most, ties = d, left[p, d], 1
            elif left[p, d] == most:
                ties += 1
                if np.random.randint(ties) == 0:
                    pick = d
        given[pick] = True
        source = pa if p == 0 else pb
        for cell in range(N * N):
            if child[cell] == 0 and source[cell] == pick:
                child[cell] = pick
                left[0, pa[cell]] -= 1
                left[1, pb[cell]] -= 1
        p = 1 - p
    for cell in range(N * N):
        if child[cell] == 0:
            child[cell] = cand[cell, np.random.randint(ncand[cell])]


@nb.njit(cache=True, nogil=True)
def populate(n, steps, chain, l_rand, lam, pop, pcost, best, made):
    """Each member a random start improved by `steps` tabu steps; returns the index of a
    member that is a solution, else -1."""
    filled, cand, ncand = chain[0], chain[1], chain[2]
    grid = chain[6]
    for i in range(pop.shape[0]):
        bt.fresh_grid(n * n, filled, cand, ncand, grid)
        pcost[i] = improve(n, steps, chain, l_rand, lam, best, made)
        pop[i] = best
        if pcost[i] == 0:
            return i
    return -1


@nb.njit(cache=True, nogil=True)
def generation(n, steps, chain, l_rand, lam, pop, pcost, best, left, made):
    """One generation (module docstring); returns the index of the member that is a
    solution, else -1."""
    filled, cand, ncand = chain[0], chain[1], chain[2]
    grid = chain[6]
    size = pop.shape[0]
    a = np.random.randint(size)
    b = np.random.randint(size - 1)
    if b >= a:
        b += 1
    crossover(n * n, filled, cand, ncand, pop[a], pop[b], grid, left)
    cost = improve(n, steps, chain, l_rand, lam, best, made)
    worse = a if pcost[a] >= pcost[b] else b
    for i in range(size):
        if pcost[i] == cost and np.array_equal(pop[i], best):
            return -1
    pop[worse] = best
    pcost[worse] = cost
    return worse if cost == 0 else -1


def parse_setting(setting: str) -> tuple[int, int, float, float]:
    """POP:STEPS:L_RAND:LAMBDA as (pop, steps, l_rand, lam); ValueError when malformed."""
    parts = setting.split(":")
    if len(parts) != 4:
        raise ValueError(f"memetic {setting!r}: expected POP:STEPS:L_RAND:LAMBDA")
    pop, steps = int(parts[0]), int(parts[1])
    if pop < 2 or steps < 1:
        raise ValueError(f"memetic {setting!r}: POP at least 2 and STEPS at least 1")
    return pop, steps, float(parts[2]), float(parts[3])


def new_population(cells, order: int, setting: str, seed: int):
    """(population, state) of one thread: the tabu chain it works in, POP members made and
    improved; state int64[generations, tabu steps taken, index of a solved member or -1]. None
    when deduction contradicts the givens."""
    size, steps, l_rand, lam = parse_setting(setting)
    started = bt.new_chain(cells, order, seed)
    if started is None:
        return None
    chain, _ = started
    N = order * order
    pop = np.zeros((size, N * N), np.int64)
    pcost = np.zeros(size, np.int64)
    best = np.zeros(N * N, np.int64)
    left = np.zeros((2, N + 1), np.int64)
    made = np.zeros(1, np.int64)
    solved = populate(order, steps, chain, l_rand, lam, pop, pcost, best, made)
    state = np.array([0, made[0], solved], np.int64)
    return (chain, pop, pcost, best, left, made, (order, steps, l_rand, lam)), state


def advance(population, state) -> list | None:
    """One generation, unless a member is a solution already; the solution as a list, or
    None."""
    chain, pop, pcost, best, left, made, (order, steps, l_rand, lam) = population
    if state[2] < 0:
        state[2] = generation(order, steps, chain, l_rand, lam, pop, pcost, best, left, made)
        state[0] += 1
        state[1] = made[0]
    return pop[state[2]].tolist() if state[2] >= 0 else None


def memetic_solve(cells, order: int, setting: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` populations, one thread each, until one solves or `limit` wall
    seconds pass: an outcome bench_frontier.checked reads (status, seconds, solution,
    proposals (the tabu steps), trials (the generations))."""
    parse_setting(setting)
    return race(chains, limit,
                lambda index: new_population(cells, order, setting, seed * 1000 + index),
                advance, lambda state: (state[1], state[0]))  # fmt: skip


HOW = (
    "memetic POP:STEPS:L_RAND:LAMBDA: {chains} chains, one thread each, each a population of "
    "POP grids; a child of the crossover improved by STEPS tabu steps each generation (module "
    "docstring). M/s: millions "
    "of proposals (default) or of tabu steps (memetic) of all threads over the seconds spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "A memetic search at the frontier", HOW, 2)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(__doc__, "memetic", "POP:STEPS:L_RAND:LAMBDA", SETTINGS, memetic_solve, render)


if __name__ == "__main__":
    main()
