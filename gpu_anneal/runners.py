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
    overlaps                True: the pool launches the next slice before it verifies and
                            refills (the older loop; a modeled card keeps it); False: it
                            refills first, the results handed out while the slice runs
    sync(), fetch_grids()   make every host array current (tests and measurements; the pool
                            never needs them)

The CPU runner works on the host arrays in place (ranges of chains on threads, run() returns when
the slice is done). The CUDA runner keeps every array on the device and runs everything on one
stream, so each step is ordered after the ones before it: a status reduction and its copy, a
gather of the reported grids into pinned memory, the uploads of refilled slots and a kernel that
reseeds their chains (gpu_anneal.kernels.pool). Per slice only the status rows, the finished
puzzles' grids and the refilled puzzles' tables cross the bus; `moved` counts those bytes.

One contract for every kind (cpu_reference.anneal.contract, typing.Protocol): these runners are
its PoolRunner; the grid puzzles' runners (Shikaku, Hashiwokakero: cpu_reference.anneal.trials.
CpuTrials, gpu_anneal.grid_runners.CudaTrials) are its TrialRunner. Both share Runner (run,
status, name, overlaps) and use the same names for the rest: load gives chains their puzzle,
fetch and fetched bring results back. They stay two protocols because they run different work:
a pool holds many puzzles whose slots are refilled between slices of plateaus, so load, fetch,
stop and empty name slots; a trial runner holds one puzzle's chains for a whole run, trial by
trial, so load takes the run's arguments once, status() is the chains' solved flags and fetch
brings back every chain's result.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from cpu_reference.anneal.philox import CounterCursor, seed_key
from cpu_reference.anneal.stream_jump import JumpCursor, StreamCursor, bits_for, powers
from cpu_reference.errors import KernelWarning
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import (
    SudokuBatch,
    empty_puzzles,
    load_puzzles,
    puzzle_tables,
    run_slice_cpu,
)
from gpu_anneal import pool_status, timeline
from gpu_anneal.kernels.launch import simulating


class CpuRunner:
    """Runs a batch's slices on every CPU core (ranges of chains on threads)."""

    name = "cpu"
    overlaps = False

    def __init__(self, batch: SudokuBatch, seed: int = 0):
        self.batch = batch
        self.counter = rules.counter_based(batch.order, batch.move)
        self.cursor = (CounterCursor if self.counter else StreamCursor)(seed)
        self._grids = np.zeros((0, batch.given_vals.shape[1]), np.uint8)

    def run(self, budget: int) -> None:
        """Advance every chain by up to `budget` plateaus (returns when done)."""
        run_slice_cpu(self.batch, budget, stop_on_solved=True)

    def status(self) -> np.ndarray:
        """Per-puzzle status rows, computed from the host counters."""
        return pool_status.puzzle_status(self.batch.ctr, self.batch.cpp)

    def fetch(self, slots: list[int], status: np.ndarray) -> None:
        """Take the reported chains' best grids of `slots`."""
        b, cells = self.batch, self.batch.given_vals.shape[1]
        slots = np.asarray(slots, np.int64)
        rows = slots * b.cpp + status[slots, pool_status.S_PICK]
        self._grids = b.best_vals[rows, :cells]

    def fetched(self) -> np.ndarray:
        """The grids of the last fetch."""
        return self._grids

    def load(self, slots: np.ndarray, tables: dict, firsts: np.ndarray) -> None:
        """Slots take the puzzles of `tables` (puzzle_tables rows, row j for slots[j]) with
        fresh chains, slot slots[j]'s chain i drawing stream firsts[j] + i."""
        cpp = self.batch.cpp
        states = np.concatenate([self.cursor.states(int(f), cpp) for f in firsts])
        load_puzzles(self.batch, slots, tables, states)

    def empty(self, slots: np.ndarray) -> None:
        """Slots left empty: their chains never run."""
        empty_puzzles(self.batch, slots)

    def stop(self, slots: np.ndarray) -> None:
        """Ask the chains of slots to stop at their next plateau."""
        self.batch.solved[slots] = pool_status.stop_value(self.batch.solved)

    def sync(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def fetch_grids(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""


_context_thread: list[threading.Thread] = []  # the opener started, at most one a process


def open_context_early() -> None:
    """Start making the CUDA context (numba.cuda's import, the driver's initialisation, the
    device's primary context) and importing the kernels' modules on a thread, so that it
    overlaps the caller's reading of its input and the rest of its start; the first CudaRunner
    waits for it. Once a process; nothing happens where no CUDA driver library loads; a fault
    on the thread is left for CudaRunner (or the backend's check) to meet and report in the
    caller's thread."""
    from gpu_anneal.backends import driver_library_found

    if _context_thread or not driver_library_found():
        return

    def open_context() -> None:
        try:
            from numba import cuda

            cuda.current_context()
            timeline.mark("context")
            # the kernels' modules (their imports, not yet their code): the runner takes them
            from gpu_anneal.kernels import pool, sudoku, sudoku_coop  # noqa: F401
        except Exception:  # noqa: BLE001,S110 - met again, and reported, in the caller's thread
            pass

    thread = threading.Thread(target=open_context, name="cuda-context", daemon=True)
    _context_thread.append(thread)
    thread.start()


class CudaRunner:
    """Keeps a batch's arrays on the device and runs its slices there, on one stream.

    `kernel`: "auto" runs the cooperative kernel (one warp a chain) where it serves the order
    and move and fits the device, else the one-thread kernel (gpu_anneal.kernels.sudoku_coop:
    choose; a KernelWarning says why when the cooperative kernel serves them but does not
    fit); "coop" or "thread" asks for one. `kernel_name` says which runs.
    """

    name = "cuda"
    overlaps = False  # the pool refills freed slots before it launches the next slice

    def __init__(self, batch: SudokuBatch, seed: int = 0, kernel: str = "auto"):
        # late: numba.cuda and the kernels it compiles cost ~0.2 s of a CPU run's start
        for opener in _context_thread:  # open_context_early's thread: its context serves here
            opener.join()
        from numba import cuda

        from gpu_anneal.kernels import pool
        from gpu_anneal.kernels import sudoku as ks
        from gpu_anneal.kernels import sudoku_coop as coop

        cuda.current_context()
        timeline.mark("context")

        self.ks, self.pool, self.cuda = ks, pool, cuda
        ks.check_order(batch.order, batch.move)
        self.batch = batch
        self.stream = cuda.stream()
        self.kernel_name, why = coop.choose(batch.order, batch.move, kernel, *shared_limits())
        if why:
            warnings.warn(why, KernelWarning, stacklevel=2)
        self.launcher = coop if self.kernel_name == "coop" else ks
        self.kernel = self.launcher.compiled_kernel(batch.order, batch.move)
        self.counter = rules.counter_based(batch.order, batch.move)
        self.fresh = coop.fresh_kernel() if self.counter else None
        self.pk = pool.kernels()
        s = self.stream
        self.d = {key: cuda.to_device(self.host(key), stream=s) for key in ks.DEVICE_KEYS}
        P, cells = batch.puzzles, batch.given_vals.shape[1]
        self.h_status = cuda.pinned_array((P, pool_status.N_STATS), np.int64)
        self.d_status = cuda.device_array((P, pool_status.N_STATS), np.int64, stream=s)
        self.h_grids = cuda.pinned_array((P, cells), np.uint8)
        self.d_grids = cuda.device_array((P, cells), np.uint8, stream=s)
        self.h_slots = cuda.pinned_array(P, np.int32)
        self.d_slots = cuda.device_array(P, np.int32, stream=s)
        self.h_fresh = cuda.pinned_array(P, np.int32)
        self.d_fresh = cuda.device_array(P, np.int32, stream=s)
        self.h_first = cuda.pinned_array((P, 2), np.uint64)
        self.d_first = cuda.device_array((P, 2), np.uint64, stream=s)
        self.d_powers = cuda.to_device(powers(bits_for(batch.cpp)), stream=s)
        self.jump = JumpCursor(seed)
        self.base_key = np.uint64(seed_key(seed % 2**64))  # Philox chains' keys (counter)
        self.pending: list[tuple[int, np.ndarray]] = []  # (slot, first state) not yet reseeded
        self.fetch_done = cuda.event()
        self.slice_start, self.slice_end = cuda.event(), cuda.event()
        self.flush_done = cuda.event()
        self.scatter_done = cuda.event()
        self.h_slots_in = cuda.pinned_array(P, np.int64)
        self.d_slots_in = cuda.device_array(P, np.int64, stream=s)
        self.h_stage: dict = {}  # per array: pinned staging rows of the next scatter
        self.d_stage: dict = {}  # ... and their device copy
        self.d_bytes: dict = {}  # per array: the device array seen as uint8[slots, row bytes]
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
            self.h_slots[:k] = np.asarray(slots)
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

    def load(self, slots: np.ndarray, tables: dict, firsts: np.ndarray) -> None:
        """Slots take new puzzles (rows of `tables`); their chains are reseeded on the device."""
        slots = np.asarray(slots, np.int64)
        rows = dict(tables, solved=np.full(len(slots), rules.NOT_SOLVED, np.int64))
        self._scatter(slots, rows)
        if self.counter:  # the key of stream first + i is base ^ (first + i)
            states = [np.array([self.base_key, f], np.uint64) for f in firsts]
        else:
            states = [self.jump.state_of(int(f)) for f in firsts]
        self.pending.extend(zip(slots.tolist(), states, strict=True))

    def empty(self, slots: np.ndarray) -> None:
        """Slots left empty: blank tables, and their chains marked exhausted."""
        slots = np.asarray(slots, np.int64)
        b, k = self.batch, len(slots)
        rows = {name: np.repeat(row, k, axis=0) for name, row in blank_tables(b).items()}
        rows["solved"] = np.full(k, rules.NOT_SOLVED, np.int64)
        rows["ctr"] = np.repeat(exhausted_counters(b)[None], k, axis=0)
        self._scatter(slots, rows)

    def stop(self, slots: np.ndarray) -> None:
        """Ask the chains of slots to stop at their next plateau."""
        slots = np.asarray(slots, np.int64)
        value = pool_status.stop_value(self.batch.solved)
        self._scatter(slots, {"solved": np.full(len(slots), value, self.batch.solved.dtype)})

    def _scatter(self, slots: np.ndarray, rows: dict) -> None:
        """Row j of each array of `rows` to slot slots[j] of its device array: one copy into
        the array's staging rows and one scatter kernel, in stream order."""
        k = len(slots)
        if k == 0:
            return
        s, cuda = self.stream, self.cuda
        self.scatter_done.synchronize()  # the staging rows of the last scatter were copied
        self.h_slots_in[:k] = slots
        self.d_slots_in[:k].copy_to_device(self.h_slots_in[:k], stream=s)
        self.moved["up"] += 4 * k
        for name, value in rows.items():
            data = np.ascontiguousarray(value).view(np.uint8).reshape(k, -1)
            if name not in self.h_stage:
                shape = (self.batch.puzzles, data.shape[1])
                self.h_stage[name] = cuda.pinned_array(shape, np.uint8)
                self.d_stage[name] = cuda.device_array(shape, np.uint8, stream=s)
            stage = self.h_stage[name]
            stage[:k] = data
            self.d_stage[name][:k].copy_to_device(stage[:k], stream=s)
            self.pk["scatter"][self.pool.blocks(k * data.shape[1]), self.pool.THREADS, s](
                self.d_stage[name], self.d_slots_in, k, self._bytes(name)
            )
            self.moved["up"] += data.nbytes
        self.scatter_done.record(s)

    def _bytes(self, name: str):
        """Device array `name` seen as bytes, one row a slot: uint8[slots, row bytes]."""
        if name not in self.d_bytes:
            dev = self.d[name]
            if dev.ndim == 1:
                dev = dev.reshape(dev.shape[0], 1)
            self.d_bytes[name] = dev.view(np.uint8).reshape(self.batch.puzzles, -1)
        return self.d_bytes[name]

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


def shared_limits() -> tuple[int, int]:
    """(shared memory a block may declare, shared memory of an SM) of the current device, in
    bytes (the simulator's stand-in card under NUMBA_ENABLE_CUDASIM)."""
    if simulating():
        from gpu_anneal.plan import SIMULATOR  # late: gpu_anneal.plan costs ~0.06 s of a CPU run

        return SIMULATOR.shared_per_sm, SIMULATOR.shared_per_sm
    from numba import cuda  # late: numba.cuda costs ~0.19 s of a CPU run's start

    dev = cuda.get_current_device()
    return dev.MAX_SHARED_MEMORY_PER_BLOCK, dev.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR


def blank_tables(batch: SudokuBatch) -> dict:
    """One row of each per-puzzle array of an empty slot (a grid of blanks)."""
    return puzzle_tables(np.zeros((1, batch.given_vals.shape[1]), np.uint8), batch.order,
                         batch.move)  # fmt: skip


def exhausted_counters(batch: SudokuBatch) -> np.ndarray:
    """The counter rows of an empty slot's cpp chains (as empty_puzzles writes them)."""
    ctr = np.zeros((batch.cpp, batch.ctr.shape[1]), np.int64)
    ctr[:, rules.C_PLATEAU] = -1
    ctr[:, rules.C_BEST_VALS_COST] = np.iinfo(np.int64).max
    ctr[:, rules.C_STATUS] = rules.EXHAUSTED
    return ctr


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
