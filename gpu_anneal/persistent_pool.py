"""The persistent pool: one launch of the persistent kernel runs a stream of puzzles, the host
publishing puzzles into the device's ring and draining finished ones while it runs.

Glossary: r ring row, R ring rows, p a puzzle's place in the order of publishing, q puzzle
position in the run, cpp chains a puzzle, record a ring row's int64[N_REC] (gpu_anneal.kernels.
persistent_layout).

The host's loop, with no per-slice synchronisation (gpu_anneal.kernels.persistent tells the
device's side):

    publish   the next puzzles, in order and in chunks of one a resident group, into the next
              free rows going round the ring (a row is free once its puzzle is drained; a slow
              puzzle's row is passed over, so that it holds up no other): deduction when asked,
              tables, each puzzle's first RNG state and a fresh record, staged in one of two
              pinned buffers (the other may still be copying) and copied on the second stream
              with the order ring's entries (order[p mod R] = its row), then PUBLISHED raised
    launch    the kernel on the first stream when it is not running (it ends once its chains
              find no task: on a card after looking again a bounded time while the host
              prepares more; the stream done)
    drain     copy the records (and their grids) on the second stream; every DONE record is a
              result: verified, handed out, its row freed
    close     once the input is exhausted, CLOSED after the open list (the rows not drained;
              again at each drain that finds puzzles done): chains that find no task join the
              puzzles still running in turn (spare chains)

Ctrl-C (or the run's total time spent) sets the device's stop flag: every chain stops at its
next round, the kernel ends, and every puzzle published and not yet handed out is reported once:
solved ones as they are, the others as they stand with error "interrupted" (or the time-spent
error), in InterruptedBatch as the slice pool does. In the CUDA simulator the kernel runs to its
end at each launch (nothing overlaps), the same loop otherwise.
"""

from __future__ import annotations

import time
import warnings
from collections import deque
from collections.abc import Iterator

import numpy as np

from cpu_reference.anneal.philox import seed_key
from cpu_reference.anneal.stream_jump import JumpCursor, bits_for, powers
from cpu_reference.errors import InputError, KernelWarning
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import (
    SudokuBatch,
    flat_rows,
    logic_fill_many,
    make_batch,
    puzzle_tables,
)
from gpu_anneal import interrupts, pool_status, validate
from gpu_anneal.kernels import persistent_layout as L
from gpu_anneal.kernels.launch import simulating
from gpu_anneal.run_plan import POOLS  # noqa: F401 (the pools' names, re-exported)

ROUND_PLATEAUS = 4  # plateaus a chain runs between looks at the stop flag
WAIT_LOOKS = 200_000  # a chain with no task looks again this often, 1 us apart (on a card)
RING_GROUPS = 16  # ring rows a resident group: the host publishes this far ahead, and a row
# is taken again about RING_GROUPS chunks after it was last: by then the slow puzzles that hold
# rows are few, so that a chunk's rows run on in few pieces (one copy an array a piece)
RING_MAX = 1 << 16  # ring rows at most (a row's tables: about 1.5 KB at 9x9, twice pinned)
SPARE_BITS = 52  # jumps the device may make: spare rounds (bit 40 up) over the chain index
POLL_SECONDS = 0.0005  # the host's pause between drains while the kernel runs


def serves(order: int, move: int, kernel: str = "auto") -> bool:
    """Whether a persistent kernel runs this order and move: every order the card runs, one
    chain a warp where the cooperative kernel runs (16x16 to 36x36, one-cell moves:
    persistent_kernel), one chain a thread elsewhere (9x9, the box swap, 49x49 and 64x64, whose
    cooperative block is never built); `kernel` "coop": only the cooperative kernel's."""
    from gpu_anneal.kernels import sudoku_coop as coop
    from gpu_anneal.kernels.sudoku import CUDA_ORDERS

    if order not in CUDA_ORDERS:
        return False
    if kernel == "coop":
        return coop.serves(order, move) and order in coop.block_orders(move)
    return True


def persistent_kernel(order: int, move: int,
                      limits: tuple[int, int] | None = None) -> tuple[str, str | None]:  # fmt: skip
    """Which persistent kernel runs this order and move on a device with these shared-memory
    limits (bytes a block may declare, bytes an SM holds; None: the current device's, read only
    where the cooperative kernel serves): ("coop", None); ("thread", why), why None where
    the cooperative kernel does not serve them, else sudoku_coop.choose's one line (its block
    does not fit: one chain a thread, the same chains); or ("slices", why) where the cooperative
    slice block fits and the persistent one (its task words more) does not."""
    from gpu_anneal.kernels import sudoku_coop as coop

    if not serves(order, move, "coop"):
        return "thread", None
    if limits is None:
        from gpu_anneal.runners import shared_limits

        limits = shared_limits()
    kind, why = coop.choose(order, move, "auto", *limits)
    if kind == "thread":
        return kind, why
    from gpu_anneal.kernels.persistent import coop_fallback_reason

    why = coop_fallback_reason(order, move, *limits)
    return ("slices", why) if why else ("coop", None)


class PersistentRunner:
    """The device's side: resident chains (the pool batch's chains), the ring of R rows, the
    control row, two streams and two pinned staging buffers."""

    def __init__(self, batch: SudokuBatch, rows: int, seed: int, spare: bool):
        from numba import cuda

        from gpu_anneal.kernels import persistent as kp
        from gpu_anneal.kernels import sudoku as ks

        self.cuda, self.kp, self.ks = cuda, kp, ks
        self.batch, self.rows, self.spare = batch, int(rows), bool(spare)
        self.cpp = batch.cpp
        self.counter = rules.counter_based(batch.order, batch.move)
        self.kernel_name, why = persistent_kernel(batch.order, batch.move)
        if self.kernel_name == "slices":
            raise InputError(f"pool persistent: {why}")
        if why:
            warnings.warn(why, KernelWarning, stacklevel=2)
        if self.kernel_name == "coop":  # one warp a chain: a block a resident chain
            self.kernel = kp.coop_compiled_kernel(batch.order, batch.move)
            self.threads, self.blocks = kp.coop.THREADS, batch.chains
        else:
            self.kernel = kp.compiled_kernel(batch.order, batch.move)
            self.threads = kp.threads_per_block(batch.order)
            self.blocks = max(1, -(-batch.chains // self.threads))
        self.run_stream, self.copy_stream = cuda.stream(), cuda.stream()
        s = self.copy_stream
        chain_keys = ("vals", "boards", "best_vals", "ctr", "rng", "exp_table")
        self.d = {k: cuda.to_device(ks.host_array(batch, k), stream=s) for k in chain_keys}
        ring = make_batch(np.zeros((self.rows, batch.given_vals.shape[1]), np.uint8),
                          batch.order, batch.schedule, 1, seed, move=batch.move)  # fmt: skip
        self.ring_host = ring
        keys = rules.PUZZLE_ARRAYS + ("solved",)
        self.ring = {k: cuda.to_device(ks.host_array(ring, k), stream=s) for k in keys}
        cells = batch.given_vals.shape[1]
        self.ring["first_state"] = cuda.to_device(np.zeros((self.rows, 2), np.uint64), stream=s)
        self.ring["rec"] = cuda.to_device(np.zeros(self.rows * L.N_REC, np.int64), stream=s)
        self.ring["rec_grid"] = cuda.to_device(np.zeros((self.rows, cells), np.uint8), stream=s)
        self.ring["ctl"] = cuda.to_device(np.zeros(L.N_CTL, np.int64), stream=s)
        self.ring["order"] = cuda.to_device(np.zeros(self.rows, np.int64), stream=s)
        self.ring["open"] = cuda.to_device(np.zeros(self.rows, np.int64), stream=s)
        bits = SPARE_BITS if spare else bits_for(batch.cpp)
        self.ring["powers"] = cuda.to_device(
            powers(bits) if not self.counter else np.zeros((1, 128, 2), np.uint64), stream=s
        )
        self.h_rec = cuda.pinned_array(self.rows * L.N_REC, np.int64)
        self.h_grid = cuda.pinned_array((self.rows, cells), np.uint8)
        self.h_ctl = cuda.pinned_array(L.N_CTL, np.int64)
        self.h_stop = cuda.pinned_array(self.rows, np.int64)
        self.h_open = cuda.pinned_array(self.rows, np.int64)
        # two pinned staging buffers (name -> rows), made before any launch: an allocation
        # while a launch runs may wait for it
        self.stage = [
            {name: cuda.pinned_array(self.ring[name].size, self.ring[name].dtype)
             for name in (*rules.PUZZLE_ARRAYS, "solved", "first_state", "rec", "rec_grid",
                          "order")}
            for _ in range(2)
        ]  # fmt: skip
        self.staged = [cuda.event(), cuda.event()]
        self.turn = 0
        self.done_event = cuda.event()
        self.running = False
        self.launches = 0
        self.jump = JumpCursor(seed)
        # the simulator runs a launch to its end before returning: no chain may wait there
        self.wait_looks = 0 if simulating() else WAIT_LOOKS
        self.base_key = np.uint64(seed_key(seed % 2**64))
        s.synchronize()

    def first_state(self, first: int) -> np.ndarray:
        """uint64[2]: what the device derives chain i of a puzzle from (its stream `first`)."""
        if self.counter:
            return np.array([self.base_key, first], np.uint64)
        return self.jump.state_of(int(first))

    def publish(self, rows: np.ndarray, tables: dict, firsts: np.ndarray, qs: np.ndarray,
                published: int) -> None:  # fmt: skip
        """Rows take new puzzles (row j of each table, stream firsts[j], position qs[j]), the
        last len(rows) places of the order ring before `published` name them, and PUBLISHED
        becomes `published`: pinned staging, copies on the second stream."""
        k = len(rows)
        if k == 0:
            return
        s = self.copy_stream
        self.staged[self.turn].synchronize()  # this buffer's last copies are done
        stage = self.stage[self.turn]
        rec = np.zeros((k, L.N_REC), np.int64)
        rec[:, L.R_Q] = qs
        rec[:, L.R_STATE] = L.PUBLISHED
        rec[:, L.R_LEFT] = self.cpp
        rec[:, L.R_KEY] = L.NO_KEY
        parts = dict(tables)
        parts["given_board"] = flat_rows(np.asarray(tables["given_board"]))
        parts["solved"] = np.full(k, rules.NOT_SOLVED, np.int64)
        parts["first_state"] = np.stack([self.first_state(int(f)) for f in firsts])
        parts["rec"] = rec.reshape(-1)
        parts["rec_grid"] = np.zeros((k, self.h_grid.shape[1]), np.uint8)
        places = (published - k + np.arange(k)) % self.rows
        for name, value in parts.items():
            self._stage_rows(name, stage[name], np.ascontiguousarray(value), rows)
        self._stage_rows("order", stage["order"], np.asarray(rows, np.int64), places)
        self.set_control(L.CTL_PUBLISHED, published)
        self.staged[self.turn].record(s)
        self.turn ^= 1

    def _stage_rows(self, name: str, pinned: np.ndarray, data: np.ndarray,
                    rows: np.ndarray) -> None:  # fmt: skip
        """Ring array `name`'s rows take data's rows (staged in `pinned`), a copy on the second
        stream for each run of consecutive rows."""
        k = len(rows)
        width = data.size // k
        pinned[: data.size] = data.reshape(-1)
        device = self.ring[name]
        flat = device.reshape(device.size) if device.ndim > 1 else device
        for run in np.split(np.arange(k), np.flatnonzero(np.diff(rows) != 1) + 1):
            a, b = int(rows[run[0]]) * width, (int(rows[run[-1]]) + 1) * width
            flat[a:b].copy_to_device(pinned[run[0] * width : (run[-1] + 1) * width],
                                     stream=self.copy_stream)  # fmt: skip

    def stop_rows(self, rows: np.ndarray) -> None:
        """The chains of ring rows stop at their next round (their bound: the stop value)."""
        value = pool_status.stop_value(self.ring_host.solved)
        for r in np.asarray(rows, np.int64).tolist():
            self.h_stop[r] = value
            self.ring["solved"][r : r + 1].copy_to_device(self.h_stop[r : r + 1],
                                                          stream=self.copy_stream)  # fmt: skip

    def set_open(self, rows: np.ndarray) -> None:
        """The open list: the rows spare chains may join (the host's rows not drained), and
        CTL_OPEN its length (after the list: a chain reads no entry before it is there)."""
        s = self.copy_stream
        s.synchronize()  # the last list's copy is done before its pinned buffer is written
        n = len(rows)
        self.h_open[:n] = rows
        if n:
            self.ring["open"][:n].copy_to_device(self.h_open[:n], stream=s)
        self.set_control(L.CTL_OPEN, n)

    def set_control(self, field: int, value: int) -> None:
        """Control word `field` = value, copied on the second stream (after its earlier copies)."""
        self.h_ctl[field] = value
        self.ring["ctl"][field : field + 1].copy_to_device(
            self.h_ctl[field : field + 1], stream=self.copy_stream
        )

    def launch(self) -> None:
        """Start the kernel on the first stream (after the second stream's copies so far)."""
        ready = self.cuda.event()
        ready.record(self.copy_stream)
        ready.wait(self.run_stream)
        self.kp.launch(self.kernel, self.blocks, self.d, self.batch, self.ring, self.cpp,
                       self.spare, self.wait_looks, ROUND_PLATEAUS, self.run_stream,
                       self.threads)  # fmt: skip
        self.done_event.record(self.run_stream)
        self.running = True
        self.launches += 1

    def kernel_ended(self) -> bool:
        """Whether the last launch has ended (False while it runs)."""
        query = getattr(self.done_event, "query", None)  # the simulator's events keep none
        if self.running and (query is None or query()):
            self.running = False
        return not self.running

    def wait(self) -> None:
        """Wait for the kernel to end."""
        self.done_event.synchronize()
        self.running = False

    def records(self) -> tuple[np.ndarray, np.ndarray]:
        """(int64[R, N_REC], uint8[R, cells]): the records and grids as the device holds them
        now (copied on the second stream while the kernel may run)."""
        s = self.copy_stream
        self.ring["rec"].copy_to_host(self.h_rec, stream=s)
        self.ring["rec_grid"].copy_to_host(self.h_grid, stream=s)
        s.synchronize()
        return np.array(self.h_rec).reshape(self.rows, L.N_REC), np.array(self.h_grid)


def status_rows(records: np.ndarray, cpp: int) -> np.ndarray:
    """pool_status rows (one a record) from records: the reported chain as m x SPARE_STRIDE + i
    (S_PICK, so that first stream + S_PICK names its stream), its counters, the sums."""
    S = pool_status
    rows = np.zeros((len(records), S.N_STATS), np.int64)
    picked = records[:, L.R_KEY] != L.NO_KEY
    rows[:, S.S_RUNNING] = np.maximum(records[:, L.R_LEFT], 0)
    rows[:, S.S_SOLVED] = records[:, L.R_SOLVED]
    rows[:, S.S_PICK] = np.where(picked, records[:, L.R_PICK], 0)
    rows[:, S.S_PICK_COST] = np.where(picked, records[:, L.R_PICK_COST], np.iinfo(np.int64).max)
    rows[:, S.S_PICK_TRIALS] = np.where(picked, records[:, L.R_PICK_TRIALS], 0)
    rows[:, S.S_PICK_PROPOSALS] = np.where(picked, records[:, L.R_PICK_PROPOSALS], 0)
    rows[:, S.S_TRIALS] = records[:, L.R_TRIALS]
    rows[:, S.S_PROPOSALS] = records[:, L.R_PROPOSALS]
    rows[:, S.S_ACCEPTED] = records[:, L.R_ACCEPTED]
    return rows


class PersistentPool:
    """The host's loop (module docstring) over a stream of puzzles; `make_results` builds
    results from status rows as the slice pool does (sudoku_solver's)."""

    def __init__(self, batch, runner: PersistentRunner, source, first_chain: int,
                 first_index: int, report: dict, propagate: bool, rows: int,
                 make_results):  # fmt: skip
        self.make_results = make_results
        self.batch, self.runner, self.source = batch, runner, source
        self.first_chain, self.first_index = first_chain, first_index
        self.report, self.propagate = report, propagate
        self.R = int(rows)
        self.next_q = 0
        self.published = 0  # puzzles published (order places p < published)
        self.cursor = 0  # the row after the last one published: the next free row from here
        self.exhausted = False
        self.row_q = np.full(self.R, -1, np.int64)  # -1: free
        self.row_cells = np.zeros((self.R, batch.given_vals.shape[1]), np.uint8)
        self.row_loaded = np.zeros_like(self.row_cells)
        self.row_start = np.zeros(self.R)
        self.row_taken = np.zeros(self.R, bool)  # its tables published
        self.closed = False
        self.row_stopped = np.zeros(self.R, bool)  # its chains told to stop (time limit)
        self.outbox: deque = deque()  # results made and not yet handed out

    def _read(self, count: int) -> list:
        """Up to `count` items of the stream (fewer: it is exhausted)."""
        read = []
        for _ in range(count):
            item = next(self.source, None)
            if item is None:
                self.exhausted = True
                break
            read.append(item)
        return read

    def free_rows(self, count: int) -> np.ndarray:
        """Up to `count` free rows, the next ones going round the ring from the cursor (rows
        still held by their puzzles passed over)."""
        ring = (self.cursor + np.arange(self.R)) % self.R
        return ring[self.row_q[ring] < 0][:count]

    def publish(self) -> int:
        """Publish the next puzzles into the next free rows, a chunk of at most one a resident
        group (the kernel starts after the first chunk and runs while the host prepares the
        next); returns how many."""
        if self.exhausted:
            return 0
        free = self.free_rows(min(self.R, self.batch.puzzles))
        if free.size == 0:
            return 0
        read = self._read(free.size)
        if not read:
            return 0
        k = len(read)
        rows = free[:k]
        self.cursor = (int(rows[-1]) + 1) % self.R
        b = self.batch
        qs = np.zeros(k, np.int64)
        for j, item in enumerate(read):
            if isinstance(item, tuple):
                q, cells = item
                q = validate.integer("puzzle position", q, 0)
            else:
                q, cells = self.next_q, item
            self.next_q = q + 1
            qs[j] = q
            self.row_cells[rows[j]] = validate.sudoku_array(cells, b.order)[0][0]
        self.row_q[rows] = qs
        cells, masks, has_mask = self.row_cells[rows], None, None
        if self.propagate:
            cells, masks, has_mask = logic_fill_many(cells, b.order)
        self.row_loaded[rows] = cells
        tables = puzzle_tables(cells, b.order, b.move, masks, has_mask)
        firsts = self.first_chain + qs * b.cpp
        self.published += k
        self.runner.publish(rows, tables, firsts, qs, self.published)
        self.row_start[rows] = time.perf_counter()
        self.row_taken[rows] = True
        self.row_stopped[rows] = False
        return k

    def close(self) -> None:
        """Once the input is exhausted: the open list, then CLOSED (chains with no task may
        join the puzzles of the list)."""
        if self.exhausted and not self.closed:
            self.runner.set_open(np.flatnonzero(self.row_q >= 0))
            self.runner.set_control(L.CTL_CLOSED, 1)
            self.closed = True

    def stop_late(self, time_limit: float | None) -> None:
        """Puzzles published more than time_limit seconds ago: their chains are told to stop
        (their bound set to the stop value; each stops at its next round)."""
        if time_limit is None:
            return
        late = np.flatnonzero((self.row_q >= 0) & ~self.row_stopped
                              & (time.perf_counter() - self.row_start >= time_limit))  # fmt: skip
        if late.size:
            self.runner.stop_rows(late)
            self.row_stopped[late] = True

    def results(self, rows: np.ndarray, records: np.ndarray, grids: np.ndarray,
                error: str | None = None) -> list:  # fmt: skip
        """The results of ring rows (their records and grids), their rows freed."""
        b = self.batch
        status = status_rows(records[rows], b.cpp)
        qs = self.row_q[rows]
        now = time.perf_counter()
        out = self.make_results(
            b, status, grids[rows], self.row_loaded[rows], self.row_cells[rows],
            now - self.row_start[rows], "cuda", self.first_index + qs, self.report["seed"],
            self.first_chain + qs * b.cpp,
        )  # fmt: skip
        ran = records[rows, L.R_CHAINS]
        for result, chains in zip(out, ran.tolist(), strict=True):
            result.move = self.report["move"]
            if chains > b.cpp:
                result.extra["spare_chains"] = chains - b.cpp
            if error is not None and not result.solved:
                result.error = error
        self.row_q[rows] = -1
        self.row_taken[rows] = False
        return out

    def drain(self) -> int:
        """Every DONE record's result into the outbox, its row freed; returns how many."""
        records, grids = self.runner.records()
        done = np.flatnonzero((records[:, L.R_STATE] == L.DONE) & (self.row_q >= 0))
        done = done[np.argsort(records[done, L.R_Q], kind="stable")]
        if done.size:
            self.outbox.extend(self.results(done, records, grids))
            if self.closed:  # the open list loses the rows drained
                self.runner.set_open(np.flatnonzero(self.row_q >= 0))
        return int(done.size)

    def hand_out(self) -> Iterator:
        """Yield the outbox's results, each leaving it once the consumer has it."""
        while self.outbox:
            result = self.outbox[0]
            try:
                yield result
            finally:
                self.outbox.popleft()

    def drive(self, time_limit: float | None = None) -> Iterator:
        """Run the stream through the kernel; yield each result as it is drained."""
        runner = self.runner
        self.publish()
        self.close()
        runner.launch()  # at least once: an empty input compiles the kernel (the warm-up)
        while True:
            interrupts.check()
            self.close()
            self.stop_late(time_limit)
            ended = runner.kernel_ended()  # before the drain: what it drains is all there is
            out = self.drain()
            published = self.publish()
            self.close()
            if ended and (self.row_q >= 0).any():
                runner.launch()
            yield from self.hand_out()
            if self.exhausted and not (self.row_q >= 0).any():
                runner.wait()
                return
            if not out and not published and not runner.kernel_ended():
                time.sleep(POLL_SECONDS)

    def stop(self, error: str = "interrupted") -> list:
        """Ctrl-C: set the stop flag, wait for the kernel, and report every puzzle published
        and not yet handed out, as it stands: solved ones as they are, the others with `error`
        (as the slice pool's stop: a record the stop itself made DONE, its chains stopped by
        the flag, is no finished puzzle)."""
        runner = self.runner
        runner.set_control(L.CTL_STOP, 1)
        try:
            runner.wait()
            records, grids = runner.records()
        except Exception:  # the device may be gone: nothing more is known
            records = np.zeros((self.R, L.N_REC), np.int64)
            records[:, L.R_KEY] = L.NO_KEY
            grids = np.zeros_like(self.row_cells)
        rows = np.flatnonzero(self.row_q >= 0)
        rows = rows[np.argsort(self.row_q[rows], kind="stable")]
        out = list(self.outbox)
        if rows.size:
            out += self.results(rows, records, grids, error)
        return out


def ring_rows(batch, puzzles: int | None = None) -> int:
    """Rows of the ring: RING_GROUPS a resident group (cpp chains), so that a slow puzzle
    holds its row up while the others go round, at most RING_MAX; no more than the puzzles
    (and one: reading finds the end) when their count is known (an empty input: one row)."""
    rows = min(RING_GROUPS * batch.puzzles, RING_MAX)
    return max(1, min(rows, puzzles + 1)) if puzzles is not None else rows


def run_persistent(batch, source, seed: int, first_chain: int, first_index: int,
                   report: dict, propagate: bool, spare: bool, puzzles: int | None,
                   time_limit: float | None, make_results, interrupted):  # fmt: skip
    """Yield the results of the stream `source` run on the persistent kernel (module
    docstring); Ctrl-C: `interrupted` (the slice pool's InterruptedBatch) raised with every
    puzzle published reported."""
    rows = ring_rows(batch, puzzles)
    runner = PersistentRunner(batch, rows, seed, spare)
    pool = PersistentPool(batch, runner, source, first_chain, first_index, report, propagate,
                          rows, make_results)  # fmt: skip
    try:
        yield from pool.drive(time_limit)
    except KeyboardInterrupt:
        interrupts.answered()
        raise interrupted(pool.stop(interrupts.stop_reason())) from None
