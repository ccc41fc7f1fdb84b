"""Hashiwokakero by simulated annealing (seed 004, section 2.3): jitted chain and CPU runner.

Glossary:
    i        chain index (thread on the GPU); chain i draws from RNG state i
    e        candidate edge (see cpu_reference.hashi.puzzle); m_e its multiplicity 0..maxb
    x        island index; v_x its value, d_x its bridge count
    C        crossings: pairs of crossing edges both in use
    D        sum over islands of (v_x - d_x)**2 (the seed's Delta W)
    nE       number of edges in use (|E| in the seed, multiplicity not counted)
    G        number of connected groups of islands joined by edges in use
    f        energy: wc * C + (D**2 if square else D) - we * nE + wg * (G - 1)
             the seed's (default, "seed"): wc = 1, square, we = 1, wg = 0
             "connected": wc = 2, D, we = 0, wg = 2 (connectivity in the energy, exact count)

A state is solved when C = 0, D = 0 and G = 1 (and nE = I - 1 when loops are forbidden);
that test is made whatever the energy, so the seed's energy can report valid answers only.

Per-chain arrays (rows indexed by i):

    mult   int32[chains, E]   current multiplicities       best  int32[chains, E]
    deg    int32[chains, I]   bridge count per island      mark  int32[chains, I]  BFS stamps
    queue  int32[chains, I]   BFS queue                    best_f int64[chains], solved int32

A move picks an edge uniformly and a new multiplicity uniformly among the maxb others
(an unused edge is added with 1..maxb bridges; a used one is removed or changed), so adding
is likelier when few edges are in use, as in the seed. One draw for the edge, one for the
value, one more for acceptance when the energy rises.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import int64, njit, prange, uint64

from cpu_reference.anneal.rng import uniform_below, uniform_float64
from cpu_reference.anneal.trials import (
    STOP_LOOK_MASK,
    chain_arrays,
    no_solution,
    run_trials,
    schedule,
    trial_stats,
    trials_left,
)
from cpu_reference.errors import InputError
from cpu_reference.hashi.puzzle import EdgeGraph, Hashi, component_labels, edge_graph

ENERGIES = {
    "seed": (1, 1, 1, 0),
    "connected": (2, 0, 0, 2),
}


@njit(cache=True)
def reach(i, src, dst, skip, mult, ea, eb, istart, ilist, mark, queue, stamp):
    """True when island dst is reachable from src over edges in use other than `skip`."""
    mark[i, src] = stamp
    queue[i, 0] = src
    head = 0
    tail = 1
    while head < tail:
        x = queue[i, head]
        head += 1
        if x == dst:
            return True
        for q in range(istart[x], istart[x + 1]):
            e = ilist[q]
            if e == skip or mult[i, e] == 0:
                continue
            y = ea[e] if eb[e] == x else eb[e]
            if mark[i, y] != stamp:
                mark[i, y] = stamp
                queue[i, tail] = y
                tail += 1
    return False


@njit(cache=True)
def count_groups(i, mult, ea, eb, istart, ilist, mark, queue, stamp):
    """Number of connected groups of islands over edges in use (stamps from `stamp` upward)."""
    n_i = istart.shape[0] - 1
    groups = 0
    for x in range(n_i):
        if mark[i, x] >= stamp:
            continue
        groups += 1
        reach(i, x, -1, -1, mult, ea, eb, istart, ilist, mark, queue, stamp)
    return groups


@njit(cache=True)
def energy_of(c, d, ne, g, wc, square, we, wg):
    """Energy from the four counts and the weights."""
    dd = d * d if square else d
    return wc * c + dd - we * ne + wg * (g - 1)


@njit(cache=True)
def hashi_trial(
    i,
    states,
    ea,
    eb,
    xstart,
    xlist,
    istart,
    ilist,
    values,
    maxb,
    tree,
    wc,
    square,
    we,
    wg,
    beta0,
    growth,
    plateau,
    n_plateaus,
    mult,
    deg,
    mark,
    queue,
    best,
    best_f,
    solved,
    left,
    stop,
    early_stop,
):
    """One trial of chain i from a random state, when it has a trial left (left[i], counted
    down); updates best, best_f and solved."""
    if solved[i] != 0 or left[i] <= 0:
        return
    left[i] -= 1
    s0 = states[i, 0]
    s1 = states[i, 1]
    n_e = ea.shape[0]
    n_i = values.shape[0]
    for x in range(n_i):
        deg[i, x] = 0
        mark[i, x] = 0
    stamp = 1
    for e in range(n_e):
        m, s0, s1 = uniform_below(uint64(s0), uint64(s1), maxb + 1)
        mult[i, e] = int64(m)
        deg[i, ea[e]] += int64(m)
        deg[i, eb[e]] += int64(m)
    c = int64(0)
    ne = int64(0)
    for e in range(n_e):
        if mult[i, e] > 0:
            ne += 1
            for q in range(xstart[e], xstart[e + 1]):
                if xlist[q] > e and mult[i, xlist[q]] > 0:
                    c += 1
    d = int64(0)
    for x in range(n_i):
        gap = int64(values[x] - deg[i, x])
        d += gap * gap
    g = count_groups(i, mult, ea, eb, istart, ilist, mark, queue, stamp)
    stamp += 1
    f = energy_of(c, d, ne, g, wc, square, we, wg)
    done = c == 0 and d == 0 and g == 1 and (tree == 0 or ne == n_i - 1)
    if f < best_f[i] or done:
        best_f[i] = f
        for e in range(n_e):
            best[i, e] = mult[i, e]
    if done:
        solved[i] = 1
        stop[0] = 1
    for t in range(n_plateaus):
        if done or (early_stop and stop[0] != 0):
            break
        beta = beta0 * math.exp(t * growth)
        for m in range(plateau):
            if early_stop and (m & STOP_LOOK_MASK) == STOP_LOOK_MASK and stop[0] != 0:
                break
            r, s0, s1 = uniform_below(uint64(s0), uint64(s1), n_e)
            e = int64(r)
            r, s0, s1 = uniform_below(uint64(s0), uint64(s1), maxb)
            old = int64(mult[i, e])
            new = int64(r)
            if new >= old:
                new += 1
            a = ea[e]
            b = eb[e]
            dm = new - old
            ga = int64(values[a] - deg[i, a])
            gb = int64(values[b] - deg[i, b])
            nd = d - ga * ga - gb * gb + (ga - dm) * (ga - dm) + (gb - dm) * (gb - dm)
            nc = c
            nne = ne
            ng = g
            if (old == 0) != (new == 0):
                used = int64(0)
                for q in range(xstart[e], xstart[e + 1]):
                    if mult[i, xlist[q]] > 0:
                        used += 1
                sign = int64(1) if old == 0 else int64(-1)
                nc = c + sign * used
                nne = ne + sign
                if wg != 0:
                    if stamp > 1000000000:
                        for x in range(n_i):
                            mark[i, x] = 0
                        stamp = 1
                    joined = reach(i, a, b, e, mult, ea, eb, istart, ilist, mark, queue, stamp)
                    stamp += 1
                    if not joined:
                        ng = g - sign
            nf = energy_of(nc, nd, nne, ng, wc, square, we, wg)
            delta = nf - f
            accept = delta <= 0
            if not accept:
                u, s0, s1 = uniform_float64(uint64(s0), uint64(s1))
                accept = u < math.exp(-beta * delta)
            if not accept:
                continue
            mult[i, e] = new
            deg[i, a] += dm
            deg[i, b] += dm
            c = nc
            d = nd
            ne = nne
            g = ng
            f = nf
            if c == 0 and d == 0:
                if wg == 0:
                    g = count_groups(i, mult, ea, eb, istart, ilist, mark, queue, stamp)
                    stamp += 1
                    f = energy_of(c, d, ne, g, wc, square, we, wg)
                if g == 1 and (tree == 0 or ne == n_i - 1):
                    done = True
            if f < best_f[i] or done:
                best_f[i] = f
                for q in range(n_e):
                    best[i, q] = mult[i, q]
            if done:
                solved[i] = 1
                stop[0] = 1
                break
    states[i, 0] = uint64(s0)
    states[i, 1] = uint64(s1)


@njit(parallel=True, cache=True, nogil=True)  # nogil: gpu_anneal.stoppable_trials
def run_chains_cpu(states, *args):
    """One trial on every chain, one chain per prange iteration.

    `args` are hashi_trial's after `states`: ea, eb, xstart, xlist, istart, ilist, values, maxb,
    tree, wc, square, we, wg, beta0, growth, plateau, n_plateaus, mult, deg, mark, queue, best,
    best_f, solved, left, stop, early_stop.
    """
    for i in prange(states.shape[0]):
        hashi_trial(uint64(i), states, *args)  # the loop body's type of i: one compiled trial


def default_schedule(n_edges: int, energy: str) -> dict:
    """Defaults: T from t0 down to 0.1 over 200 plateaus of 2 moves per edge."""
    t0 = 20.0 if energy == "seed" else 4.0
    return {"t0": t0, "t_final": 0.1, "n_plateaus": 200, "plateau": max(16, 2 * n_edges)}


def impossible(p: Hashi, g: EdgeGraph) -> str | None:
    """Why no answer can exist, from counting alone, or None: an island that its candidate edges
    cannot fill (value above maxb times its edges: a lone island, an island of 16), an odd sum
    of values (each bridge adds 2), or islands that no chain of candidate edges joins."""
    degree = np.diff(g.istart)
    full = np.nonzero(g.values > p.maxb * degree)[0]
    if len(full):
        r, c, v = (int(x) for x in p.islands[full[0]])
        return f"island ({r}, {c}) of value {v} has {int(degree[full[0]])} candidate edges"
    if int(g.values.sum()) % 2:
        return "the island values add up to an odd number"
    pairs = np.column_stack([g.ea, g.eb])
    if len(np.unique(component_labels(len(g.values), pairs))) > 1:
        return "some islands face no chain of islands that reaches the others"
    return None


def resolved_schedule(n_edges: int, energy: str, **given) -> dict:
    """The schedule a run takes: default_schedule with the settings given (not None)."""
    sched = default_schedule(n_edges, energy)
    sched.update({key: value for key, value in given.items() if value is not None})
    return sched


def anneal(
    p: Hashi,
    chains: int = 64,
    seed: int = 0,
    time_limit: float = 10.0,
    energy: str = "seed",
    t0: float | None = None,
    t_final: float | None = None,
    n_plateaus: int | None = None,
    plateau: int | None = None,
    max_trials: int | None = None,
    early_stop: bool = True,
    runner=None,
) -> dict:
    """Run trials on all chains (restarting failed ones) until one solves, time runs out or
    the chains have run max_trials trials in all (cpu_reference.anneal.trials: the last round
    may run on some chains only); `trials` in the result counts them over all chains.

    `runner`: a TrialRunner (cpu_reference.anneal.contract; the CUDA backend's keeps the arrays
    on the device) or a callable with run_chains_cpu's signature; None: run_chains_cpu.
    Returns {solved, energy, mult, bridges-ready mult of the best chain, trials, seconds,
    schedule (the t0, t_final, n_plateaus and plateau that ran), ...}; `solved` means a chain
    reached C = 0, D = 0 and one group (the caller still verifies). A puzzle that `impossible`
    rules out runs no trial: {no_solution: True, reason, ...}.
    """
    t_start = time.perf_counter()
    if energy not in ENERGIES:
        raise InputError(f"energy: {energy!r} is not one of {', '.join(ENERGIES)}")
    wc, square, we, wg = ENERGIES[energy]
    g = edge_graph(p)
    n_e = len(g.ea)
    n_i = len(g.values)
    ran = resolved_schedule(n_e, energy, t0=t0, t_final=t_final, n_plateaus=n_plateaus,
                            plateau=plateau)  # fmt: skip
    reason = impossible(p, g)
    if reason is not None:
        return no_solution(t_start, chains, mult=np.zeros(n_e, np.int64), reason=reason,
                           schedule=ran)  # fmt: skip
    plateau, npl, beta0, growth = schedule(ran)
    arrays = [
        a.astype(np.int64) for a in (g.ea, g.eb, g.xstart, g.xlist, g.istart, g.ilist, g.values)
    ]
    states, best_f, solved, stop = chain_arrays(chains, seed)
    left = trials_left(chains, max_trials)
    mult = np.zeros((chains, n_e), dtype=np.int32)
    deg = np.zeros((chains, n_i), dtype=np.int32)
    mark = np.zeros((chains, n_i), dtype=np.int32)
    queue = np.zeros((chains, n_i), dtype=np.int32)
    best = np.zeros((chains, n_e), dtype=np.int32)
    tree = 0 if p.allow_loops else 1
    args = (
        states,
        *arrays,
        p.maxb,
        tree,
        wc,
        square,
        we,
        wg,
        beta0,
        growth,
        plateau,
        npl,
        mult,
        deg,
        mark,
        queue,
        best,
        best_f,
        solved,
        left,
        stop,
        int(early_stop),
    )
    rounds = run_trials(runner or run_chains_cpu, args, solved, t_start, time_limit, max_trials)
    winners = np.nonzero(solved)[0]
    i = int(winners[0]) if len(winners) else int(np.argmin(best_f))
    return {
        "solved": bool(solved[i]),
        "energy": int(best_f[i]),
        "mult": best[i].astype(np.int64),
        **trial_stats(t_start, rounds, best_f, best, solved),
        "graph": g,
        "schedule": ran,
    }
