"""The impasse chains with one warp a chain: lanes over a cell's candidates, the very moves of
cpu_reference.sudoku.impasse.impasse_slice.

Glossary (besides cpu_reference.sudoku.impasse's):
    lane     the thread's index in its warp, 0..31; every lane holds the chain's control values
             (RNG state, counts, the drawn cell) as the same numbers
    chunk    candidates base .. base + 31 of the drawn cell, candidate base + lane on a lane
             (one chunk up to 32 candidates, two at 49x49 and 64x64)
    votes    a ballot of the lanes: bit j set when lane j's candidate replaces the choice

One move, every lane of the warp together:

    1. every lane draws the open cell x from the same RNG state (the same draw);
    2. a chunk at a time, lane j takes candidate m = base + j: its weight w_m (impasse.cell_delta,
       three holder loads), the running total stay + w_0 + ... + w_m by a warp scan, and the
       raw output of draw m of the one-pass choice; every lane steps the RNG over the chunk's
       draws (the same steps) and keeps draw j. The sequential choice replaces its pick with m
       when draw m, scaled to the running total, falls under w_m; those tests depend on no
       earlier pick, so the lanes make them at once and the last replacement wins: the highest
       lane of the ballot;
    3. lane 0 writes the pick (impasse.write_digit: the holders open, x closes), the warp syncs;
    4. the lanes copy the grid into the chain's best, cell by cell, where it has fewer open
       cells.

A draw's raw output does not depend on its bound (rng.uniform_below scales the top 32 bits), so
the chain draws what the CPU runner draws, move for move: RNG states, grids, best grids and
counts equal the CPU runner's (tests/cuda_sim/impasse_equality.py under the simulator). A trial
start (impasse.fresh_trial) runs on lane 0 alone.

A warp's state is the chain's rows of the state arrays, as one thread's: lane 0 writes, the warp
syncs, every lane reads. Where they are (k: the row the move loop indexes):

    global   this module's kernel (WarpKernel): the rows of chain i in global memory (k = i);
             blocks of WARPS_A_BLOCK warps
    shared   a copy written for an order (shared_kernel_function, SharedWarpKernel): the block
             copies its chain's rows into row 0 of shared arrays (k = 0) at a launch's start
             and back at its end, one warp a block; per chain (uint8 grid, int16 the rest):

                 grid[cells] | where[cells] | oset[cells + 1] | holder[3 N (N + 1)]
                 36x36: 1,296 + 2,592 + 2,594 + 7,992 = 14,474 bytes; 49x49: 26,708 (the
                 grid's 2,401 bytes padded to the int16 arrays' alignment)
                 64x64: 4,096 + 8,192 + 8,194 + 24,960 = 45,442, within a block's 48 KiB
                 (SHARED_LIMIT)

Warp operations (warp_sync, warp_ballot, warp_scan) are votes and
shuffles on a card; the simulator (NUMBA_ENABLE_CUDASIM=1), which has none, runs them through a
scratch row of its block and syncthreads, one warp a block:

    scratch[0 .. 31]   int64   lane j's value (ballot, scan)
"""

from __future__ import annotations

import threading

import numpy as np
from numba import config, cuda, from_dtype, int64, njit, uint32, uint64

from cpu_reference.anneal.rng import next_u64, uniform_below
from cpu_reference.sudoku.impasse import (
    ROW_TYPES,
    STAY_WEIGHT,
    cell_delta,
    fresh_trial,
    row_bytes,
    row_lengths,
    write_digit,
)
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.launch import TrialKernel

SIM = bool(config.ENABLE_CUDASIM)
WARP = 32
FULL = uint32(0xFFFFFFFF)
NAME = "sudoku-impasse-warp"  # the kernel's name in the PTX tables
# warps a block on a card (the simulator runs one: its warp operations sync the block)
WARPS_A_BLOCK = 1 if SIM else 4
SHARED_NAME = "sudoku-impasse-warp-shared"  # the shared-state copies' name in the PTX tables
SHARED_LIMIT = 48 * 1024  # bytes of static shared memory a block may hold
# The kernel here keeps a chain's state rows in global memory; a copy written by
# shared_kernel_function(order) sets these to hold them in its block's shared memory instead,
# the arrays sized for the order (one warp, one chain, a block)
SHARED_STATE = False
SHARED_CELLS = 1  # grid's and where's row: the cells
SHARED_OPEN = 2  # oset's row: the cells and the count
SHARED_HOLDERS = 1  # holder's row: 3 N (N + 1)
# the shared arrays' element types: the state arrays' (impasse.ROW_TYPES)
GRID_TYPE, WHERE_TYPE, OSET_TYPE, HOLDER_TYPE = (
    from_dtype(np.dtype(ROW_TYPES[name])) for name in ("grid", "where", "oset", "holder")
)


# ----------------------------------------------------------------------------- lane arithmetic


@njit(inline="always")
def lane_draw(s0, s1, count, lane):
    """Step the RNG over `count` draws (the same steps on every lane): (the top 32 bits of draw
    `lane`'s output, 0 past count; s0; s1)."""
    mine = uint64(0)
    for j in range(count):
        r, s0, s1 = next_u64(uint64(s0), uint64(s1))
        if j == lane:
            mine = r >> uint32(32)
    return mine, s0, s1


@njit(inline="always")
def draw_falls_under(top, bound, weight):
    """Whether a draw (the top 32 bits of its output), scaled to 0..bound-1 as
    rng.uniform_below scales it, is below `weight`."""
    return int64((uint64(top) * uint64(bound)) >> uint32(32)) < weight


@njit(inline="always")
def highest_lane(votes):
    """Index of the highest set bit of a nonzero 32-bit ballot."""
    v = uint64(votes)
    top = 0
    for shift in (16, 8, 4, 2, 1):
        if v >> uint64(shift) != 0:
            v >>= uint64(shift)
            top += shift
    return top


@njit(inline="always")
def lane_weight(i, k, x, m, nc, cand, holder, units, weights, side):
    """Candidate m's weight w(delta) for chain i's open cell x (its holders row k of holder), 0
    past its nc candidates."""
    if m >= nc:
        return int64(0)
    d = int64(cand[x, m])
    return int64(weights[i, cell_delta(k, x, d, holder, units, side) + 1])


# ----------------------------------------------------------------------------- warp operations

if SIM:  # device functions: the simulator gives them its fake cuda module
    _ROWS: dict = {}  # block -> its scratch row
    _ROWS_LOCK = threading.Lock()

    @cuda.jit(device=True)
    def scratch_row():
        """The block's scratch row (made once, under a lock: the simulator's own shared arrays
        are made by whichever thread comes first, unlocked)."""
        with _ROWS_LOCK:
            return _ROWS.setdefault(cuda.blockIdx.x, np.zeros(WARP, np.int64))

    @cuda.jit(device=True)
    def warp_sync():
        """All lanes of the warp reach this point (memory written before is seen after)."""
        cuda.syncthreads()

    @cuda.jit(device=True)
    def warp_ballot(lane, vote):
        """Bit j set iff lane j votes."""
        scratch = scratch_row()
        scratch[lane] = 1 if vote else 0
        cuda.syncthreads()
        total = 0
        for j in range(WARP):
            total |= int(scratch[j]) << j
        cuda.syncthreads()
        return total

    @cuda.jit(device=True)
    def warp_scan(lane, x):
        """(x summed over lanes 0..lane, x summed over the warp)."""
        scratch = scratch_row()
        scratch[lane] = x
        cuda.syncthreads()
        upto = sum(int(scratch[j]) for j in range(int(lane) + 1))
        total = sum(int(scratch[j]) for j in range(WARP))
        cuda.syncthreads()
        return upto, total

else:

    @njit
    def warp_sync():
        """All lanes of the warp reach this point (memory written before is seen after)."""
        cuda.syncwarp(FULL)

    @njit
    def warp_ballot(lane, vote):
        """Bit j set iff lane j votes."""
        return uint32(cuda.ballot_sync(FULL, vote))

    @njit
    def warp_scan(lane, x):
        """(x summed over lanes 0..lane, x summed over the warp); x < 2**31 over the warp."""
        v = np.int32(x)
        d = 1
        while d < WARP:
            y = cuda.shfl_up_sync(FULL, v, d)
            if lane >= d:
                v = np.int32(v + y)
            d *= 2
        return int64(v), int64(cuda.shfl_sync(FULL, v, WARP - 1))


# ----------------------------------------------------------------------------- the kernel


def kernel(
    states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, trial_moves,
):  # fmt: skip
    """Up to `slice_moves` moves of chain i = the thread's warp, as impasse_slice(i, ...); with
    SHARED_STATE, on a copy of the chain's state rows in the block's shared memory."""
    i = cuda.grid(1) // WARP
    lane = cuda.threadIdx.x % WARP
    if i >= states.shape[0]:
        return
    states, best, best_f, solved = plain(states), plain(best), plain(best_f), plain(solved)
    grid, holder, oset, where = plain(grid), plain(holder), plain(oset), plain(where)
    counts, weights, filled, free = plain(counts), plain(weights), plain(filled), plain(free)
    cand, ncand, units = plain(cand), plain(ncand), plain(units)
    if solved[i] != 0:
        return
    cells = grid.shape[1]
    if SHARED_STATE:  # row 0 of the block's arrays holds the chain's rows for the slice
        k = 0
        on_grid = plain(cuda.shared.array((1, SHARED_CELLS), GRID_TYPE))
        on_holder = plain(cuda.shared.array((1, SHARED_HOLDERS), HOLDER_TYPE))
        on_oset = plain(cuda.shared.array((1, SHARED_OPEN), OSET_TYPE))
        on_where = plain(cuda.shared.array((1, SHARED_CELLS), WHERE_TYPE))
        copy_rows(i, 0, lane, grid, holder, oset, where, on_grid, on_holder, on_oset, on_where,
                  cells, holder.shape[1])  # fmt: skip
    else:
        k = i
        on_grid, on_holder, on_oset, on_where = grid, holder, oset, where
    first = counts[i, 2] == 0
    warp_sync()  # every lane has read (and copied) before lane 0 writes
    if first:  # the chain's first trial
        if lane == 0:
            s0, s1 = fresh_trial(k, uint64(states[i, 0]), uint64(states[i, 1]), on_grid,
                                  on_holder, on_oset, on_where, filled, free, cand, ncand,
                                  units, side)  # fmt: skip
            states[i, 0] = uint64(s0)
            states[i, 1] = uint64(s1)
            counts[i, 2] = 1
        warp_sync()
    s0 = uint64(states[i, 0])
    s1 = uint64(states[i, 1])
    moves, trial, trials = int64(counts[i, 0]), int64(counts[i, 1]), int64(counts[i, 2])
    kept = int64(best_f[i])
    stay = int64(weights[i, STAY_WEIGHT])
    warp_sync()  # every lane has read before lane 0 writes
    kept = keep_best(i, k, lane, on_grid, on_oset, best, best_f, kept, cells)
    for _ in range(slice_moves):
        size = int64(on_oset[k, 0])
        if size == 0:
            break
        if trial_moves > 0 and trial >= trial_moves:
            warp_sync()  # every lane has read the open cells before lane 0 writes
            if lane == 0:
                s0, s1 = fresh_trial(k, s0, s1, on_grid, on_holder, on_oset, on_where, filled,
                                      free, cand, ncand, units, side)  # fmt: skip
                states[i, 0] = uint64(s0)
                states[i, 1] = uint64(s1)
            warp_sync()
            s0 = uint64(states[i, 0])
            s1 = uint64(states[i, 1])
            trial = 0
            trials += 1
            kept = keep_best(i, k, lane, on_grid, on_oset, best, best_f, kept, cells)
            continue
        at, s0, s1 = uniform_below(s0, s1, size)
        s0, s1 = uint64(s0), uint64(s1)  # the simulator: numbers back from jitted code
        x = int64(on_oset[k, 1 + int64(at)])
        nc = int64(ncand[x])
        total = stay
        pick = 0
        for base in range(0, nc, WARP):
            m = base + lane
            w = lane_weight(i, k, x, m, nc, cand, on_holder, units, weights, side)
            upto, chunk = warp_scan(lane, w)
            top, s0, s1 = lane_draw(s0, s1, min(nc - base, WARP), lane)
            s0, s1 = uint64(s0), uint64(s1)
            votes = warp_ballot(lane, m < nc and draw_falls_under(top, total + upto, w))
            if votes != 0:
                pick = int64(cand[x, base + highest_lane(votes)])
            total += chunk
        if pick != 0:  # the ballot synced the warp: every lane's holder loads are done
            if lane == 0:
                write_digit(k, x, pick, on_grid, on_holder, on_oset, on_where, units, side)
            warp_sync()
        moves += 1
        trial += 1
        kept = keep_best(i, k, lane, on_grid, on_oset, best, best_f, kept, cells)
    if lane == 0:
        states[i, 0] = s0
        states[i, 1] = s1
        counts[i, 0] = moves
        counts[i, 1] = trial
        counts[i, 2] = trials
        if on_oset[k, 0] == 0:
            solved[i] = 1
    if SHARED_STATE:  # the chain's rows back to global memory once lane 0's writes are seen
        warp_sync()
        copy_rows(0, i, lane, on_grid, on_holder, on_oset, on_where, grid, holder, oset, where,
                  cells, holder.shape[1])  # fmt: skip


@njit(inline="always")
def copy_rows(a, b, lane, grid, holder, oset, where, to_grid, to_holder, to_oset, to_where,
              cells, holders):  # fmt: skip
    """The first cells (grid, where), cells + 1 (oset) and holders (holder) entries of row a of
    a chain's state arrays into row b of the others, each lane every WARP-th entry (the caller
    syncs the warp before the copies are read)."""
    for at in range(lane, cells, WARP):
        to_grid[b, at] = grid[a, at]
        to_where[b, at] = where[a, at]
    for at in range(lane, cells + 1, WARP):
        to_oset[b, at] = oset[a, at]
    for at in range(lane, holders, WARP):
        to_holder[b, at] = holder[a, at]


@njit(inline="always")
def keep_best(i, k, lane, grid, oset, best, best_f, kept, cells):
    """Chain i's grid (row k of grid and oset) becomes its best when it has fewer open cells
    than `kept` (each lane copies every WARP-th cell; lane 0 records the count): the best's
    open cells now."""
    size = int64(oset[k, 0])
    if size >= kept:
        return kept
    for cell in range(lane, cells, WARP):
        best[i, cell] = grid[k, cell]
    if lane == 0:
        best_f[i] = size
    return size


# ----------------------------------------------------------------------------- building it


def kernel_function():
    """The kernel as a module-level function of its generated module (compile it with cuda.jit
    or ptx.compile_ptx)."""
    from gpu_anneal.kernels.kernel_cache import module_copy

    return module_copy("impasse_warp", [kernel]).kernel


def state_shape(order: int) -> dict[str, int]:
    """The shared-state copy's constants at this order: the lengths of a chain's state rows
    (impasse.row_lengths)."""
    rows = row_lengths(order * order)
    return {"SHARED_CELLS": rows["grid"], "SHARED_OPEN": rows["oset"],
            "SHARED_HOLDERS": rows["holder"]}  # fmt: skip


def state_bytes(order: int) -> int:
    """Bytes of a chain's state rows in a block's shared memory at this order (uint8 grid,
    int16 where, oset and holder), each array padded to the int16 arrays' 2-byte alignment."""
    side = order * order
    return sum(-(-row_bytes(side, name) // 2) * 2 for name in row_lengths(side))


def shared_fits(order: int) -> bool:
    """Whether a chain's state rows at this order fit a block's static shared memory."""
    return state_bytes(order) <= SHARED_LIMIT


def shared_orders() -> tuple[int, ...]:
    """The orders 2..8 whose chains' state fits shared memory (the PTX tables' sizes)."""
    return tuple(order for order in range(2, 9) if shared_fits(order))


def shared_kernel_function(order: int):
    """The kernel of a copy holding a chain's state rows in shared memory, sized for `order`
    (it runs any order up to it); ValueError where they do not fit a block."""
    from gpu_anneal.kernels.kernel_cache import module_copy

    if not shared_fits(order):
        raise ValueError(f"order {order}: a chain's state ({state_bytes(order):,} bytes) is "
                         f"past a block's {SHARED_LIMIT:,} bytes of shared memory")  # fmt: skip
    constants = {"SHARED_STATE": 1, **state_shape(order)}
    return module_copy(f"impasse_warp_shared{order}", [kernel], constants).kernel


class WarpKernel(TrialKernel):
    """The impasse chains' kernel with one warp a chain: a TrialKernel of impasse_slice (its
    parameters, scalars and results) whose kernel function is this module's, launched with
    `lanes` threads a chain, its state rows in global memory."""

    lanes = WARP
    threads_per_block = WARPS_A_BLOCK * WARP

    def function(self):
        """The kernel's Python function (kernel_function())."""
        return kernel_function()


class SharedWarpKernel(WarpKernel):
    """WarpKernel whose chains hold their state rows in shared memory for a launch, one warp
    (one chain) a block, its arrays sized for `order` (shared_kernel_function)."""

    threads_per_block = WARP

    def __init__(self, trial, scalars, results, order: int):
        super().__init__(trial, scalars, results)
        self.order = int(order)

    def function(self):
        """The kernel's Python function (shared_kernel_function(order))."""
        return shared_kernel_function(self.order)


def warps_a_block(shared: bool) -> int:
    """Warps (chains) a block of the warp kernel: its state rows in shared memory or not."""
    return (SharedWarpKernel if shared else WarpKernel).threads_per_block // WARP
