"""Simulated quantum annealing at the frontier: Titiloye and Crispin's path-integral Monte
Carlo for graph colouring on the engine's focused candidate moves, beside the default
technique, on bench_frontier's Lewis-style instances.

An experiment, not an engine option. Deduction first (cpu_reference.sudoku.batch.logic_fill),
every free cell on one of its candidates, the cost the tabu search's
(benchmarks/bench_frontier_tabu.py, whose counts and conflict sets each replica keeps).

    replicas   P grids of the puzzle (Trotter slices) on a ring, replica k next to k - 1 and
               k + 1 (mod P)
    energy     the sum of the replicas' costs, less J times the agreements: the pairs (a cell,
               two neighbouring replicas) holding the same digit there
    coupling   J = -(T / 2) ln tanh(G / T): near 0 while the field G is large, growing as G
               falls, so the replicas are free at first and pulled together at the end
    sweep      each replica in turn: a free cell drawn among its cells in conflict, a new
               digit among the cell's candidates, made with Metropolis' rule at temperature T
               on the change of the energy
    trial      SWEEPS sweeps with G falling linearly from G0 to G0 / 1000 and T geometrically
               from T0 to T1 (Titiloye and Crispin hold T; T0 = T1 does); an unsolved trial
               starts again from G0 and T0 with its grids REHEATS times in a row, then from
               fresh random grids

A solution is any replica with no cell in conflict. One ring a thread (`--chains`), each on
numba's generator seeded from (--seed, chain); a solution counts when the verifier passes it
within --limit wall seconds. The replicas exchange digits through the coupling, so a solution
does not replay from one replica's draws alone.

Glossary of index names (as in benchmarks/bench_frontier_tabu.py):
    n, N      order and side; cells N * N, cell r * N + c
    k         replica 0..P-1; grids[k], counts[k], confs[k], csets[k], wheres[k] its state
    state     int64[sweep of the trial, trials, proposals, solved replica + 1 (0: none),
              trials in a row on the same grids]

Results: benchmarks/results/tuning/frontier_quantum_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_quantum [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--chains 2] [--quantum P:T0:T1:G0:SWEEPS:REHEATS ...] [--no-default]
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from benchmarks import bench_frontier_tabu as bt
from benchmarks.frontier_chains import chains_report, experiment_main, race

SWEEPS_A_CALL = 2_000  # sweeps between two looks at the clock
SETTINGS = ("10:0.45:0.3:0.5:2000000:3",)


@nb.njit(cache=True, nogil=True)
def coupling(t: float, field: float) -> float:
    """J = -(T / 2) ln tanh(G / T): the reward for one agreement between neighbouring replicas."""
    return -0.5 * t * math.log(math.tanh(field / t))


@nb.njit(cache=True, nogil=True)
def fresh_replicas(N, shared, reps):
    """Every replica a fresh random start; its counts, conflicts and conflict set."""
    filled, cand, ncand, movable, units, members = shared
    grids, counts, confs, csets, wheres = reps
    for k in range(grids.shape[0]):
        bt.fresh_grid(N, filled, cand, ncand, grids[k])
        bt.recount(N, grids[k], movable, units, counts[k], confs[k], csets[k], wheres[k])


@nb.njit(cache=True, nogil=True)
def sweep(N, shared, reps, t, j):
    """One sweep at temperature t and coupling j (module docstring). Returns the replica, plus
    one, that is left with no cell in conflict (0: none)."""
    filled, cand, ncand, movable, units, members = shared
    grids, counts, confs, csets, wheres = reps
    P = grids.shape[0]
    for k in range(P):
        cs = csets[k]
        if cs[0] == 0:
            return k + 1
        g = grids[k]
        count = counts[k]
        x = cs[1 + np.random.randint(cs[0])]
        d = cand[x, np.random.randint(ncand[x])]
        a = g[x]
        if d == a:
            continue
        ux, uy, uz = units[x, 0], units[x, 1], units[x, 2]
        delta = count[ux, d] + count[uy, d] + count[uz, d]
        delta -= count[ux, a] + count[uy, a] + count[uz, a] - 3
        before = grids[(k + P - 1) % P, x]
        after = grids[(k + 1) % P, x]
        agree = (before == d) + (after == d) - (before == a) - (after == a)
        energy = delta - j * agree
        if energy <= 0.0 or np.random.random() < math.exp(-energy / t):
            bt.move_cell(N, x, d, g, movable, units, members, count, confs[k], cs, wheres[k])
            if cs[0] == 0:
                return k + 1
    return 0


@nb.njit(cache=True, nogil=True)
def run_sweeps(n, sweeps, shared, reps, state, params):
    """`sweeps` sweeps of one ring (module docstring). params: float64[P, T0, T1, G0, SWEEPS,
    REHEATS]; state as in the glossary."""
    N = n * n
    P = reps[0].shape[0]
    t0, t1, g0, length, reheats = params[1], params[2], params[3], params[4], params[5]
    for _ in range(sweeps):
        progress = state[0] / length
        field = g0 * max(1.0 - progress, 1e-3)
        t = t0 * (t1 / t0) ** progress
        solved = sweep(N, shared, reps, t, coupling(t, field))
        state[2] += solved if solved else P  # a sweep stops at the replica that solves
        if solved:
            state[3] = solved
            return
        state[0] += 1
        if state[0] >= length:
            state[0] = 0
            state[1] += 1
            state[4] += 1
            if state[4] > reheats:
                state[4] = 0
                fresh_replicas(N, shared, reps)


def parse_setting(setting: str) -> np.ndarray:
    """P:T0:T1:G0:SWEEPS:REHEATS as float64 params; ValueError when malformed."""
    try:
        params = np.array([float(v) for v in setting.split(":")], np.float64)
    except ValueError:
        params = np.zeros(0)
    if params.size != 6 or params[0] < 2 or min(params[1:5]) <= 0 or params[5] < 0:
        raise ValueError(
            f"quantum {setting!r}: expected P:T0:T1:G0:SWEEPS:REHEATS, P >= 2, T0, T1, G0 and "
            "SWEEPS above 0, REHEATS 0 or more"
        )
    return params


def new_ring(cells, order: int, params: np.ndarray, seed: int):
    """((shared, replicas), state) of one ring on the puzzle, started; None when deduction
    contradicts the givens. Seeds numba's generator of the calling thread."""
    made = bt.new_chain(cells, order, seed)
    if made is None:
        return None
    filled, cand, ncand, movable, units, members, grid, count, conf, cset, where, _ = made[0]
    P = int(params[0])
    reps = tuple(np.repeat(a[None], P, axis=0) for a in (grid, count, conf, cset, where))
    shared = (filled, cand, ncand, movable, units, members)
    fresh_replicas(order * order, shared, reps)
    return (shared, reps), np.zeros(5, np.int64)


def quantum_solve(cells, order: int, setting: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` rings of replicas, one thread each, until one solves or `limit`
    wall seconds pass: an outcome bench_frontier.checked reads (status, seconds, solution,
    proposals, trials)."""
    params = parse_setting(setting)

    def start(index: int):
        return new_ring(cells, order, params, seed * 1000 + index)

    def advance(ring, state) -> list | None:
        shared, reps = ring
        run_sweeps(order, SWEEPS_A_CALL, shared, reps, state, params)
        return reps[0][state[3] - 1].tolist() if state[3] else None

    return race(chains, limit, start, advance, lambda state: (state[2], state[1]))


HOW = (
    "quantum P:T0:T1:G0:SWEEPS:REHEATS: {chains} chains, one thread each, each a ring of P "
    "replicas coupled by the field G (module docstring). M/s: millions of proposals of all "
    "chains over the seconds spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "Simulated quantum annealing at the frontier", HOW, 2)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(
        __doc__, "quantum", "P:T0:T1:G0:SWEEPS:REHEATS", SETTINGS, quantum_solve, render
    )


if __name__ == "__main__":
    main()
