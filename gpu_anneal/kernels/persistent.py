"""The persistent Sudoku kernel: resident chains that take their work from a device queue.

Glossary: g resident chain slot (= thread), r ring row, R ring rows, p a puzzle's place in the
order of publishing, q puzzle position in the run, i chain index within its puzzle, m spare
round, cpp chains a puzzle, t chain task (t = p x cpp + i), B plateaus a round.

One launch runs a whole stream of puzzles. The host publishes puzzles into any free rows of a
ring of R rows (their tables, their first RNG state, a record with R_LEFT = cpp: gpu_anneal.
kernels.persistent_layout), names the p-th one's row in the order ring (order[p mod R] = r) and
raises the control row's PUBLISHED count; every resident thread loops:

    take the next task t by an atomic compare-and-swap on CTL_NEXT (while t < PUBLISHED x cpp):
        chain i = t mod cpp of the p-th published puzzle, p = t div cpp, in row order[p mod R]
        (a row held by a slow puzzle holds up no other: the host fills the rows that are free)
    start chain i of puzzle q afresh: the counters load_puzzle writes, the RNG state of stream
        first_chain + q x cpp + i (xoroshiro128+: the puzzle's first state jumped i times on
        the device; Philox: key ^ stream; gpu_anneal.kernels.chain_start, as the slice pool's
        refill kernels)
    run it in rounds of B plateaus (the CPU runner's drive_chain, the chain's state in its
        column of the block's shared memory, as the slice kernel) until it stops: solved,
        passed by a solve of fewer proposals (solved[r], the slice kernel's bound), out of
        trials, or the stop flag
    file it in the record: sums by atomics; its fields and best grid when its rank_key is
        lower than the record's (under the record's lock); R_LEFT down by one, and the chain
        that takes it to 0 marks the record DONE
    no task: once the input is closed (CTL_CLOSED), join a running puzzle that no chain has
        solved (R_LEFT up by one while above 0), going round the host's list of the rows it
        has not drained (CTL_OPEN entries, from entry CTL_JOINS mod CTL_OPEN: each try a few
        reads, the open puzzles taking joiners in turn): the k-th chain joining a puzzle is
        chain k mod cpp of round 1 + k div cpp, stream m x SPARE_STRIDE + first_chain +
        q x cpp + i (the slice pool's spare streams); else look again, up to `wait` times a
        microsecond apart (on a card, while the host publishes the next puzzles), and end

The chains' trajectories do not depend on when they run: each starts from its stream's state and
the bound only stops chains, so a record's reported chain (the solved chain with the fewest
proposals, then the lowest round and index; none solved: the lowest best cost) replays alone on
the CPU (replay_chain) to the same grid, trials and proposals. Which spare chains ran depends on
timing; the chain reported names its stream, so that it replays all the same.

The host (gpu_anneal.persistent_pool) drains DONE records while the kernel runs, by copies on a
second stream, and publishes new puzzles into the freed rows. Nothing is synchronised per
slice: a freed chain takes its next task at once.

Two kernels take tasks from the same queue, with the same arguments (launch): the one-thread
kernel (persistent_template.py; a thread a resident chain: 9x9, the box swap, 49x49 and 64x64,
whose cooperative block is never built) and the cooperative one (persistent_coop_template.py; a
block of one warp a resident chain, the cooperative slice kernel's rules: 16x16 to 36x36 with a
one-cell move, where the device holds its block; lane 0 alone works the queue and the warp
agrees through the block's task words). The queue's device functions are persistent_tasks.py's.
Where the cooperative slice block fits a device and the persistent one (its task words more)
does not, the run takes slices and says why in one line (coop_fallback_reason).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from numba import config, cuda, types

from cpu_reference.cache import rewrite_imports
from cpu_reference.sudoku import rules
from gpu_anneal.kernels import persistent_tasks
from gpu_anneal.kernels import sudoku as ks
from gpu_anneal.kernels import sudoku_coop as coop
from gpu_anneal.kernels.cards import shared_kib_per_sm
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.kernel_cache import cached_jit, generated_module

TEMPLATE = Path(__file__).with_name("persistent_template.py")
COOP_TEMPLATE = Path(__file__).with_name("persistent_coop_template.py")
LAYOUT = Path(__file__).with_name("persistent_layout.py")
TASKS = (persistent_tasks.read, persistent_tasks.take_task, persistent_tasks.fresh_chain,
         persistent_tasks.file_chain)  # fmt: skip
TASK_BYTES = 4 * 8  # the cooperative kernel's task words (persistent_coop_template.TASK_WORDS)


@cache
def kernel_function(order: int, move: int = rules.MOVE_SIRDEY,
                    bounds: tuple[int, int] | None = None):  # fmt: skip
    """The plain Python persistent kernel of an order and move (to compile with cuda.jit or
    compile_ptx): persistent_template.py with its imports naming the specialisation's
    generated rules modules (the one-thread kernel's rules); `bounds` only names the module."""
    ks.check_order(order)
    m = ks._model(order, move)
    module = generated_module(
        f"persistent_o{order}_m{move}", rewrite_imports(TEMPLATE, m.imports),
        depends=(m.drive_chain, m.get_value, m.set_value, plain, *TASKS),
        key=repr(bounds) + LAYOUT.read_text(),
    )  # fmt: skip
    return module.sudoku_persistent


def kernel_signature(order: int = 3, move: int = rules.MOVE_SIRDEY) -> tuple:
    """Argument types of the persistent kernel (the slice kernel's chain and table arrays,
    then the ring's and the control's)."""
    base = ks.kernel_signature(order, move)
    a1 = lambda t: types.Array(t, 1, "C")  # noqa: E731
    a2 = lambda t: types.Array(t, 2, "C")  # noqa: E731
    a3 = lambda t: types.Array(t, 3, "C")  # noqa: E731
    chain = base[:6] + base[7:8]  # vals, boards, best_vals, ctr, rng, solved, exp_table
    tables = base[8:19]
    schedule = base[19:28]  # kind .. reheats
    i64 = types.int64
    # first_state, rec, rec_grid, ctl, order, open, powers
    ring = (a2(types.uint64), a1(types.int64), a2(types.uint8), a1(types.int64),
            a1(types.int64), a1(types.int64), a3(types.uint64))  # fmt: skip
    flags = (i64, types.boolean, types.boolean, i64)
    return (*chain, *tables, *ring, *flags, *schedule, i64, i64)


def threads_per_block(order: int) -> int:
    """Threads (resident chains) a block: the one-thread kernel's."""
    return ks.threads_per_block(order)


@cache
def compiled_kernel(order: int, move: int = rules.MOVE_SIRDEY):
    """The persistent kernel for the current device (disk cache as the slice kernel's)."""
    if config.ENABLE_CUDASIM:
        return cached_jit(kernel_function(order, move))
    major, minor = cuda.get_current_device().compute_capability
    bounds = ks.launch_bounds(order, move, f"sm_{major}{minor}")
    return cached_jit(kernel_function(order, move, bounds), launch_bounds=bounds)


@cache
def coop_kernel_function(order: int, move: int, bounds: tuple[int, int] | None = None):
    """The plain Python persistent cooperative kernel of an order and move (one warp a chain):
    persistent_coop_template.py with its imports naming the cooperative slice kernel's
    generated rules and steps (sudoku_coop.coop_model); `bounds` only names the module."""
    m = coop.coop_model(order, move)
    heads = {**m.imports, coop.STEPS_IMPORT: f"from {m.steps.__name__} import"}
    module = generated_module(
        f"persistent_coop_o{order}_m{move}", rewrite_imports(COOP_TEMPLATE, heads),
        depends=(m.drive_chain, plain, *TASKS),
        key=repr(bounds) + LAYOUT.read_text(),
    )  # fmt: skip
    return module.sudoku_coop_persistent


def coop_shared_bytes(order: int, move: int) -> int:
    """Static shared memory of one block of the persistent cooperative kernel: the slice
    kernel's chain state, then the task words (8-byte aligned)."""
    return -(-coop.shared_bytes_per_block(order, move) // 8) * 8 + TASK_BYTES  # int64 words


def coop_launch_bounds(order: int, move: int, arch: str = "sm_90") -> tuple[int, int]:
    """(threads, minimum resident blocks an SM) of the persistent cooperative kernel on `arch`:
    the cooperative slice kernel's rule (sudoku_coop.launch_bounds) with its own block."""
    threads, most = coop.launch_bounds(order, move, arch)
    need = coop_shared_bytes(order, move) + coop.SHARED_RESERVED
    return threads, max(1, min(most, shared_kib_per_sm(arch) * 1024 // need))


def coop_fallback_reason(order: int, move: int, shared_per_block: int,
                         shared_per_sm: int) -> str | None:  # fmt: skip
    """Why a device with these shared-memory limits (bytes a block may declare, bytes an SM
    holds) cannot run the persistent cooperative kernel (one line: the run takes slices), or
    None when it can."""
    need = coop_shared_bytes(order, move)
    side = order * order
    if need > min(shared_per_block, coop.STATIC_SHARED_LIMIT):
        allowed = min(shared_per_block, coop.STATIC_SHARED_LIMIT)
        return (f"{side}x{side}: a persistent cooperative chain needs {need:,} B of shared "
                f"memory a block, this device allows {allowed:,}: slices instead")  # fmt: skip
    if need + coop.SHARED_RESERVED > shared_per_sm:
        return (f"{side}x{side}: a persistent cooperative chain needs "
                f"{need + coop.SHARED_RESERVED:,} B of an SM's shared memory, this device has "
                f"{shared_per_sm:,}: slices instead")  # fmt: skip
    return None


@cache
def coop_compiled_kernel(order: int, move: int):
    """The persistent cooperative kernel for the current device (disk cache as the others)."""
    if config.ENABLE_CUDASIM:
        return cached_jit(coop_kernel_function(order, move))
    major, minor = cuda.get_current_device().compute_capability
    bounds = coop_launch_bounds(order, move, f"sm_{major}{minor}")
    return cached_jit(coop_kernel_function(order, move, bounds), launch_bounds=bounds)


def launch(kernel, blocks: int, d: dict, batch, ring: dict, cpp: int, spare: bool, wait: int,
           budget: int, stream=0, threads: int | None = None) -> None:  # fmt: skip
    """Launch a persistent kernel (one-thread or cooperative: the same arguments) on `blocks`
    blocks of `threads` (None: the one-thread kernel's): the only code that knows its argument
    order. `d` maps the chain arrays (vals, boards, best_vals, ctr, rng, exp_table) to device
    arrays of the resident chains; `ring` the ring's (solved, PUZZLE_ARRAYS, first_state, rec,
    rec_grid, ctl, order, open, powers); `wait` the looks again a chain with no task makes before it
    ends."""
    threads = threads_per_block(batch.order) if threads is None else threads
    kernel[blocks, threads, stream](
        d["vals"], d["boards"], d["best_vals"], d["ctr"], d["rng"], ring["solved"],
        d["exp_table"],
        *(ks.flat_list(ring[key]) if key in ks.FLAT_KEYS else ring[key]
          for key in rules.PUZZLE_ARRAYS),
        ring["first_state"], ring["rec"], ring["rec_grid"], ring["ctl"], ring["order"],
        ring["open"], ring["powers"],
        int(cpp), rules.counter_based(batch.order, batch.move), bool(spare), int(wait),
        *rules.schedule_args(batch.schedule)[:9], int(batch.trial_cap), int(budget),
    )  # fmt: skip
