"""The Sudoku annealing kernel: one chain per CUDA thread, the CPU's rules in every thread.

Glossary: g chain (= thread) index, p puzzle, cpp chains per puzzle, n order (2..8), lane the
thread's index in its block (the chain's column in the block's state arrays).

Each thread copies its chain's grid (one byte a cell in global memory, packed to 4-bit fields on
the way in) and bitboards from global memory into its column of the block's shared-memory state
arrays, calls the very jitted chain driver the CPU runner calls
(cpu_reference.sudoku.rules, inlined by NVVM so that every state access compiles to a
shared-memory instruction), and writes the state back at the end of the slice. A slice on the
GPU and a slice on the CPU move chain g through the same states for the same seed.

Shared memory of a block: one uint32 array, [word][thread] (element w * T + lane) so that the 32
lanes of a warp reading any word index each hit their own bank (one wavefront per 32-bit access);
a chain's column holds, from word 0 (rules.py: VOFF, BOFF, TOFF):

    vals  VW words          packed cell values (11 words a chain for 9x9)
    board NW words          row-packed bitboards (27 words a chain for 9x9)
          + 2 WR words      focused move only: the conflict set and the movable cells, one
                            bitboard each (6 words for 9x9; rebuilt at each slice's start)
    thr   THRESHOLD_CAP     thresholds of deltas 1..16 (more: exact, outside the move loop)

    9x9, T = 128: (11 + 27 + 16) x 4 B x 128 = 27,648 B a block (+ 1 KB reserved): 8 blocks
    of 128 threads an SM (32 warps) within 227 KB, at most 64 registers a thread

One array gives every state access one lane base address plus constants. The move loop of the
shared-state kernels is branch-free (rules.py: BRANCH_FREE): a rejected move writes back what it
read, so the lanes of a warp never diverge in it.

Peers are computed from the cell's row and column (packing.py): no table is read in the move loop.
Orders 5 and 6 (25x25, 36x36) need 3.7 KB and 21 KB of state a chain, more than shared memory
holds for a useful block, so their kernels keep the same arrays in local memory (lane 0).
Per-puzzle tables, counters and RNG states stay in global memory; `solved[p]` is read once a
plateau (see rules.py: the deterministic winner).

The kernel's source is slice_template.py, copied per order, move and launch bounds with its
imports naming the specialisation's generated rules modules (kernel_function): numba-cuda keeps
the compiled kernel on disk and a later process loads it instead of compiling
(gpu_anneal.kernels.kernel_cache).

From 16x16 up the runner takes the cooperative kernel (gpu_anneal.kernels.sudoku_coop) for the
one-cell moves; this kernel runs those chains where that one does not fit the device, with the
same Philox draws (rules.counter_based), and the box swap at every order.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
from numba import config, cuda, types

from cpu_reference.cache import rewrite_imports
from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import SudokuBatch, flat_rows
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import packing
from gpu_anneal.kernels.cards import shared_kib_per_sm
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.kernel_cache import cached_jit, generated_module

CUDA_ORDERS = (2, 3, 4, 5, 6, 7, 8)
THREADS_PER_BLOCK = 128  # every order but 16x16
THREADS_16X16 = 64  # 16x16 state is 704 B a chain: 64 chains a block stay under 48 KB
STATE_IN_SHARED = {2: True, 3: True, 4: True, 5: False, 6: False, 7: False, 8: False}
SHARED_RESERVED = 1024  # per resident block (an SM's shared memory: kernels.cards)
REGISTERS_PER_SM = 65536
THREADS_PER_SM = 2048


THRESHOLD_CAP = 16  # thresholds a chain keeps in shared memory (deltas 1..16; larger: exact, rare)


def threshold_cap(order: int, move: int = rules.MOVE_SIRDEY) -> int:
    """Thresholds the order's kernel keeps a chain (rules.model's thr_cap; 0: all, local state).

    A 9x9 chain keeps 16 of its 20 (Sirdey) or 38 (box swap) thresholds: 64 bytes instead of
    84, so that 8 blocks of 128 chains fit an SM's shared memory; a move of a larger delta
    (more than 16 conflicts for one cell: practically never) is decided outside the move loop
    with the same exact threshold.
    """
    if not STATE_IN_SHARED[order]:
        return 0
    return min(THRESHOLD_CAP, rules.max_delta(order, move))


def threads_per_block(order: int) -> int:
    """Threads (chains) per block of the order's kernel."""
    return THREADS_16X16 if order == 4 else THREADS_PER_BLOCK


def shared_bytes_per_block(order: int, move: int = rules.MOVE_SIRDEY) -> int:
    """Static shared memory of one block of the kernel (0 when the state is in local memory)."""
    if not STATE_IN_SHARED[order]:
        return 0
    pk = packing(order)
    word_bytes = pk.word_bits // 8
    board_words = pk.NW + rules.focus_words(order, move)
    per_chain = 4 * pk.VW + word_bytes * board_words + 4 * threshold_cap(order, move)
    return per_chain * threads_per_block(order)


REGISTER_BUDGET = 64  # registers a thread may take at least (8 blocks of 128 threads an SM)


def min_blocks_per_sm(order: int, move: int = rules.MOVE_SIRDEY, arch: str = "sm_90") -> int:
    """Resident blocks an SM of `arch` can hold by shared memory and threads: the launch bound's
    minimum.

    The register budget follows: 65,536 / (blocks x threads) registers a thread (64 for 9x9's
    8 blocks of 128 on sm_90; sm_80 holds 5 such blocks by shared memory, so its build may take
    102). Local-state kernels (orders 5 to 8) are built for 4 blocks (128 registers).
    """
    threads = threads_per_block(order)
    by_threads = THREADS_PER_SM // threads
    shared = shared_bytes_per_block(order, move)
    if shared == 0:  # local state: 128 registers, 255 for the box swap (36x36 spills at 128)
        proposal = rules.proposal(move)
        if proposal.swap:
            return 2
        return 2 if order >= 6 and proposal.candidates else 4  # 36x36 up, candidates: 255
    by_shared = shared_kib_per_sm(arch) * 1024 // (shared + SHARED_RESERVED)
    blocks = min(by_threads, by_shared, 32)
    # registers: at least REGISTER_BUDGET a thread, whatever the block count allows
    return max(1, min(blocks, REGISTERS_PER_SM // (REGISTER_BUDGET * threads)))


def launch_bounds(
    order: int, move: int = rules.MOVE_SIRDEY, arch: str = "sm_90"
) -> tuple[int, int]:
    """(threads per block, minimum resident blocks per SM) the order's kernel is built for on
    architecture `arch`."""
    return threads_per_block(order), min_blocks_per_sm(order, move, arch)


# order -> the moves whose one-thread kernel spills registers to local memory there even at 255
# registers a thread, so it is not built (ptxas, bytes stored / loaded): 49x49 box swap (sm_80
# 16 / 16); 64x64 candidate (sm_90 24 / 32), focused-two (136 / 120), box swap (420 / 388).
# Sirdey's move and focused (the default technique's) spill nothing at either order.
SPILLING = {
    7: (rules.MOVE_BOX_SWAP,),
    8: (rules.MOVE_CANDIDATE, rules.MOVE_FOCUSED_TWO, rules.MOVE_BOX_SWAP),
}


def orders_for(move: int) -> tuple[int, ...]:
    """The orders the one-thread kernel of a move is built for."""
    return tuple(n for n in CUDA_ORDERS if move not in SPILLING.get(n, ()))


def check_order(order: int, move: int | None = None) -> None:
    """InputError for an order (and move, when given) the kernels are not built for."""
    if order not in CUDA_ORDERS:
        raise InputError(
            f"order {order}: the CUDA kernels are built for orders "
            f"{', '.join(map(str, CUDA_ORDERS))} (4x4 to 64x64); use --backend cpu"
        )
    if move is not None and order not in orders_for(move):
        raise InputError(
            f"order {order}, move {rules.move_name(move)}: the CUDA kernel of this move spills "
            "registers at this order and is not built; use --move focused or sirdey, or --backend "
            "cpu"
        )


@cache
def kernel_function(
    order: int, move: int = rules.MOVE_SIRDEY, bounds: tuple[int, int] | None = None
):
    """The plain Python kernel of an order and move (to compile with cuda.jit or compile_ptx).

    It is the `sudoku_slice` of slice_template.py, copied with its imports naming this
    specialisation's generated rules modules (rewrite_imports) as a module of its own
    (kernel_cache.generated_module), so that its compiled code can be kept on disk. `bounds`,
    the launch bounds it is to be built with, only names the module (numba-cuda's cache key does
    not hold them); the function is the same for every one.
    """
    check_order(order, move)
    m = _model(order, move)
    if STATE_IN_SHARED[order] and m.packing.word_bits != 32:
        raise AssertionError("shared-memory state holds 32-bit bitboard words only")
    module = generated_module(
        f"sudoku_o{order}_m{move}", rewrite_imports(TEMPLATE, m.imports),
        depends=(m.drive_chain, m.get_value, m.set_value, plain), key=repr(bounds),
    )  # fmt: skip
    return module.sudoku_slice


TEMPLATE = Path(__file__).with_name("slice_template.py")


def _model(order: int, move: int):
    """The rules the order's kernel calls (rules.model: lanes, packed values, capped table)."""
    T = threads_per_block(order)
    shared = STATE_IN_SHARED[order]
    return rules.model(order, move, T if shared else 1, table=False, packed=shared,
                    thr_cap=threshold_cap(order, move),
                    counter=rules.counter_based(order, move))  # fmt: skip


def kernel_signature(order: int = 3, move: int = rules.MOVE_SIRDEY) -> tuple:
    """Argument types of the order's kernel (bitboard words are uint64 for 36x36)."""
    a1 = lambda t: types.Array(t, 1, "C")  # noqa: E731
    a2 = lambda t: types.Array(t, 2, "C")  # noqa: E731
    a3 = lambda t: types.Array(t, 3, "C")  # noqa: E731
    i64, u64 = types.int64, types.uint64
    word = types.uint32 if packing(order).word_bits == 32 else types.uint64
    return (
        a2(types.uint8), a2(word), a2(types.uint8), a2(types.int64), a2(types.uint64),
        a1(types.int64), i64, a1(types.uint32),
        a2(types.uint8), a2(word), a2(types.int16), a1(types.int32), a1(types.int16),
        a1(types.int32), a3(types.uint8), a2(types.int32), a1(types.int16), a1(types.int32),
        a3(types.uint8),
        i64, u64, u64, i64, i64, i64, i64, u64, i64, i64, i64, types.boolean,
    )  # fmt: skip


@cache
def compiled_kernel(order: int, move: int = rules.MOVE_SIRDEY):
    """The kernel of an order and move for the current device: loaded from the disk cache when
    an earlier process compiled it (kernel_cache), else compiled on first use and kept there."""
    if config.ENABLE_CUDASIM:  # the simulator takes no launch bounds and keeps no cache
        return cached_jit(kernel_function(order, move))
    major, minor = cuda.get_current_device().compute_capability
    bounds = launch_bounds(order, move, f"sm_{major}{minor}")
    return cached_jit(kernel_function(order, move, bounds), launch_bounds=bounds)


CHAIN_KEYS = ("vals", "boards", "best_vals", "ctr", "rng", "solved", "exp_table")  # per batch
DEVICE_KEYS = CHAIN_KEYS + rules.PUZZLE_ARRAYS


def host_array(batch: SudokuBatch, key: str) -> np.ndarray:
    """The host array behind device array `key`, in the shape the kernel takes it."""
    array = getattr(batch, key)
    return flat_rows(array) if key in ("boards", "given_board") else array


def blocks_for(batch: SudokuBatch) -> int:
    """Blocks that cover every chain of a batch."""
    threads = threads_per_block(batch.order)
    return (batch.chains + threads - 1) // threads


FLAT_KEYS = ("move_cells", "box_cells", "nbox")  # taken flat by the kernel (rules.py: FLAT_LISTS)


def flat_list(array):
    """A C-contiguous device array seen as one row (a view: nothing is copied)."""
    return array.reshape(array.size)


def launch_slice(kernel, blocks, d: dict, batch: SudokuBatch, budget: int, stream=0) -> None:
    """Launch one slice of `budget` plateaus on every chain: the only code that knows the
    kernel's argument order. `d` maps every DEVICE_KEYS name to its device array; blocks None
    covers every chain."""
    blocks = blocks_for(batch) if blocks is None else blocks
    kernel[blocks, threads_per_block(batch.order), stream](
        d["vals"], d["boards"], d["best_vals"], d["ctr"], d["rng"], d["solved"], batch.cpp,
        d["exp_table"],
        *(flat_list(d[key]) if key in FLAT_KEYS else d[key] for key in rules.PUZZLE_ARRAYS),
        *rules.schedule_args(batch.schedule), batch.trial_cap, int(budget), True,
    )  # fmt: skip


def bytes_per_chain(order: int) -> int:
    """Device memory one chain takes (packed grid, best grid, bitboards, counters, RNG)."""
    lay, pk = layout(order), packing(order)
    return 4 * pk.VW + lay.cells + pk.NW * pk.word_bits // 8 + 16 * 8 + 8 * 8


def max_chains_on_device(order: int, share: float = 0.5) -> int:
    """How many chains fit in `share` of the device's free memory."""
    free, _ = cuda.current_context().get_memory_info()
    if not np.isfinite(free):  # the simulator reports unbounded memory
        free = 2**34
    return max(THREADS_PER_BLOCK, int(free * share) // bytes_per_chain(order))
