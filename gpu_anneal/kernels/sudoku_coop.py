"""The cooperative Sudoku kernel: one warp a chain, for orders 4 to 6 (16x16 to 36x36).

Orders 7 and 8 (49x49, 64x64) draw from Philox as the others (rules.COUNTER_ORDERS), but one
chain's block (62,016 B and 104,920 B, below) is more than the 48 KB of static shared memory a
block may declare: they run the one-thread kernel with the same draws, and the runner says so in
one line (fallback_reason). Dynamic shared memory past 48 KB would hold one 64x64 chain a block.

Glossary: g chain (= block) index, p puzzle, cpp chains per puzzle, lane the thread's index in
the warp (0..31), n order.

Each block is one warp running one chain: its state (values, row, column and box bitboards,
conflict set, thresholds) in the block's shared memory, its rules cpu_reference.sudoku.rules'
templates with gpu_anneal/kernels/coop_rules.py as the chain's steps (that file tells how a
round of 32 proposals stays the sequential chain). Every lane runs chain_template.py's
drive_chain on the batch's counters and RNG rows, with the chain's own g, as the CPU runner
does: the lanes hold the same values and take the same branches, so each read-modify-write of
the chain's row is one value read and one value stored by the converged warp (lane_copy in
coop_template.py; the simulator, whose threads interleave, gives each lane a copy and writes
lane 0's back). The puzzle's bound solved[p], which other chains lower meanwhile, every lane
reads in the same load, so the lanes stop together. Grids and row-packed bitboards go back to
global memory in the CPU runner's layout, so a slice here and a slice of the CPU runner leave
the same arrays.

Which chains it serves: those drawing from Philox (rules.counter_based: orders 4-6, one-cell
moves). The box swap shuffles a box with sequential draws at every trial start and swaps two
cells a move (two peers' updates a move, no conflict set): it stays on the one-thread kernel,
with xoroshiro128+. A device whose shared memory cannot hold one chain's block runs the
one-thread kernel (gpu_anneal.kernels.sudoku) with the same Philox draws, so the chain is the
same; the runner says why (fallback_reason).

Shared memory of a block (one chain), bytes (values + board + thresholds; the board's words are
rows, columns and boxes 3 N^2, conflict set and movable cells 2 N, prefix counts N + 1 and 34
words of the simulator's scratch):

    16x16   128 + 3,404 (851 words of 4 B) + 160 (40 thresholds) = 3,692: 32 blocks an SM
    25x25   628 + 7,940 (1,985 words of 4 B) + 260 = 8,828: 23 blocks an SM of 228 KB
    36x36   1,296 + 32,248 (4,031 words of 8 B) + 384 = 33,928: 6 blocks an SM of 228 KB
    49x49   2,404 + 59,080 (7,385 words of 8 B) + 532 = 62,016: over 48 KB, one chain a thread
    64x64   4,096 + 100,120 (12,515 words of 8 B) + 704 = 104,920: over 48 KB, one chain a thread

plus 1 KB the runtime reserves a block (SHARED_RESERVED); ptxas reports the same static
shared memory (tests/test_coop_kernel.py).

The kernel's source is coop_template.py, copied per order, move and launch bounds with its
imports naming the specialisation's generated modules (kernel_function), and the refill kernel
fresh_counter_chains is copied into a generated module (fresh_kernel): numba-cuda keeps both
compiled on disk and a later process loads them instead of compiling
(gpu_anneal.kernels.kernel_cache).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from numba import config, cuda, uint64

from cpu_reference.cache import rewrite_imports
from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import SudokuBatch
from cpu_reference.sudoku.packing import packing
from gpu_anneal.kernels.cards import shared_kib_per_sm
from gpu_anneal.kernels.chain_start import clear_chain, counter_key
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.kernel_cache import cached_jit, generated_module, module_copy
from gpu_anneal.kernels.sudoku import FLAT_KEYS, flat_list
from gpu_anneal.kernels.sudoku import kernel_signature as thread_signature

RULES = Path(__file__).with_name("coop_rules.py")  # the chain's steps for a warp
THREADS = 32  # one warp a block, one chain a block
STATIC_SHARED_LIMIT = 48 * 1024  # static shared memory a block may declare
SHARED_RESERVED = 1024  # bytes the runtime reserves per resident block
MAX_BLOCKS_PER_SM = 32  # sm_80 and sm_90
REGISTERS_PER_SM = 65536
# registers a thread may take at least: 64, and 84 on sm_80 (24 blocks an SM), where ptxas
# spills 4 bytes of some 16x16 kernels at 28 or 25 blocks (sm_90's fits them in 64)
REGISTER_FLOOR = {"sm_80": 84}
DEFAULT_REGISTER_FLOOR = 64


# Acceptance (accepted / proposed) of each move under the default technique, measured on the CPU
# runner: benchmarks/results/coop_acceptance.json (python benchmarks/bench_coop_acceptance.py;
# 16x16 at 30-35 % filled, 25x25 at 40-50 %, 36x36 at 45-60 %). The performance model takes a
# warp round's proposals from it (gpu_anneal.kernels.perf_model: proposals_per_round).
ACCEPTANCE = {
    (4, rules.MOVE_SIRDEY): 0.089, (4, rules.MOVE_CANDIDATE): 0.069,
    (4, rules.MOVE_FOCUSED): 0.196, (4, rules.MOVE_FOCUSED_TWO): 0.265,
    (5, rules.MOVE_SIRDEY): 0.091, (5, rules.MOVE_CANDIDATE): 0.073,
    (5, rules.MOVE_FOCUSED): 0.176, (5, rules.MOVE_FOCUSED_TWO): 0.200,
    (6, rules.MOVE_SIRDEY): 0.099, (6, rules.MOVE_CANDIDATE): 0.083,
    (6, rules.MOVE_FOCUSED): 0.184, (6, rules.MOVE_FOCUSED_TWO): 0.233,
}  # fmt: skip


def kernel_name(move: int) -> str:
    """The registry's name of the cooperative kernel of a move (gpu_anneal.kernels.ptx)."""
    return "sudoku-coop" if move == rules.MOVE_SIRDEY else f"sudoku-coop-{rules.move_name(move)}"


def serves(order: int, move: int) -> bool:
    """Whether the cooperative kernel runs chains of this order and move (a move declared
    cooperative, cpu_reference.sudoku.moves)."""
    return rules.counter_based(order, move) and rules.move_by_code(move).cooperative


def check_served(order: int, move: int) -> None:
    """InputError, one line, for an order or move the cooperative kernel does not run."""
    if not serves(order, move):
        raise InputError(
            f"order {order}, move {rules.move_name(move)}: the cooperative kernel runs orders "
            f"{', '.join(map(str, rules.COUNTER_ORDERS))} with one-cell moves ("
            f"{', '.join(m.name for m in rules.MOVES.values() if m.cooperative)}); this one runs "
            "one chain a thread"
        )


@cache
def coop_model(order: int, move: int, any_order: bool = False):
    """The rules of the cooperative kernel (rules.model with coop_rules.py as the chain's
    steps). `any_order`: build them for an order and one-cell move the kernel does not serve
    (the performance model's 9x9 comparison); nothing runs them."""
    if not any_order:
        check_served(order, move)
    return rules.model(
        order, move, 1, table=False, packed=True, counter=True, steps_path=str(RULES)
    )


def chain_words(order: int, move: int) -> tuple[int, int, int]:
    """(value words, board words, threshold words) of one chain's shared state."""
    pk = packing(order)
    board = 3 * pk.N * pk.N + 3 * pk.N + 1 + 34  # rows, cols, boxes, CONF, MOVS, PRE, SCR
    return pk.VW, board, rules.max_delta(order, move) + 1


def shared_bytes_per_block(order: int, move: int) -> int:
    """Static shared memory of one block (one chain): values, boards, thresholds."""
    values, board, thresholds = chain_words(order, move)
    return 4 * values + packing(order).word_bits // 8 * board + 4 * thresholds


def blocks_per_sm(order: int, move: int, shared_per_sm: int) -> int:
    """Blocks (chains) an SM holds by shared memory and the block limit (0: none fits)."""
    by_shared = shared_per_sm // (shared_bytes_per_block(order, move) + SHARED_RESERVED)
    return min(MAX_BLOCKS_PER_SM, by_shared)


def launch_bounds(order: int, move: int, arch: str = "sm_90") -> tuple[int, int]:
    """(threads per block, minimum resident blocks an SM) the kernel is built for on `arch`:
    the blocks shared memory holds, at most REGISTERS_PER_SM / (the arch's register floor x
    32)."""
    blocks = blocks_per_sm(order, move, shared_kib_per_sm(arch) * 1024)
    floor = REGISTERS_PER_SM // (REGISTER_FLOOR.get(arch, DEFAULT_REGISTER_FLOOR) * THREADS)
    return THREADS, max(1, min(blocks, floor))


def block_orders(move: int) -> tuple[int, ...]:
    """The orders whose cooperative block for this move fits the shared memory a block may
    declare (STATIC_SHARED_LIMIT): those its kernel is built for (16x16 to 36x36; a 49x49 chain
    takes 62,016 B, a 64x64 one 104,920 B, and runs one chain a thread)."""
    return tuple(
        n for n in rules.COUNTER_ORDERS if shared_bytes_per_block(n, move) <= STATIC_SHARED_LIMIT
    )


def fallback_reason(order: int, move: int, shared_per_block: int, shared_per_sm: int) -> str | None:
    """Why a device with these shared-memory limits (bytes a block may declare, bytes an SM
    holds) cannot run the cooperative kernel for this order and move, or None when it can."""
    need = shared_bytes_per_block(order, move)
    side = packing(order).N
    if need > min(shared_per_block, STATIC_SHARED_LIMIT):
        return (
            f"{side}x{side}: a cooperative chain needs {need:,} B of shared memory a block, "
            f"this device allows {min(shared_per_block, STATIC_SHARED_LIMIT):,}: one chain a "
            "thread instead (the same chains)"
        )
    if need + SHARED_RESERVED > shared_per_sm:
        return (
            f"{side}x{side}: a cooperative chain needs {need + SHARED_RESERVED:,} B of an SM's "
            f"shared memory, this device has {shared_per_sm:,}: one chain a thread instead "
            "(the same chains)"
        )
    return None


@cache
def kernel_function(order: int, move: int, any_order: bool = False,
                    bounds: tuple[int, int] | None = None):  # fmt: skip
    """The plain Python kernel of an order and move (to compile with cuda.jit or compile_ptx);
    any_order as coop_model's.

    It is the `sudoku_coop_slice` of coop_template.py, copied with its imports naming this
    specialisation's generated modules (rewrite_imports) as a module of its own
    (kernel_cache.generated_module), so that its compiled code can be kept on disk. `bounds`,
    the launch bounds it is to be built with, only names the module (numba-cuda's cache key
    does not hold them); the function is the same for every one.
    """
    m = coop_model(order, move, any_order)
    if chain_words(order, move)[1] != m.steps.BOARD_WORDS:
        raise AssertionError("chain_words and the rules disagree on the board's size")
    heads = {**m.imports, STEPS_IMPORT: f"from {m.steps.__name__} import"}
    module = generated_module(
        f"coop_o{order}_m{move}", rewrite_imports(TEMPLATE, heads),
        depends=(m.drive_chain, m.steps.coop_load, m.steps.coop_store, plain), key=repr(bounds),
    )  # fmt: skip
    return module.sudoku_coop_slice


TEMPLATE = Path(__file__).with_name("coop_template.py")
# the head of coop_template.py's import of the steps (rewrite_imports): RULES's module
STEPS_IMPORT = "from gpu_anneal.kernels.coop_rules import"


def kernel_signature(order: int, move: int) -> tuple:
    """Argument types of the kernel: those of the one-thread kernel."""
    return thread_signature(order, move)


@cache
def compiled_kernel(order: int, move: int):
    """The kernel of an order and move for the current device: loaded from the disk cache when
    an earlier process compiled it (kernel_cache), else compiled on first use and kept there."""
    if config.ENABLE_CUDASIM:  # the simulator takes no launch bounds and keeps no cache
        return cached_jit(kernel_function(order, move))
    major, minor = cuda.get_current_device().compute_capability
    bounds = launch_bounds(order, move, f"sm_{major}{minor}")
    return cached_jit(kernel_function(order, move, bounds=bounds), launch_bounds=bounds)


def launch_slice(kernel, blocks, d: dict, batch: SudokuBatch, budget: int, stream=0) -> None:
    """Launch one slice of `budget` plateaus on every chain: one block a chain (`blocks` None:
    every chain of the batch). `d` maps every DEVICE_KEYS name to its device array."""
    blocks = batch.chains if blocks is None else blocks
    kernel[blocks, THREADS, stream](
        d["vals"], d["boards"], d["best_vals"], d["ctr"], d["rng"], d["solved"], batch.cpp,
        d["exp_table"],
        *(flat_list(d[key]) if key in FLAT_KEYS else d[key] for key in rules.PUZZLE_ARRAYS),
        *rules.schedule_args(batch.schedule), batch.trial_cap, int(budget), True,
    )  # fmt: skip


FRESH_THREADS = 128


@cache
def fresh_kernel():
    """fresh_counter_chains for the current device (kernel_cache.module_copy): compiled on
    first use or loaded from the disk cache where an earlier process compiled it."""
    return cached_jit(module_copy("coop_fresh", (fresh_counter_chains,)).fresh_counter_chains)


def fresh_counter_chains(ctr, rng, best_vals, slots, first, count, cpp):
    """Kernel: slot slots[k]'s chains start afresh (the counters and best grid load_puzzle
    writes), chain i keyed first[k, 0] ^ (first[k, 1] + i) with no proposal made: first[k] =
    (the seed's base key, the slot's first stream), anneal/philox.py's counter_states
    (chain_start's clear_chain and counter_key, as the persistent kernel's)."""
    x = cuda.grid(1)
    if x >= count * cpp:
        return
    k = x // cpp
    i = x - k * cpp
    g = slots[k] * cpp + i
    clear_chain(g, ctr, best_vals)
    rng[g, 0] = counter_key(first[k, 0], first[k, 1], uint64(i))
    rng[g, 1] = 0


KERNELS = ("auto", "coop", "thread")  # which Sudoku kernel a CUDA run takes


def choose(order: int, move: int, kernel: str, shared_per_block: int, shared_per_sm: int):
    """("coop" or "thread", why the cooperative kernel does not run or None) for a device with
    these shared-memory limits. "auto": the cooperative kernel where it serves the order and
    move and fits the device (else the one-thread kernel, with the reason when it serves them);
    "coop": it or InputError; "thread": the one-thread kernel."""
    if kernel not in KERNELS:
        raise InputError(f"kernel {kernel!r}: expected one of {', '.join(KERNELS)}")
    if kernel == "thread":
        return "thread", None
    if kernel == "coop":
        check_served(order, move)
    elif not serves(order, move):
        return "thread", None
    reason = fallback_reason(order, move, shared_per_block, shared_per_sm)
    if reason is not None and kernel == "coop":
        raise InputError(f"kernel coop: {reason.split(': one chain')[0]}")
    return ("thread", reason) if reason else ("coop", None)
