"""Pool kernels: per-puzzle status reduced on the device, reported grids gathered, slots reseeded.

Glossary: p slot (puzzle) index, i chain index within its puzzle, g = p * cpp + i chain index,
cpp chains per puzzle, k index into a list of slots, t thread index in a block, T threads a block.

puzzle_status    one block a puzzle: each thread folds chains i = t, t + T, ... of its puzzle, then
                 the block folds the T partial results in shared memory (a tree, T/2 .. 1) into
                 the status row of gpu_anneal.pool_status (same rows as its numpy twin).
gather_grids     out[k, c] = best_vals[g, c] for the reported chain g of slot slots[k]: only these
                 rows leave the device.
scatter_rows     row j of a staging array to slot slots[j] of a per-puzzle array (both seen as
                 bytes): a refill's new rows reach the device in one copy and one kernel.
fresh_chains     slot slots[k]'s chains start afresh (the counters and best grid that
                 cpu_reference.sudoku.batch.load_puzzle writes), chain i's RNG state being
                 first[k] jumped i times: M_b products over the set bits b of i
                 (cpu_reference.anneal.stream_jump), so the host sends 16 bytes a slot, not 16 a
                 chain (gpu_anneal.kernels.chain_start's clear_chain and jumped_state, which the
                 persistent kernel calls too).

Shared memory of a puzzle_status block: 9 int64 arrays of T (T = 32: 2.3 KB).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import cuda, int64, uint64

from cpu_reference.sudoku import rules
from gpu_anneal import pool_status
from gpu_anneal.kernels.chain_start import clear_chain, jumped_state
from gpu_anneal.kernels.kernel_cache import cached_jit, module_copy

REDUCE_THREADS = 32  # a power of two: one warp a puzzle
THREADS = 128  # gather_grids and fresh_chains
INT64_MAX = np.iinfo(np.int64).max
T = REDUCE_THREADS
C_STATUS, C_PROPOSALS, C_TRIALS = rules.C_STATUS, rules.C_PROPOSALS, rules.C_TRIALS
C_ACCEPTED, C_BEST_VALS_COST = rules.C_ACCEPTED, rules.C_BEST_VALS_COST
RUNNING, SOLVED = rules.RUNNING, rules.SOLVED


@cuda.jit(device=True)
def better_solve(prop_a, i_a, prop_b, i_b):
    """Whether solve (prop_b, i_b) beats (prop_a, i_a): fewer proposals, then lower index."""
    return prop_b < prop_a or (prop_b == prop_a and i_b < i_a)


@cache
def kernels() -> dict:
    """The pool kernels for the current device: {'status', 'gather', 'fresh', 'scatter'}.

    Copies of the kernels below in a generated module (kernel_cache.module_copy), compiled on
    first use or loaded from the disk cache where an earlier process compiled them.
    """
    module = module_copy("pool", (puzzle_status, gather_grids, fresh_chains, scatter_rows))
    return {
        "status": cached_jit(module.puzzle_status),
        "gather": cached_jit(module.gather_grids),
        "fresh": cached_jit(module.fresh_chains),
        "scatter": cached_jit(module.scatter_rows),
    }


def puzzle_status(ctr, cpp, status):
    """Kernel, one block of T threads a puzzle: status[p, :] from the counters of p's chains."""
    run = cuda.shared.array(T, int64)
    nsol = cuda.shared.array(T, int64)
    sprop = cuda.shared.array(T, int64)
    sidx = cuda.shared.array(T, int64)
    cost = cuda.shared.array(T, int64)
    cidx = cuda.shared.array(T, int64)
    trials = cuda.shared.array(T, int64)
    props = cuda.shared.array(T, int64)
    acc = cuda.shared.array(T, int64)
    p = cuda.blockIdx.x
    t = cuda.threadIdx.x
    run[t] = 0
    nsol[t] = 0
    sprop[t] = INT64_MAX
    sidx[t] = INT64_MAX
    cost[t] = INT64_MAX
    cidx[t] = INT64_MAX
    trials[t] = 0
    props[t] = 0
    acc[t] = 0
    base = p * cpp
    i = t
    while i < cpp:
        g = base + i
        st = ctr[g, C_STATUS]
        if st == RUNNING:
            run[t] += 1
        if st == SOLVED:
            nsol[t] += 1
            if better_solve(sprop[t], sidx[t], ctr[g, C_PROPOSALS], i):
                sprop[t] = ctr[g, C_PROPOSALS]
                sidx[t] = i
        if ctr[g, C_BEST_VALS_COST] < cost[t]:  # i grows: ties keep the lower index
            cost[t] = ctr[g, C_BEST_VALS_COST]
            cidx[t] = i
        trials[t] += ctr[g, C_TRIALS]
        props[t] += ctr[g, C_PROPOSALS]
        acc[t] += ctr[g, C_ACCEPTED]
        i += T
    cuda.syncthreads()
    half = T // 2
    while half > 0:
        if t < half:
            u = t + half
            run[t] += run[u]
            nsol[t] += nsol[u]
            if better_solve(sprop[t], sidx[t], sprop[u], sidx[u]):
                sprop[t] = sprop[u]
                sidx[t] = sidx[u]
            if cost[u] < cost[t] or (cost[u] == cost[t] and cidx[u] < cidx[t]):
                cost[t] = cost[u]
                cidx[t] = cidx[u]
            trials[t] += trials[u]
            props[t] += props[u]
            acc[t] += acc[u]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        pick = sidx[0] if nsol[0] > 0 else cidx[0]
        if pick >= cpp:  # every best cost unset (no trial yet): the first chain
            pick = 0
        g = base + pick
        status[p, pool_status.S_RUNNING] = run[0]
        status[p, pool_status.S_SOLVED] = nsol[0]
        status[p, pool_status.S_PICK] = pick
        status[p, pool_status.S_PICK_COST] = ctr[g, C_BEST_VALS_COST]
        status[p, pool_status.S_PICK_TRIALS] = ctr[g, C_TRIALS]
        status[p, pool_status.S_PICK_PROPOSALS] = ctr[g, C_PROPOSALS]
        status[p, pool_status.S_TRIALS] = trials[0]
        status[p, pool_status.S_PROPOSALS] = props[0]
        status[p, pool_status.S_ACCEPTED] = acc[0]


def gather_grids(best_vals, status, slots, count, cpp, out):
    """Kernel: out[k, :] = the reported chain's best grid of slot slots[k], for k < count."""
    x = cuda.grid(1)
    width = out.shape[1]
    if x >= count * width:
        return
    k = x // width
    c = x - k * width
    p = slots[k]
    out[k, c] = best_vals[p * cpp + status[p, pool_status.S_PICK], c]


def fresh_chains(ctr, rng, best_vals, slots, first, count, cpp, powers):
    """Kernel: the chains of slots[k], k < count, start afresh from RNG state first[k]."""
    x = cuda.grid(1)
    if x >= count * cpp:
        return
    k = x // cpp
    i = x - k * cpp
    g = slots[k] * cpp + i
    clear_chain(g, ctr, best_vals)
    s0, s1 = jumped_state(first[k, 0], first[k, 1], uint64(i), powers)
    rng[g, 0] = s0
    rng[g, 1] = s1


def scatter_rows(rows, slots, count, out):
    """Kernel: out[slots[j], :] = rows[j, :] for j < count (byte rows: any array seen as
    uint8[slots, row bytes])."""
    x = cuda.grid(1)
    width = rows.shape[1]
    if x >= count * width:
        return
    j = x // width
    c = x - j * width
    out[slots[j], c] = rows[j, c]


def blocks(work: int, threads: int = THREADS) -> int:
    """Blocks of `threads` covering `work` items (at least one)."""
    return max(1, (work + threads - 1) // threads)
