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
    board[g, d-1, w] uint64  bitboard of the cells holding digit d; the rules see one chain's
                             board flattened, word (d-1) * W + w, and peers as word c * W + w
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
from collections import namedtuple
from functools import cache
from types import SimpleNamespace

import numpy as np
from llvmlite import ir
from numba import njit, prange, types, uint32, uint64
from numba.extending import intrinsic

from cpu_reference.anneal.rng import next_u64, uniform_below
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import KIND_LINEAR, Schedule

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

MOVE_SIRDEY = 0  # Sirdey: one free cell gets one of the N - 1 other digits
MOVE_CANDIDATE = 1  # Sirdey's move, the new digit drawn among the cell's candidates
MOVE_BOX_SWAP = 2  # Lewis: boxes hold permutations; two free cells of one box swap digits
MOVE_NAMES = {"sirdey": MOVE_SIRDEY, "candidate": MOVE_CANDIDATE, "box-swap": MOVE_BOX_SWAP}


PUZZLE_ARRAYS = (
    "given_vals", "given_board", "init_cells", "ninit", "move_cells", "nmove", "cand", "ncand",
    "box_cells", "nbox", "box_missing",
)  # fmt: skip

# One puzzle's rows of the per-puzzle arrays, as the rules see them.
PuzzleView = namedtuple(
    "PuzzleView", "init_cells ninit move_cells nmove cand ncand box_cells nbox box_missing"
)


def max_delta(n: int, move: int) -> int:
    """Largest cost increase of one move: P for one-cell moves, 2(P - 1) for a box swap."""
    peers = layout(n).peer_count
    return 2 * (peers - 1) if move == MOVE_BOX_SWAP else peers


@intrinsic
def popcount64(typingctx, x):
    """Population count of a uint64 (one popcnt / popc instruction on CPU and GPU)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@cache
def model(n: int, move: int = MOVE_SIRDEY) -> SimpleNamespace:
    """Jitted rules of order n and a move: thresholds, trial start, plateau, chain driver.

    The move is a compile-time constant: each (order, move) pair is its own specialised code.
    """
    lay = layout(n)
    N, W, P, CELLS = lay.N, lay.W, lay.peer_count, lay.cells
    NM1 = N - 1
    TMAX = max_delta(n, move)
    WU = np.uint32(W)  # unsigned constants keep index arithmetic free of sign checks
    ONE = np.uint32(1)

    @njit(inline="always")
    def conflicts(board, peers, d, c):
        """Number of peers of cell c holding digit d (flattened board and peers, see above)."""
        total = uint64(0)
        row = (uint32(d) - ONE) * WU
        at = uint32(c) * WU
        for w in range(W):
            total += popcount64(board[row + uint32(w)] & peers[at + uint32(w)])
        return np.int64(total)

    @njit(inline="always")
    def fill_thresholds(thr, beta):
        """thr[d] = floor(exp(-beta d) (2**32 - 1)) for d = 1..TMAX, by repeated multiplication."""
        e1 = math.exp(-beta)
        e = 1.0
        for d in range(1, TMAX + 1):
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
    def start_trial(vals, board, given_vals, given_board, pz, peers, s0, s1):
        """A fresh random state for the move's search space. Returns (cost, s0, s1).

        Sirdey and candidate moves: every free cell uniform among its candidates (all N digits
        for Sirdey's move). Box swap: each box's missing digits shuffled into its free cells.
        """
        for i in range(N * W):
            board[i] = given_board[i]
        for c in range(CELLS):
            vals[c] = given_vals[c]
        if move == MOVE_BOX_SWAP:
            for b in range(N):
                nb = pz.nbox[b]
                for j in range(nb):
                    vals[pz.box_cells[b, j]] = pz.box_missing[b, j]
                for j in range(nb - 1, 0, -1):  # Fisher-Yates over the box's free cells
                    i, s0, s1 = uniform_below(s0, s1, j + 1)
                    a = pz.box_cells[b, j]
                    z = pz.box_cells[b, i]
                    t = vals[a]
                    vals[a] = vals[z]
                    vals[z] = t
            for f in range(pz.ninit):
                c = pz.init_cells[f]
                board[(vals[c] - 1) * W + (c >> 6)] |= uint64(1) << uint64(c & 63)
        else:
            for f in range(pz.ninit):
                c = pz.init_cells[f]
                j, s0, s1 = uniform_below(s0, s1, pz.ncand[c])
                d = pz.cand[c, j]
                vals[c] = d
                board[(d - 1) * W + (c >> 6)] |= uint64(1) << uint64(c & 63)
        return full_cost(vals, board, peers), s0, s1

    @njit(inline="always")
    def puzzle_view(
        p, init_cells, ninit, move_cells, nmove, cand, ncand, box_cells, nbox, box_missing
    ):
        """Puzzle p's rows of the per-puzzle arrays, as start_trial and plateau take them."""
        return PuzzleView(
            init_cells[p], ninit[p], move_cells[p], nmove[p], cand[p], ncand[p],
            box_cells[p], nbox[p], box_missing[p],
        )  # fmt: skip

    @njit(inline="always")
    def plateau(vals, board, thr, pz, peers, moves, cost, best, s0, s1):
        """Up to `moves` moves; stops at cost 0. Returns (cost, best, done, accepted, s0, s1).

        Indices are unsigned so that the hot loop carries no negative-index wraparound code.
        """
        accepted = 0
        # Arrays taken out of the tuple once: reading a tuple's array inside the loop would
        # touch its reference count at every move on the CPU.
        nmove = uint64(pz.nmove)
        move_cells = pz.move_cells
        cand = pz.cand
        ncand = pz.ncand
        box_cells = pz.box_cells
        nbox = pz.nbox
        for m in range(moves):
            r, s0, s1 = next_u64(s0, s1)
            if move == MOVE_BOX_SWAP:
                b = uint32(move_cells[((r & uint64(0xFFFFFFFF)) * nmove) >> uint32(32)])
                nb = uint64(nbox[b])
                ia = uint32(((r >> uint32(32)) * nb) >> uint32(32))
                r, s0, s1 = next_u64(s0, s1)
                ib = uint32(((r & uint64(0xFFFFFFFF)) * (nb - uint64(1))) >> uint32(32))
                if ib >= ia:
                    ib += uint32(1)
                a = uint32(box_cells[b, ia])
                z = uint32(box_cells[b, ib])
                va = uint32(vals[a])
                vz = uint32(vals[z])
                # a and z share a box: each sees the other holding the digit it would receive
                delta = (
                    conflicts(board, peers, vz, a) + conflicts(board, peers, va, z) - 2
                    - conflicts(board, peers, va, a) - conflicts(board, peers, vz, z)
                )  # fmt: skip
                if delta <= 0 or uint32(r >> uint32(32)) < thr[uint32(delta)]:
                    wa = a >> uint32(6)
                    wz = z >> uint32(6)
                    ba = uint64(1) << uint64(a & uint32(63))
                    bz = uint64(1) << uint64(z & uint32(63))
                    board[(va - ONE) * WU + wa] ^= ba
                    board[(vz - ONE) * WU + wa] ^= ba
                    board[(vz - ONE) * WU + wz] ^= bz
                    board[(va - ONE) * WU + wz] ^= bz
                    vals[a] = vz
                    vals[z] = va
                else:
                    continue
            else:
                c = uint32(move_cells[((r & uint64(0xFFFFF)) * nmove) >> uint32(20)])
                old = uint32(vals[c])
                field = (r >> uint32(20)) & uint64(0xFFF)
                if move == MOVE_CANDIDATE:
                    j = uint32((field * uint64(ncand[c] - 1)) >> uint32(12))
                    new = uint32(cand[c, j])
                    if new >= old:
                        new = uint32(cand[c, j + uint32(1)])
                else:
                    new = uint32(1 + ((field * uint64(NM1)) >> uint32(12)))
                    if new >= old:
                        new += uint32(1)
                delta = conflicts(board, peers, new, c) - conflicts(board, peers, old, c)
                if delta <= 0 or uint32(r >> uint32(32)) < thr[uint32(delta)]:
                    bit = uint64(1) << uint64(c & uint32(63))
                    w = c >> uint32(6)
                    board[(old - ONE) * WU + w] ^= bit
                    board[(new - ONE) * WU + w] ^= bit
                    vals[c] = new
                else:
                    continue
            cost += delta
            accepted += 1
            best = min(best, cost)  # branch-free: cost moves up and down all the time
            if cost == 0:
                return cost, best, m + 1, accepted, s0, s1
        return cost, best, moves, accepted, s0, s1

    @njit
    def drive_chain(
        g, p, vals, board, thr, best_vals, ctr, rng, peers, solved,
        given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing,
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
        # The puzzle's rows are taken where they are used (not held across the loop), which
        # keeps them out of the GPU's registers between plateaus.
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
                view = puzzle_view(
                    p, init_cells, ninit, move_cells, nmove, cand, ncand, box_cells, nbox,
                    box_missing,
                )  # fmt: skip
                cost, s0, s1 = start_trial(
                    vals, board, given_vals[p], given_board[p], view, peers, s0, s1
                )
                ctr[g, C_TRIALS] += 1
                k = 0
                best = cost
                ctr[g, C_LAST_IMPROVE] = 0
            if cost > 0 and nmove[p] > 0:
                fill_thresholds(thr, beta_at(kind, beta0, step, k))
                prev_best = best
                view = puzzle_view(
                    p, init_cells, ninit, move_cells, nmove, cand, ncand, box_cells, nbox,
                    box_missing,
                )  # fmt: skip
                cost, best, done, acc, s0, s1 = plateau(
                    vals, board, thr, view, peers, plateau_len, cost, best, s0, s1
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
            if k >= max_plateaus or stalled or nmove[p] == 0:
                k = -1
        ctr[g, C_COST] = cost
        ctr[g, C_BEST] = best
        ctr[g, C_PLATEAU] = k
        rng[g, 0] = s0
        rng[g, 1] = s1

    @njit(parallel=True)
    def run_slice_cpu(
        vals, boards, best_vals, thr, ctr, rng, peers, solved, cpp,
        given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing,
        kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget, stop_on_solved,
    ):  # fmt: skip
        """Every chain of the batch for up to `budget` plateaus, one chain per prange iteration."""
        for g in prange(vals.shape[0]):
            drive_chain(
                g, g // cpp, vals[g], boards[g], thr[g], best_vals, ctr, rng, peers, solved,
                given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
                box_cells, nbox, box_missing,
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
