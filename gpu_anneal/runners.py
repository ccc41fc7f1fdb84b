"""Runners: where a batch's slices run. One contract for every backend.

Glossary: p slot (a puzzle's place in the batch), g chain, cpp chains per puzzle, k index into a
list of slots.

A runner holds a SudokuBatch and offers:

    run(budget)             start a slice: every chain advances by up to `budget` plateaus
    status()                int64[slots, N_STATS]: per-puzzle rows after the slices started so
                            far (gpu_anneal.pool_status); waits for them
    fetch(slots, status)    start copying the reported chain's best grid of each slot
    fetched()               uint8[k, cells]: those grids, in the order asked (waits for them)
    load(p, cells, masks, first_chain)
                            slot p takes a new puzzle (cells None: empty) with fresh chains,
                            chain i drawing RNG stream first_chain + i
    stop(p)                 ask slot p's chains to stop at their next plateau
    overlaps                True when run() returns before the slice ends, so that the host can
                            verify and refill while the device works
    sync(), fetch_grids()   make every host array current (tests and measurements; the pool
                            never needs them)

The CPU runner works on the host arrays in place (numba prange over chains, run() returns when
the slice is done). The CUDA runner keeps every array on the device and runs everything on one
stream, so each step is ordered after the ones before it: a status reduction and its copy, a
gather of the reported grids into pinned memory, the uploads of refilled slots and a kernel that
reseeds their chains (gpu_anneal.kernels.pool). Per slice only the status rows, the finished
puzzles' grids and the refilled puzzles' tables cross the bus; `moved` counts those bytes.
"""

from __future__ import annotations

import warnings

import numpy as np

from cpu_reference.anneal.philox import CounterCursor, seed_key
from cpu_reference.anneal.rng import StreamCursor
from cpu_reference.errors import KernelWarning
from cpu_reference.sudoku import rules as sa
from cpu_reference.sudoku.batch import SudokuBatch, load_puzzle, puzzle_tables, run_slice_cpu
from gpu_anneal import pool_status as ps


class CpuRunner:
    """Runs a batch's slices on every CPU core (numba prange over chains)."""

    name = "cpu"
    overlaps = False

    def __init__(self, batch: SudokuBatch, seed: int = 0):
        self.batch = batch
        counter = sa.counter_based(batch.order, batch.move)
        self.cursor = (CounterCursor if counter else StreamCursor)(seed)
        self._grids = np.zeros((0, batch.given_vals.shape[1]), np.uint8)

    def run(self, budget: int) -> None:
        """Advance every chain by up to `budget` plateaus (returns when done)."""
        run_slice_cpu(self.batch, budget, stop_on_solved=True)

    def status(self) -> np.ndarray:
        """Per-puzzle status rows, computed from the host counters."""
        return ps.puzzle_status(self.batch.ctr, self.batch.cpp)

    def fetch(self, slots: list[int], status: np.ndarray) -> None:
        """Take the reported chains' best grids of `slots`."""
        b, cells = self.batch, self.batch.given_vals.shape[1]
        rows = [p * b.cpp + int(status[p, ps.S_PICK]) for p in slots]
        self._grids = b.best_vals[rows, :cells].copy()

    def fetched(self) -> np.ndarray:
        """The grids of the last fetch."""
        return self._grids

    def load(self, p: int, cells, masks, first_chain: int) -> None:
        """Slot p takes `cells` (None: empty) with fresh chains from stream first_chain."""
        states = self.cursor.states(first_chain, self.batch.cpp)
        load_puzzle(self.batch, p, cells, states, masks)

    def stop(self, p: int) -> None:
        """Ask the chains of slot p to stop at their next plateau."""
        self.batch.solved[p] = ps.stop_value(self.batch.solved)

    def sync(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def fetch_grids(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""


class CudaRunner:
    """Keeps a batch's arrays on the device and runs its slices there, on one stream.

    `kernel`: "auto" runs the cooperative kernel (one warp a chain) where it serves the order
    and move and fits the device, else the one-thread kernel (gpu_anneal.kernels.sudoku_coop:
    choose; a KernelWarning says why when the cooperative kernel serves them but does not
    fit); "coop" or "thread" asks for one. `kernel_name` says which runs.
    """

    name = "cuda"
    overlaps = True

    def __init__(self, batch: SudokuBatch, seed: int = 0, kernel: str = "auto"):
        from numba import cuda

        from gpu_anneal import stream_jump
        from gpu_anneal.kernels import pool
        from gpu_anneal.kernels import sudoku as ks
        from gpu_anneal.kernels import sudoku_coop as coop
        from gpu_anneal.kernels.launch import simulating

        self.ks, self.pool, self.cuda = ks, pool, cuda
        ks.check_order(batch.order)
        self.batch = batch
        self.stream = cuda.stream()
        self.kernel_name, why = coop.choose(batch.order, batch.move, kernel, *_shared_limits())
        if why:
            warnings.warn(why, KernelWarning, stacklevel=2)
        self.launcher = coop if self.kernel_name == "coop" else ks
        self.kernel = self.launcher.compiled_kernel(batch.order, batch.move)
        self.counter = sa.counter_based(batch.order, batch.move)
        self.fresh = coop.fresh_kernel() if self.counter else None
        self.pk = pool.kernels()
        # refills upload from the host's per-puzzle arrays: pinned, so that copies are async
        for key in sa.PUZZLE_ARRAYS + ("solved",):
            setattr(batch, key, _pinned_copy(cuda, getattr(batch, key)))
        s = self.stream
        self.d = {key: cuda.to_device(self.host(key), stream=s) for key in ks.DEVICE_KEYS}
        P, cells = batch.puzzles, batch.given_vals.shape[1]
        self.h_status = cuda.pinned_array((P, ps.N_STATS), np.int64)
        self.d_status = cuda.device_array((P, ps.N_STATS), np.int64, stream=s)
        self.h_grids = cuda.pinned_array((P, cells), np.uint8)
        self.d_grids = cuda.device_array((P, cells), np.uint8, stream=s)
        self.h_slots = cuda.pinned_array(P, np.int32)
        self.d_slots = cuda.device_array(P, np.int32, stream=s)
        self.h_fresh = cuda.pinned_array(P, np.int32)
        self.d_fresh = cuda.device_array(P, np.int32, stream=s)
        self.h_first = cuda.pinned_array((P, 2), np.uint64)
        self.d_first = cuda.device_array((P, 2), np.uint64, stream=s)
        powers = stream_jump.powers(stream_jump.bits_for(batch.cpp))
        self.d_powers = cuda.to_device(powers, stream=s)
        self.jump = stream_jump.JumpCursor(seed)
        self.base_key = np.uint64(seed_key(seed % 2**64))  # Philox chains' keys (counter)
        self.pending: list[tuple[int, np.ndarray]] = []  # (slot, first state) not yet reseeded
        self.fetch_done = cuda.event()
        self.slice_start, self.slice_end = cuda.event(), cuda.event()
        self.flush_done = cuda.event()
        self.fetch_count = 0
        self.moved = {"down": 0, "up": 0}  # bytes across the bus since the runner started
        self.raw_copies = not simulating()
        s.synchronize()

    def host(self, key: str) -> np.ndarray:
        """The host array behind device array `key` (bitboards seen flat, as the kernel does)."""
        return self.ks.host_array(self.batch, key)

    def run(self, budget: int) -> None:
        """Start one slice of up to `budget` plateaus on every chain (returns at once)."""
        self._flush()
        self.slice_start.record(self.stream)
        self.launcher.launch_slice(self.kernel, None, self.d, self.batch, budget, self.stream)
        self.slice_end.record(self.stream)

    def last_slice_seconds(self) -> float | None:
        """Device seconds of the last slice, by events (None where events keep no time, as in
        the simulator); call after status()."""
        ms = self.slice_start.elapsed_time(self.slice_end)
        return ms / 1000 if ms > 0 else None

    def status(self) -> np.ndarray:
        """Per-puzzle status rows, reduced on the device after everything started so far."""
        self._flush()
        P = self.batch.puzzles
        self.pk["status"][P, self.pool.REDUCE_THREADS, self.stream](
            self.d["ctr"], self.batch.cpp, self.d_status
        )
        self.d_status.copy_to_host(self.h_status, stream=self.stream)
        self.moved["down"] += self.h_status.nbytes
        self.stream.synchronize()
        return np.array(self.h_status)

    def fetch(self, slots: list[int], status: np.ndarray) -> None:
        """Start gathering the reported grids of `slots` into pinned memory."""
        k = len(slots)
        self.fetch_count = k
        if k:
            cells = self.h_grids.shape[1]
            self.h_slots[:k] = slots
            self.d_slots[:k].copy_to_device(self.h_slots[:k], stream=self.stream)
            self.pk["gather"][self.pool.blocks(k * cells), self.pool.THREADS, self.stream](
                self.d["best_vals"], self.d_status, self.d_slots, k, self.batch.cpp, self.d_grids
            )
            self.d_grids[:k].copy_to_host(self.h_grids[:k], stream=self.stream)
            self.moved["up"] += 4 * k
            self.moved["down"] += k * cells
        self.fetch_done.record(self.stream)

    def fetched(self) -> np.ndarray:
        """The grids of the last fetch (waits for the copy, not for later work)."""
        self.fetch_done.synchronize()
        return np.array(self.h_grids[: self.fetch_count])

    def load(self, p: int, cells, masks, first_chain: int) -> None:
        """Slot p takes `cells` (None: empty); its chains are reseeded on the device."""
        b = self.batch
        self.fetch_done.synchronize()  # earlier copies out of these pinned rows are done
        lay_cells = b.given_vals.shape[1]
        grid = np.zeros((1, lay_cells), np.uint8) if cells is None else cells.reshape(1, -1)
        rows = None if masks is None else masks.reshape(1, lay_cells)
        for name, table in puzzle_tables(grid, b.order, b.move, rows).items():
            getattr(b, name)[p] = table[0]
        b.solved[p] = sa.NOT_SOLVED if ps.bound_semantics(b.solved) else 0
        for key in sa.PUZZLE_ARRAYS + ("solved",):
            self._put_row(key, p)
        if cells is None:  # an empty slot: its chains are marked exhausted, so kernels skip them
            chains = b.chain_slice(p)
            b.ctr[chains, sa.C_STATUS] = sa.EXHAUSTED
            self.d["ctr"][chains].copy_to_device(b.ctr[chains], stream=self.stream)
            self.moved["up"] += b.ctr[chains].nbytes
            return
        if self.counter:  # the key of stream first_chain + i is base ^ (first_chain + i)
            first = np.array([self.base_key, first_chain], np.uint64)
        else:
            first = self.jump.state_of(first_chain)
        self.pending.append((p, first))

    def _put_row(self, key: str, p: int) -> None:
        """Start copying row p of host array `key` to its device array (asynchronous).

        On a device the copy goes straight to the driver at the row's byte offset: slicing a
        numba-cuda device array costs about 50 us of Python, and a refill copies a dozen rows,
        which made the host the bottleneck of a 9x9 pool (measured: gpu_pool.json). The
        simulator has no driver, so there the slice is copied as before.
        """
        row = self.host(key)[p : p + 1]
        dev = self.d[key]
        if self.raw_copies:
            start = p * dev.strides[0]
            target = dev.gpu_data.view(start, start + row.nbytes)
            self.cuda.cudadrv.driver.host_to_device(target, row, row.nbytes, stream=self.stream)
        else:
            dev[p : p + 1].copy_to_device(row, stream=self.stream)
        self.moved["up"] += row.nbytes

    def stop(self, p: int) -> None:
        """Ask the chains of puzzle p to stop at their next plateau."""
        b = self.batch
        b.solved[p] = ps.stop_value(b.solved)
        self._put_row("solved", p)

    def _flush(self) -> None:
        """Reseed the chains of every slot loaded since the last flush (one kernel)."""
        if not self.pending:
            return
        self.flush_done.synchronize()  # the staging rows of the last flush were copied
        k = len(self.pending)
        for j, (p, state) in enumerate(self.pending):
            self.h_fresh[j] = p
            self.h_first[j] = state
        self.pending = []
        s, cpp = self.stream, self.batch.cpp
        self.d_fresh[:k].copy_to_device(self.h_fresh[:k], stream=s)
        self.d_first[:k].copy_to_device(self.h_first[:k], stream=s)
        self.moved["up"] += 4 * k + 16 * k
        if self.counter:
            self.fresh[self.pool.blocks(k * cpp), self.pool.THREADS, s](
                self.d["ctr"], self.d["rng"], self.d["best_vals"], self.d_fresh, self.d_first,
                k, cpp,
            )  # fmt: skip
        else:
            self.pk["fresh"][self.pool.blocks(k * cpp), self.pool.THREADS, s](
                self.d["ctr"], self.d["rng"], self.d["best_vals"], self.d_fresh, self.d_first,
                k, cpp, self.d_powers,
            )  # fmt: skip
        self.flush_done.record(s)

    def sync(self) -> None:
        """Copy counters and solved bounds back to the host batch (waits for the stream)."""
        self.stream.synchronize()
        self.d["ctr"].copy_to_host(self.batch.ctr)
        self.d["solved"].copy_to_host(self.batch.solved)

    def fetch_grids(self) -> None:
        """Copy the best grids (and current grids and RNG states) back to the host batch."""
        self.stream.synchronize()
        for key in ("best_vals", "vals", "boards", "rng"):
            self.d[key].copy_to_host(self.host(key))


def _shared_limits() -> tuple[int, int]:
    """(shared memory a block may declare, shared memory of an SM) of the current device, in
    bytes (the simulator's stand-in card under NUMBA_ENABLE_CUDASIM)."""
    from gpu_anneal.kernels.launch import simulating

    if simulating():
        from gpu_anneal.plan import SIMULATOR

        return SIMULATOR.shared_per_sm, SIMULATOR.shared_per_sm
    from numba import cuda

    dev = cuda.get_current_device()
    return dev.MAX_SHARED_MEMORY_PER_BLOCK, dev.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR


def _pinned_copy(cuda, array: np.ndarray) -> np.ndarray:
    """A page-locked host copy of `array` (same shape and contents)."""
    out = cuda.pinned_array(array.shape, array.dtype)
    out[...] = array
    return out


CHAIN_FIELDS = ("ctr", "vals", "boards", "best_vals", "rng", "solved")  # what a slice changes


def same_chains_after(
    cpu: SudokuBatch, gpu: SudokuBatch, slices, kernel: str = "auto"
) -> dict[str, bool]:
    """Run the same slices on the CPU runner (batch `cpu`) and the CUDA runner (batch `gpu`, on
    a card or in the simulator, with `kernel`); for each of CHAIN_FIELDS, whether the two
    batches hold equal arrays afterwards. The batches must start alike (same puzzles,
    schedule, seed, move)."""
    runner = CudaRunner(gpu, kernel=kernel)
    for budget in slices:
        run_slice_cpu(cpu, budget, stop_on_solved=True)
        runner.run(budget)
    runner.sync()
    runner.fetch_grids()
    return {key: bool(np.array_equal(getattr(cpu, key), getattr(gpu, key))) for key in CHAIN_FIELDS}


def make_runner(batch: SudokuBatch, backend: str, seed: int = 0):
    """The runner of a resolved backend name ('cpu' or 'cuda')."""
    if backend == "cuda":
        return CudaRunner(batch, seed)
    return CpuRunner(batch, seed)
