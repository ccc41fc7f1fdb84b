"""The Sudoku annealing kernel: one chain per CUDA thread, the CPU's rules in every thread.

Glossary: g chain (= thread) index, p puzzle, cpp chains per puzzle, n order (2..5).

Each thread copies its chain's grid and bitboards into local memory, calls the very jitted
`drive_chain` the CPU runner calls (sudoku_anneal), and writes the state back, so a slice on the
GPU and a slice on the CPU move chain g through the same states for the same seed. The peers masks
of the order sit in constant memory (at most 625 x 10 words = 50 KB, for 25x25); puzzle arrays,
counters and RNG states stay in global memory. Per-puzzle `solved` flags are read at every plateau
so that the chains of a solved puzzle stop within one plateau.

Local memory per thread (9x9): grid 81 B, bitboards 9 x 2 x 8 = 144 B, thresholds 21 x 4 = 84 B.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import config, cuda, types, uint8, uint32, uint64

from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules as sa
from cpu_reference.sudoku.batch import SudokuBatch, flat_rows
from cpu_reference.sudoku.layout import layout
from gpu_anneal.kernels.compat import plain

CUDA_ORDERS = (2, 3, 4, 5)
THREADS_PER_BLOCK = 128
# Resident blocks of 128 threads per SM the kernels are built for: 8 blocks (half of an sm_80 or
# sm_90 SM's 2048 threads) allow 64 registers a thread, 7 allow 72, 4 allow 128. 9x9 takes 7:
# with 64 registers ptxas spills in the chain loop; with 72 it spills nothing.
MIN_BLOCKS_PER_SM = {2: 8, 3: 7, 4: 4, 5: 4}


def launch_bounds(order: int) -> tuple[int, int]:
    """(threads per block, minimum resident blocks per SM) the order's kernel is built for."""
    return THREADS_PER_BLOCK, MIN_BLOCKS_PER_SM[order]


def check_order(order: int) -> None:
    """InputError for an order the kernels are not built for."""
    if order not in CUDA_ORDERS:
        raise InputError(
            f"order {order}: the CUDA kernels are built for orders "
            f"{', '.join(map(str, CUDA_ORDERS))} (4x4 to 25x25); use --backend cpu"
        )


@cache
def kernel_function(order: int, move: int = sa.MOVE_SIRDEY):
    """The plain Python kernel of an order and move (to compile with cuda.jit or compile_ptx)."""
    check_order(order)
    m = sa.model(order, move)
    drive_chain = m.drive_chain
    N, W, CELLS = m.N, m.W, m.cells
    THRESHOLDS = sa.max_delta(order, move) + 1
    PEERS = np.ascontiguousarray(layout(order).peers).reshape(-1)
    WORDS = N * W
    C_STATUS, RUNNING = sa.C_STATUS, sa.RUNNING

    def sudoku_slice(
        vals, boards, best_vals, ctr, rng, solved, cpp,
        given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing,
        kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget, stop_on_solved,
    ):  # fmt: skip
        g = cuda.grid(1)
        if g >= vals.shape[0]:
            return
        if ctr[g, C_STATUS] != RUNNING:
            return
        p = g // cpp
        peers = cuda.const.array_like(PEERS)
        grid = cuda.local.array(CELLS, uint8)
        board = cuda.local.array(WORDS, uint64)
        thr = cuda.local.array(THRESHOLDS, uint32)
        for c in range(CELLS):
            grid[c] = vals[g, c]
        for i in range(WORDS):
            board[i] = boards[g, i]
        drive_chain(
            g, p, plain(grid), plain(board), plain(thr), plain(best_vals), plain(ctr), plain(rng),
            plain(peers), plain(solved), plain(given_vals), plain(given_board),
            plain(init_cells), plain(ninit), plain(move_cells), plain(nmove), plain(cand),
            plain(ncand), plain(box_cells), plain(nbox), plain(box_missing),
            kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget,
            stop_on_solved,
        )  # fmt: skip
        for c in range(CELLS):
            vals[g, c] = grid[c]
        for i in range(WORDS):
            boards[g, i] = board[i]

    return sudoku_slice


def kernel_signature() -> tuple:
    """Argument types of the kernel (the same for every order)."""
    a1 = lambda t: types.Array(t, 1, "C")  # noqa: E731
    a2 = lambda t: types.Array(t, 2, "C")  # noqa: E731
    a3 = lambda t: types.Array(t, 3, "C")  # noqa: E731
    i64, f64 = types.int64, types.float64
    return (
        a2(types.uint8), a2(types.uint64), a2(types.uint8), a2(types.int64), a2(types.uint64),
        a1(types.int32), i64,
        a2(types.uint8), a2(types.uint64), a2(types.int16), a1(types.int32), a2(types.int16),
        a1(types.int32), a3(types.uint8), a2(types.int32), a3(types.int16), a2(types.int32),
        a3(types.uint8),
        i64, f64, f64, i64, i64, i64, i64, i64, types.boolean,
    )  # fmt: skip


@cache
def compiled_kernel(order: int, move: int = sa.MOVE_SIRDEY):
    """The kernel of an order and move, compiled for the current device on first use."""
    if config.ENABLE_CUDASIM:  # the simulator takes no launch bounds
        return cuda.jit(kernel_function(order, move))
    return cuda.jit(launch_bounds=launch_bounds(order))(kernel_function(order, move))


CHAIN_KEYS = ("vals", "boards", "best_vals", "ctr", "rng", "solved")  # device arrays per batch
DEVICE_KEYS = CHAIN_KEYS + sa.PUZZLE_ARRAYS


def host_array(batch: SudokuBatch, key: str) -> np.ndarray:
    """The host array behind device array `key`, in the shape the kernel takes it."""
    array = getattr(batch, key)
    return flat_rows(array) if key in ("boards", "given_board") else array


def launch_slice(kernel, blocks: int, d: dict, batch: SudokuBatch, budget: int, stream=0) -> None:
    """Launch one slice of `budget` plateaus on every chain: the only code that knows the
    kernel's argument order. `d` maps every DEVICE_KEYS name to its device array."""
    kernel[blocks, THREADS_PER_BLOCK, stream](
        d["vals"], d["boards"], d["best_vals"], d["ctr"], d["rng"], d["solved"], batch.cpp,
        *(d[key] for key in sa.PUZZLE_ARRAYS),
        *sa.schedule_args(batch.schedule), batch.trial_cap, int(budget), True,
    )  # fmt: skip


def bytes_per_chain(order: int) -> int:
    """Device memory one chain takes (grid, best grid, bitboards, counters, RNG)."""
    lay = layout(order)
    return 2 * lay.cells + lay.N * lay.W * 8 + 16 * 8 + 8 * 8


def max_chains_on_device(order: int, share: float = 0.5) -> int:
    """How many chains fit in `share` of the device's free memory."""
    free, _ = cuda.current_context().get_memory_info()
    if not np.isfinite(free):  # the simulator reports unbounded memory
        free = 2**34
    return max(THREADS_PER_BLOCK, int(free * share) // bytes_per_chain(order))
