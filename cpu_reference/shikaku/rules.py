"""Shikaku by simulated annealing (seed 004, section 1.3): jitted chain and CPU runner.

Glossary:
    i        chain index (thread index on the GPU); chain i draws from RNG state i
    k        clue index; l candidate rectangle index (global, see cpu_reference.shikaku.puzzle)
    cell     r * W + c
    f        energy: sum over cells of coverage**2; a solution iff f = H * W
    beta     1 / T; plateau t uses beta0 * exp(t * growth) (geometric cooling T <- lambda T,
             growth = -log(lambda))

Per-chain arrays (rows indexed by i):

    cur    int32[chains, K]      chosen candidate (global index l) per clue
    best   int32[chains, K]      the best state seen in the chain's trials
    cover  int32[chains, H * W]  coverage of every cell by the current state
    best_f int64[chains]         energy of `best`; solved[i] = 1 iff best_f[i] = H * W

One trial: a uniform random candidate per clue, then `n_plateaus` plateaus of `plateau`
moves. A move picks a clue uniformly among the `movable` ones (more than one candidate), a new
candidate uniformly among its others, and accepts with probability min(1, exp(-beta * delta)).
Draws per move: clue, candidate, and (when delta > 0) the acceptance float.
Candidate sets: "all" (the seed's), "pruned" (no rectangle holding another clue), "propagated"
(pruned, then shrunk by exact propagation; see `shikaku.propagate`).
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
from cpu_reference.shikaku.puzzle import Shikaku, candidates, propagate


@njit(cache=True)
def paint(cover, i, rect, width, sign):
    """Add `sign` to the coverage of rect's cells in row i of cover; returns the energy change."""
    t = rect[0]
    left = rect[1]
    d = int64(0)
    for r in range(t, t + rect[2]):
        base = r * width
        for c in range(left, left + rect[3]):
            old = int64(cover[i, base + c])
            d += (old + sign) * (old + sign) - old * old
            cover[i, base + c] = old + sign
    return d


@njit(cache=True)
def energy(cover, i):
    """Energy of chain i from its coverage row: sum of coverage squared."""
    f = int64(0)
    for cell in range(cover.shape[1]):
        f += int64(cover[i, cell]) * int64(cover[i, cell])
    return f


@njit(cache=True)
def shikaku_trial(
    i,
    states,
    cand,
    start,
    movable,
    width,
    beta0,
    growth,
    plateau,
    n_plateaus,
    cur,
    best,
    cover,
    best_f,
    solved,
    left,
    stop,
    early_stop,
):
    """One annealing trial of chain i from a random state, when it has a trial left (left[i],
    counted down); updates best, best_f, solved."""
    if solved[i] != 0 or left[i] <= 0:
        return
    left[i] -= 1
    s0 = states[i, 0]
    s1 = states[i, 1]
    n_clues = cur.shape[1]
    n_cells = cover.shape[1]
    target = int64(n_cells)
    for cell in range(n_cells):
        cover[i, cell] = 0
    for k in range(n_clues):
        n = int64(start[k + 1] - start[k])
        pick, s0, s1 = uniform_below(uint64(s0), uint64(s1), n)
        cur[i, k] = start[k] + int64(pick)
        paint(cover, i, cand[cur[i, k]], width, 1)
    f = energy(cover, i)
    if f < best_f[i]:
        best_f[i] = f
        for k in range(n_clues):
            best[i, k] = cur[i, k]
    n_mov = int64(movable.shape[0])
    if f == target:
        solved[i] = 1
        stop[0] = 1
    elif n_mov > 0:
        for t in range(n_plateaus):
            if early_stop and stop[0] != 0:
                break
            beta = beta0 * math.exp(t * growth)
            for m in range(plateau):
                if early_stop and (m & STOP_LOOK_MASK) == STOP_LOOK_MASK and stop[0] != 0:
                    break
                j, s0, s1 = uniform_below(uint64(s0), uint64(s1), n_mov)
                k = movable[int64(j)]
                n = int64(start[k + 1] - start[k])
                pick, s0, s1 = uniform_below(uint64(s0), uint64(s1), n - 1)
                old = cur[i, k]
                new = start[k] + int64(pick)
                if new >= old:
                    new += 1
                d = paint(cover, i, cand[old], width, -1)
                d += paint(cover, i, cand[new], width, 1)
                accept = d <= 0
                if not accept:
                    u, s0, s1 = uniform_float64(uint64(s0), uint64(s1))
                    accept = u < math.exp(-beta * d)
                if accept:
                    cur[i, k] = new
                    f += d
                    if f < best_f[i]:
                        best_f[i] = f
                        for q in range(n_clues):
                            best[i, q] = cur[i, q]
                else:
                    paint(cover, i, cand[new], width, -1)
                    paint(cover, i, cand[old], width, 1)
            if f == target:
                solved[i] = 1
                stop[0] = 1
                break
    states[i, 0] = uint64(s0)
    states[i, 1] = uint64(s1)


@njit(parallel=True, cache=True, nogil=True)  # nogil: gpu_anneal.stoppable_trials
def run_chains_cpu(states, *args):
    """One trial on every chain, one chain per prange iteration.

    `args` are shikaku_trial's after `states`: cand, start, movable, width, beta0, growth,
    plateau, n_plateaus, cur, best, cover, best_f, solved, left, stop, early_stop.
    """
    for i in prange(states.shape[0]):
        shikaku_trial(uint64(i), states, *args)  # the loop body's type of i: one compiled trial


CANDIDATE_SETS = ("all", "pruned", "propagated")


def model_arrays(p: Shikaku, candidate_set: str = "all"):
    """(cand, start, movable) for a candidate set; InputError on an unknown set."""
    if candidate_set not in CANDIDATE_SETS:
        raise InputError(f"candidates: {candidate_set!r} is not one of {', '.join(CANDIDATE_SETS)}")
    cand, start = candidates(p, pruned=candidate_set != "all")
    if candidate_set == "propagated":
        cand, start = propagate(p, cand, start)
    counts = np.diff(start)
    movable = np.nonzero(counts > 1)[0].astype(np.int64)
    return cand.astype(np.int64), start.astype(np.int64), movable


def default_schedule(p: Shikaku, n_movable: int) -> dict:
    """Defaults: T from 3 to 0.2 geometrically over 100 plateaus of 4 moves per movable clue."""
    return {"t0": 3.0, "t_final": 0.2, "n_plateaus": 100, "plateau": max(8, 4 * n_movable)}


def anneal(
    p: Shikaku,
    chains: int = 64,
    seed: int = 0,
    time_limit: float = 10.0,
    candidate_set: str = "all",
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
    on the device) or a callable with run_chains_cpu's signature; None: run_chains_cpu. Returns
    {solved, energy, rects (int64[clues, 4]: the best chain's), trials, seconds, chains,
    best_f (per chain), solved_chains,
    schedule (the t0, t_final, n_plateaus and plateau that ran)}.
    """
    t_start = time.perf_counter()
    cand, start, movable = model_arrays(p, candidate_set)
    given = {"t0": t0, "t_final": t_final, "n_plateaus": n_plateaus, "plateau": plateau}
    ran = default_schedule(p, len(movable)) | {k: v for k, v in given.items() if v is not None}
    if np.any(np.diff(start) == 0):
        return no_solution(t_start, chains, rects=None, schedule=ran)
    plateau, npl, beta0, growth = schedule(ran)
    k_count = len(start) - 1
    states, best_f, solved, stop = chain_arrays(chains, seed)
    left = trials_left(chains, max_trials)
    cur = np.zeros((chains, k_count), dtype=np.int64)
    best = np.zeros((chains, k_count), dtype=np.int64)
    cover = np.zeros((chains, p.height * p.width), dtype=np.int32)
    args = (
        states,
        cand,
        start,
        movable,
        p.width,
        beta0,
        growth,
        plateau,
        npl,
        cur,
        best,
        cover,
        best_f,
        solved,
        left,
        stop,
        int(early_stop),
    )
    rounds = run_trials(runner or run_chains_cpu, args, solved, t_start, time_limit, max_trials)
    i = int(np.argmin(best_f))
    rects = cand[best[i]].astype(np.int64)  # int64[clues, 4]: the best chain's rectangles
    return {
        "solved": bool(best_f[i] == p.height * p.width),
        "energy": int(best_f[i]),
        "rects": rects,
        **trial_stats(t_start, rounds, best_f, best, solved),
        "schedule": ran,
    }
