"""Sirdey's annealing for Sudoku of order n: the rules, written once for the CPU and CUDA.

Glossary (see also sudoku_layout):
    g        chain index over the whole batch, g = p * cpp + i
    p        puzzle index in the batch
    cpp      chains per puzzle
    i        chain index inside its puzzle
    f        index into a puzzle's list of free cells, 0 <= f < nfree
    k        plateau index inside the current trial (-1: a new trial starts next)
    L        moves per plateau
    P        peers per cell; also the largest possible delta of a move
    thr[d]   acceptance threshold of a move of delta d: accept iff u32 < thr[d]

Per-chain arrays (chain-major: row g belongs to chain g):

    vals[g, c]       uint8   digit in cell c (givens included), 1..N
    board[g, d-1, w] uint64  bitboard of the cells holding digit d
    rng[g, 0:2]      uint64  xoroshiro128+ state (see rng.py)
    ctr[g, :]        int64   counters, columns named by the C_* constants below
    best_vals[g, c]  uint8   the lowest-cost grid this chain has ended a plateau with

Per-puzzle arrays:

    given_vals[p, c]       uint8   givens, 0 on free cells
    given_board[p, d-1, w] uint64  bitboards of the givens
    free[p, f]             int16   free cells
    nfree[p]               int32
    solved[p]              int32   1 once any chain of the puzzle reached cost 0

One move (Sirdey): draw one 64-bit word r (layout in rng.py); the cell is free[site], the new
digit is drawn among the N - 1 others, delta = conflicts(new) - conflicts(old) by popcount of the
new/old digit's bitboard against the cell's peers mask; Metropolis by integer threshold.

`model(n)` returns jitted functions specialised for order n (N, W, P are compile-time
constants). `drive_chain` holds the whole chain logic (trials, plateaus, stops); the CPU runner
below calls it in a prange loop and the CUDA kernel in gpu_anneal calls the very same function.
"""

from __future__ import annotations

import math
from functools import cache
from types import SimpleNamespace

import numpy as np
from llvmlite import ir
from numba import njit, prange, types, uint32, uint64
from numba.extending import intrinsic

from cpu_reference.rng import next_u64
from cpu_reference.schedules import KIND_LINEAR, Schedule
from cpu_reference.sudoku_layout import layout

# counter columns of ctr[g, :]
C_COST = 0  # current cost
C_BEST = 1  # best cost of the current trial
C_PLATEAU = 2  # k, plateau index in the trial; -1 before a trial starts
C_LAST_IMPROVE = 3  # plateau of the trial's last new best
C_TRIALS = 4  # trials started
C_PROPOSALS = 5  # moves proposed, all trials
C_STATUS = 6  # RUNNING, SOLVED, EXHAUSTED
C_BEST_VALS_COST = 7  # cost of best_vals
C_ACCEPTED = 8  # moves accepted, all trials
N_COUNTERS = 9

RUNNING = 0
SOLVED = 1
EXHAUSTED = 2

MOVE_SIRDEY = 0
MOVE_NAMES = {"sirdey": MOVE_SIRDEY}


@intrinsic
def popcount64(typingctx, x):
    """Population count of a uint64 (one popcnt / popc instruction on CPU and GPU)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@cache
def model(n: int) -> SimpleNamespace:
    """Jitted rules of order n: thresholds, trial start, one plateau, and the chain driver."""
    lay = layout(n)
    N, W, P, CELLS = lay.N, lay.W, lay.peer_count, lay.cells
    NM1 = N - 1

    @njit(inline="always")
    def conflicts(board, peers, d, c):
        """Number of peers of cell c holding digit d (board rows are digit - 1)."""
        total = uint64(0)
        for w in range(W):
            total += popcount64(board[d - uint32(1), w] & peers[c, w])
        return np.int64(total)

    @njit(inline="always")
    def fill_thresholds(thr, beta):
        """thr[d] = floor(exp(-beta d) (2**32 - 1)) for d = 1..P, by repeated multiplication."""
        e1 = math.exp(-beta)
        e = 1.0
        for d in range(1, P + 1):
            e *= e1
            thr[d] = uint32(e * 4294967295.0)

    @njit(inline="always")
    def beta_at(kind, beta0, step, k):
        """Inverse temperature of plateau k: linear (Sirdey) or geometric."""
        if kind == KIND_LINEAR:
            return beta0 + k * step
        return beta0 * math.exp(k * step)

    @njit(inline="always")
    def full_cost(vals, board, peers):
        """c(w): conflicting peer pairs, from scratch."""
        total = np.int64(0)
        for c in range(CELLS):
            total += conflicts(board, peers, vals[c], c)
        return total // 2

    @njit(inline="always")
    def start_trial(vals, board, given_vals, given_board, free, nfree, peers, s0, s1):
        """A fresh random state: every free cell uniform on 1..N. Returns (cost, s0, s1)."""
        for d in range(N):
            for w in range(W):
                board[d, w] = given_board[d, w]
        for c in range(CELLS):
            vals[c] = given_vals[c]
        for f in range(nfree):
            r, s0, s1 = next_u64(s0, s1)
            c = free[f]
            d = 1 + (((r >> uint32(32)) * uint64(N)) >> uint32(32))
            vals[c] = d
            board[d - 1, c >> 6] |= uint64(1) << uint64(c & 63)
        return full_cost(vals, board, peers), s0, s1

    @njit(inline="always")
    def plateau(vals, board, thr, free, nfree, peers, moves, cost, best, s0, s1):
        """Up to `moves` Sirdey moves; stops at cost 0. Returns (cost, best, done, acc, s0, s1)."""
        accepted = 0
        for m in range(moves):
            r, s0, s1 = next_u64(s0, s1)
            # unsigned indices: no negative-index wraparound code in the hot loop
            c = uint32(free[((r & uint64(0xFFFFF)) * uint64(nfree)) >> uint32(20)])
            old = uint32(vals[c])
            new = uint32(1 + ((((r >> uint32(20)) & uint64(0xFFF)) * uint64(NM1)) >> uint32(12)))
            if new >= old:
                new += uint32(1)
            delta = conflicts(board, peers, new, c) - conflicts(board, peers, old, c)
            if delta <= 0 or uint32(r >> uint32(32)) < thr[uint32(delta)]:
                bit = uint64(1) << uint64(c & uint32(63))
                w = c >> uint32(6)
                board[old - uint32(1), w] ^= bit
                board[new - uint32(1), w] ^= bit
                vals[c] = new
                cost += delta
                accepted += 1
                if cost < best:
                    best = cost
                    if cost == 0:
                        return cost, best, m + 1, accepted, s0, s1
        return cost, best, moves, accepted, s0, s1

    @njit
    def drive_chain(
        g, p, vals, board, thr,
        best_vals, ctr, rng, given_vals, given_board, free, nfree, peers, solved,
        kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget, stop_on_solved,
    ):  # fmt: skip
        """Run chain g (of puzzle p) for up to `budget` plateaus.

        vals, board and thr are the chain's working grid, bitboards and threshold table (rows
        of the batch on the CPU, local copies on the GPU); the other arrays are the whole
        batch's. Starts trials as needed (trial_cap of them at most), ends a trial when T < T_f
        or after `stall` plateaus without a new best, stops at cost 0 (setting solved[p]) or,
        when stop_on_solved, as soon as another chain has solved the same puzzle.
        """
        # Only the values the plateau loop needs live in registers; the other counters are
        # updated in ctr once per plateau (cheap, and it keeps the GPU kernel free of spills).
        s0 = rng[g, 0]
        s1 = rng[g, 1]
        cost = ctr[g, C_COST]
        best = ctr[g, C_BEST]
        k = ctr[g, C_PLATEAU]
        for _ in range(budget):
            if ctr[g, C_STATUS] != RUNNING:
                break
            if stop_on_solved and solved[p] != 0:
                break
            if k < 0:
                if ctr[g, C_TRIALS] >= trial_cap:
                    ctr[g, C_STATUS] = EXHAUSTED
                    break
                cost, s0, s1 = start_trial(
                    vals, board, given_vals[p], given_board[p], free[p], nfree[p], peers, s0, s1
                )
                ctr[g, C_TRIALS] += 1
                k = 0
                best = cost
                ctr[g, C_LAST_IMPROVE] = 0
            if cost > 0 and nfree[p] > 0:
                fill_thresholds(thr, beta_at(kind, beta0, step, k))
                prev_best = best
                cost, best, done, acc, s0, s1 = plateau(
                    vals, board, thr, free[p], nfree[p], peers, plateau_len, cost, best, s0, s1
                )
                ctr[g, C_PROPOSALS] += done
                ctr[g, C_ACCEPTED] += acc
                if best < prev_best:
                    ctr[g, C_LAST_IMPROVE] = k
            if cost < ctr[g, C_BEST_VALS_COST]:
                ctr[g, C_BEST_VALS_COST] = cost
                for c in range(CELLS):
                    best_vals[g, c] = vals[c]
            if cost == 0:
                ctr[g, C_STATUS] = SOLVED
                solved[p] = 1
                break
            k += 1
            stalled = stall > 0 and k - ctr[g, C_LAST_IMPROVE] >= stall
            if k >= max_plateaus or stalled or nfree[p] == 0:
                k = -1
        ctr[g, C_COST] = cost
        ctr[g, C_BEST] = best
        ctr[g, C_PLATEAU] = k
        rng[g, 0] = s0
        rng[g, 1] = s1

    @njit(parallel=True)
    def run_slice_cpu(
        vals, boards, best_vals, thr, ctr, rng,
        given_vals, given_board, free, nfree, peers, solved, cpp,
        kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget, stop_on_solved,
    ):  # fmt: skip
        """Every chain of the batch for up to `budget` plateaus, one chain per prange iteration."""
        for g in prange(vals.shape[0]):
            drive_chain(
                g, g // cpp, vals[g], boards[g], thr[g],
                best_vals, ctr, rng, given_vals, given_board, free, nfree, peers, solved,
                kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget,
                stop_on_solved,
            )  # fmt: skip

    return SimpleNamespace(
        n=n,
        N=N,
        W=W,
        P=P,
        cells=CELLS,
        conflicts=conflicts,
        fill_thresholds=fill_thresholds,
        full_cost=full_cost,
        start_trial=start_trial,
        plateau=plateau,
        drive_chain=drive_chain,
        run_slice_cpu=run_slice_cpu,
    )


def schedule_args(sched: Schedule) -> tuple:
    """The schedule as the scalar arguments of drive_chain: kind, beta0, step, L, K, stall."""
    return (
        sched.kind,
        float(sched.beta0),
        float(sched.step),
        int(sched.plateau),
        int(sched.max_plateaus),
        int(sched.stall),
    )
