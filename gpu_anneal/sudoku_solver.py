"""Host orchestration of Sudoku annealing: a pool of puzzle slots, slices, limits, results.

Glossary: p slot (a puzzle's place in the batch arrays), q puzzle position in the stream, g chain
index in the batch, cpp chains per puzzle, slice = one call that advances every chain by up to
`budget` plateaus.

The pool keeps `slots` puzzles on the device (or the CPU cores) at once. After each slice it
reads one status row per puzzle (reduced on the device on CUDA: gpu_anneal.pool_status), fetches
the grids of the puzzles that are done (solved, out of trials or out of time), verifies and
reports them, and loads the next puzzles of the stream into the freed slots, so the hardware
stays busy while easy puzzles leave and new ones enter. The refill comes before the next slice
is launched (a freed slot never sits out a slice) and the results are handed out while it
runs; a runner that overlaps (overlaps True: a modeled card of the older loop) launches first
and refills meanwhile, its freed slots joining the slice after. On CUDA the persistent pool
(gpu_anneal.persistent_pool) runs instead where its kernel serves the order and move. A slice
lasts about `slice_seconds`, and never more than half the time the closest puzzle has left:
its length in plateaus comes from the measured rate (Slicer; on the CPU calibrated before the
first slice: one plateau longer than the limit is a warning, the run goes on),
and a puzzle with less time left than one more round is stopped.

Chain i of the q-th puzzle of a run draws RNG stream first_chain + q * cpp + i whatever the slot,
batch size or backend, so any chain can be replayed alone and the same seed gives the same
trajectories.

Spare chains (on CUDA, without a trial cap): once the stream is exhausted, slots that fall empty
are given to the puzzles still running, the longest-running first, each such slot cpp more
chains of that puzzle, so the card's chains stay on the last hard puzzles instead of idling.
The m-th slot added to the q-th puzzle draws streams m * SPARE_STRIDE + first_chain + q * cpp + i
(SPARE_STRIDE = 2**40: the slot's chains, like every other, replay from the puzzle and the
stream alone, and stream mod SPARE_STRIDE still names the puzzle). A puzzle with spare slots is
over when one of its slots has solved and is over, or when all are; the others are stopped.
Its result sums the counts of all its slots, reports the solved chain with the fewest
proposals among them (else the best grid), and says how many chains were added
(extra["spare_chains"]; absent: none).

Ctrl-C (KeyboardInterrupt) reports every puzzle taken from the stream and not yet handed out,
once, and then raises InterruptedBatch: finished results as they are, puzzles in the pool as
they stand, a puzzle read but not started with no counts. The run's time budget
(gpu_anneal.interrupts.until) stops it the same way, checked between slices, and no slice runs
past it.

A puzzle with no solution leaves the pool after its first slice when deduction (`propagate`)
meets a contradiction, or once it has run PROOF_AFTER seconds unsolved and the exact search,
capped at PROOF_NODES branch nodes, finds no solution: its `error` then starts with "no
solution" (NO_SOLUTION), and its best grid is the one its chains reached.
"""

from __future__ import annotations

import gc
import itertools
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from cpu_reference.errors import InputError, KernelWarning, LimitWarning
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import (
    SudokuBatch,
    logic_fill,
    make_batch,
    puzzle_tables,
    run_slice_cpu,
)
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import Schedule
from gpu_anneal import host_cores, interrupts, phases, pool_status, timeline, validate
from gpu_anneal.persistent_pool import persistent_kernel, run_persistent
from gpu_anneal.persistent_pool import serves as persistent_serves
from gpu_anneal.run_plan import RunPlan, pool_plan
from gpu_anneal.runners import make_runner


@dataclass
class SolveResult:
    """What happened to one puzzle."""

    index: int
    order: int
    solved: bool
    verified: bool
    solution: np.ndarray | None
    best: np.ndarray
    cost: int
    trials: int
    proposals: int
    accepted: int
    seconds: float
    method: str = "anneal"
    backend: str = "cpu"
    chains: int = 1
    schedule: str = ""
    move: str = "sirdey"
    solving_chain: int | None = None
    seed: int = 0
    error: str | None = None
    extra: dict = field(default_factory=dict)
    verify_seconds: float = 0.0  # this puzzle's share of the verifier's call


class InterruptedBatch(KeyboardInterrupt):
    """Ctrl-C during a run; `results` holds every puzzle reported before and at the stop."""

    def __init__(self, results: list[SolveResult]):
        super().__init__("interrupted")
        self.results = results


NO_TRIAL_CAP = 2**62  # max_trials None: trials without end
NO_SOLUTION = "no solution"  # the error of a puzzle proved to have none
PROOF_AFTER = 0.5  # seconds a puzzle anneals unsolved before the exact search looks for a proof
PROOF_NODES = 1000  # the branch nodes that search may spend (25x25: tens of milliseconds)
# slot_proof: not looked at yet, looked at and open, proved to have no solution (and why)
UNCHECKED, OPEN, CONTRADICTION, NO_SEARCH_SOLUTION = 0, 1, 2, 3
PROOF_ERRORS = {
    CONTRADICTION: f"{NO_SOLUTION}: deduction meets a contradiction",
    NO_SEARCH_SOLUTION: f"{NO_SOLUTION}: the exact search finds none",
}


def proved_unsolvable(cells: np.ndarray, order: int, max_nodes: int = PROOF_NODES) -> bool:
    """Whether the exact search, capped at `max_nodes` branch nodes, proves that the puzzle
    (uint8[cells], 0 blank) has no solution; False when it finds one or runs out of nodes."""
    from cpu_reference.sudoku.exact import solve_exact

    return solve_exact(cells, order, limit=1, max_nodes=max_nodes)[0] == 0


def compile_proof(order: int) -> None:
    """Compile (or load from the disk cache) proved_unsolvable's search at this order, on an
    empty grid capped at one branch node: its first proof then spends no search time on it."""
    proved_unsolvable(np.zeros(layout(order).cells, np.uint8), order, max_nodes=1)


def chain_trials(total: int, chains: int, i: int) -> int:
    """Trials chain i of a puzzle's `chains` may start when the puzzle may start `total`:
    its trials are dealt round-robin (cpu_reference.sudoku.chain_template.drive_chain)."""
    return total // chains + (1 if i < total % chains else 0)


def solve_stream(
    puzzles: Iterable[np.ndarray | tuple[int, np.ndarray]],
    order: int,
    *,
    slots: int | None = None,
    schedule: Schedule | str = "sirdey-course",
    chains: int | None = None,
    seed: int = 0,
    time_limit: float | None = 60.0,
    max_trials: int | None = None,
    backend: str = "auto",
    first_index: int = 0,
    first_chain: int = 0,
    slice_seconds: float = 0.2,
    move: str = "sirdey",
    propagate: bool = False,
    device=None,
    spare_chains: bool | None = None,
    on_compiled: Callable[[float], None] | None = None,
    pool: str | None = None,
) -> Iterator[SolveResult]:
    """Anneal a stream of puzzles (uint8[cells] each), `slots` at a time; yield as they finish.

    An item may also be (q, cells): q then stands for the puzzle's position (its index is
    first_index + q and its chains first_chain + q * cpp + i), so skipped puzzles keep the
    numbering of the full stream.

    Each puzzle gets `chains` chains (restart strategy: a chain starts a new trial when one
    fails) and stops when its chains have stopped (one reached cost 0 and none can still beat
    it, or all are out of trials: `max_trials` over its chains, dealt round-robin, and no more
    chains than max_trials) or `time_limit` seconds after
    it started. A solution is reported solved only if the independent verifier accepts it.
    Results come in completion order; `index` is first_index plus the puzzle's position in the
    stream. With `propagate`, the exact solver's deduction rules first fix every digit they
    can and narrow the candidates (a named hybrid, off by default: the published method anneals
    the puzzle as given).

    On CUDA, `slots` and `chains` left at None follow the plan (gpu_anneal.plan): one launch
    covers at least a full wave of the card, spread over as many puzzles as the stream holds;
    `device` names a described card to plan for (the current device by default). On the CPU,
    slots defaults to 1 and chains to one per core.

    `spare_chains` (None: on for CUDA, off on the CPU, where more chains only add work; never
    with max_trials, whose trials are dealt over a puzzle's chains): once the stream is
    exhausted, empty slots take more chains of the puzzles still running (module docstring).

    `on_compiled(seconds)` is told, before the first puzzle is loaded, how long the pool's own
    compile step took (every kernel compiled or loaded from the disk cache, and run once on no
    chain); the phase `compiling` is announced for it (gpu_anneal.phases).

    `pool` (CUDA only; the CPU backend takes it and runs as ever): "persistent", one launch of
    the persistent kernel for the whole stream (gpu_anneal.persistent_pool: one chain a thread,
    or one warp a chain where the cooperative kernel runs), else slices; "slices", this
    module's pool. None: persistent on a card, slices in the CUDA simulator and with a
    stand-in slice runner.
    """
    plan = pool_plan(
        order, backend=backend, schedule=schedule, chains=chains, slots=slots, seed=seed,
        time_limit=time_limit, max_trials=max_trials, move=move, propagate=propagate,
        spare_chains=spare_chains, pool=pool,
    )  # fmt: skip
    slice_seconds = validate.slice_seconds(slice_seconds)
    yield from run_pool(plan, puzzles, first_index, first_chain, slice_seconds, device, on_compiled)


def run_pool(
    plan: RunPlan,
    puzzles: Iterable[np.ndarray | tuple[int, np.ndarray]],
    first_index: int = 0,
    first_chain: int = 0,
    slice_seconds: float = 0.2,
    device=None,
    on_compiled=None,
) -> Iterator[SolveResult]:
    """solve_stream of a settled plan (gpu_anneal.run_plan): nothing is checked again. On CUDA,
    chains and slots left None follow the pool's launch plan (gpu_anneal.plan) for the stream
    read ahead; on the CPU, slots are 1 and chains one per core when None."""
    used, order, move = plan.backend, plan.order, plan.move
    slots, chains, max_trials = plan.slots, plan.chains, plan.max_trials
    sched, seed, time_limit = plan.schedule, plan.seed, plan.time_limit
    lay = layout(order)
    source = iter(puzzles)
    if used == "cuda":
        from gpu_anneal import plan as launch

        ahead: list = []
        count = None
        if slots is None:
            most = launch.max_slots(order, move, chains, device)
            ahead = list(itertools.islice(source, most + 1))
            count = len(ahead) if len(ahead) <= most else None
            source = itertools.chain(ahead, source)
        chosen = launch.launch_plan(
            order, move, puzzles=count, chains=chains, batch=slots, device=device,
            host_seconds=0.0, rate=0.0,
        )  # fmt: skip
        slots, cpp = chosen["slots"], chosen["chains_per_puzzle"]
    else:
        slots, cpp = slots or 1, int(chains)
    if max_trials is not None:  # no chain without a trial: max_trials chains at most
        cpp = min(cpp, max_trials)
    trial_cap = NO_TRIAL_CAP if max_trials is None else max_trials  # over a puzzle's chains
    batch = make_batch(
        np.zeros((slots, lay.cells), np.uint8), order, sched, cpp, seed, trial_cap,
        move=plan.move_code,
    )  # fmt: skip
    report = dict(backend=used, seed=seed, move=move)
    spare = (used == "cuda") if plan.spare_chains is None else bool(plan.spare_chains)
    spare = spare and max_trials is None
    if used == "cuda" and persistent_chosen(plan.pool, order, plan.move_code):
        yield from run_persistent(batch, source, seed, first_chain, first_index, report,
                                  plan.propagate, spare, count, time_limit, _results,
                                  InterruptedBatch)  # fmt: skip
        return
    runner = make_runner(batch, used, seed)
    pool = _Pool(batch, runner, source, first_chain, first_index, report, plan.propagate, spare)
    slicer = Slicer(sched.plateau, slice_seconds)
    try:
        compiled = pool.warm()  # compiles: time limits count annealing, not compilation
        if on_compiled is not None:
            on_compiled(compiled)
        if used == "cpu":
            calibrate(slicer, batch, time_limit)
        try:
            with fewer_collections():
                yield from pool.drive(time_limit, slicer)
        except KeyboardInterrupt:
            raise
        except Exception as exc:
            if used != "cuda" or isinstance(exc, InputError):
                raise
            # a device fault: what was reported stays; every puzzle in the pool is reported
            # unsolved with the error named
            pool.stop_all(f"CUDA error: {type(exc).__name__}: {exc}".splitlines()[0])
            yield from pool.hand_out()
    except KeyboardInterrupt:
        interrupts.answered()
        pool.stop_all(interrupts.stop_reason())
        raise InterruptedBatch(list(pool.outbox)) from None


def persistent_chosen(pool: str | None, order: int, move: int) -> bool:
    """Whether a CUDA run takes the persistent pool: asked for, or by default on a card (not
    in the simulator, nor where a caller put a slice runner of its own in make_runner's
    place: a stand-in); and served for the order and move. Else slices."""
    from gpu_anneal import runners
    from gpu_anneal.kernels.launch import simulating

    own = make_runner is runners.make_runner  # (module global: a stand-in replaces it)
    wanted = pool == "persistent" or (pool is None and not simulating() and own)
    if not (wanted and persistent_serves(order, move)):
        return False
    kind, why = persistent_kernel(order, move)
    if kind == "slices":  # the persistent cooperative block does not fit the device
        warnings.warn(why, KernelWarning, stacklevel=2)
        return False
    return True


POOL_GC_THRESHOLD = 50_000  # allocations between collections of the youngest generation
_gc_lock = threading.Lock()
_gc_users = [0, None]  # pools running, the thresholds before the first


@contextmanager
def fewer_collections():
    """While a pool runs, the garbage collector's youngest generation is collected every
    POOL_GC_THRESHOLD allocations (Python's default: 700): a pool makes many short-lived objects
    (results, records) and no reference cycles of its own, and each collection of the older
    generations walks every object the imports made. The thresholds before the first pool are
    put back when the last one ends (pools may run in threads at once)."""
    with _gc_lock:
        if _gc_users[0] == 0:
            _gc_users[1] = gc.get_threshold()
            first, *older = _gc_users[1]
            gc.set_threshold(max(first, POOL_GC_THRESHOLD), *older)
        _gc_users[0] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users[0] -= 1
            if _gc_users[0] == 0:
                gc.set_threshold(*_gc_users[1])


def stop_stream(stream: Iterator[SolveResult]) -> list[SolveResult]:
    """The results a solve_stream generator still holds, after a Ctrl-C outside it (while its
    consumer worked on a result): Ctrl-C is raised in it, as if pressed while it ran."""
    try:
        stream.throw(KeyboardInterrupt())
    except InterruptedBatch as stop:
        return stop.results
    except (KeyboardInterrupt, StopIteration):  # it had ended, or stopped without a report
        return []
    stream.close()  # it yielded instead (it cannot: a thrown Ctrl-C ends every run)
    return []


SPARE_STRIDE = 1 << 40  # streams of the m-th slot added to a puzzle: m * SPARE_STRIDE + ...


def puzzle_of_stream(stream: int, cpp: int) -> int:
    """The position in its run (first_chain 0) of the puzzle whose chain draws `stream`, a spare
    chain's included."""
    return (int(stream) % SPARE_STRIDE) // cpp


SAFETY = 0.5  # a slice takes at most this share of the smallest time a puzzle has left
HOST_SHARE = 0.2  # slices grow until the host's part of a round (status, launch) is this share
# ... but to this many seconds at most: one round's one-off host cost (a first compilation under
# load: tens of seconds) would otherwise set a slice of minutes, and Ctrl-C waits for the slice
GROWN_SLICE_SECONDS = 2.0
MAX_BUDGET = 1 << 24


class Slicer:
    """Plateaus per slice from the measured rate, so that no slice outlasts a puzzle's time.

    A round of the pool is one slice on the device plus the host's part that does not overlap
    it (waiting for the status rows, launching): `overhead`, measured. The rate is proposals
    per second over the chains that were running when the last measured slice started; a slice
    of `budget` plateaus with R chains running is predicted to take

        kernel = budget x plateau x max(R, R_measured) / rate     (fewer chains: not faster)
        round  = overhead + kernel

    and is sized so that kernel <= slice_seconds (longer when the overhead would otherwise
    exceed HOST_SHARE of a round, up to GROWN_SLICE_SECONDS) and round <= SAFETY x the least
    time a puzzle has left.
    Before any measurement a slice is one plateau.
    """

    def __init__(self, plateau: int, slice_seconds: float):
        self.plateau = plateau
        self.slice_seconds = slice_seconds
        self.rate = 0.0  # proposals per second
        self.measured_running = 0
        self.overhead = 0.0  # seconds of a round outside the kernel

    def predict(self, budget: int, running: int) -> float | None:
        """Predicted seconds of a round of `budget` plateaus (None before any measurement)."""
        if self.rate <= 0:
            return None
        kernel = budget * self.plateau * max(running, self.measured_running, 1) / self.rate
        return self.overhead + kernel

    def budget(self, running: int, least_left: float | None) -> int:
        """Plateaus for the next slice, given the smallest time a puzzle has left."""
        if self.rate <= 0:
            return 1
        one = self.predict(1, running) - self.overhead
        grown = min(self.overhead * (1 - HOST_SHARE) / HOST_SHARE, GROWN_SLICE_SECONDS)
        target = max(self.slice_seconds, grown)
        if least_left is not None:
            target = min(target, SAFETY * least_left - self.overhead)
        return int(min(MAX_BUDGET, max(1, target // one)))

    def measure(self, proposals: int, kernel: float, running: int, round_seconds: float) -> None:
        """Record a round: `proposals` done by a slice of `kernel` seconds with `running` chains
        at its start, in a round of `round_seconds`."""
        if proposals > 0 and kernel > 0 and running > 0:
            self.rate = proposals / kernel
            self.measured_running = running
        self.overhead = max(0.0, round_seconds - kernel)


CALIBRATION_CHAINS = 4096


def calibrate(slicer: Slicer, batch: SudokuBatch, time_limit: float | None) -> None:
    """Give the slicer a CPU rate before the first slice: one plateau of a throwaway batch of
    at most CALIBRATION_CHAINS chains on the slots' puzzle with the most blanks, or on an empty
    grid where deduction completed every slot's puzzle (it makes no proposal, so gives no rate);
    a trial start included.

    LimitWarning when one plateau of every chain would take longer than the time limit (no
    slice could keep it): the run goes on, each puzzle stopping at its limit after its first
    plateau. A rate measured while the machine is busy can be far too low; it never refuses a
    run."""
    chains = min(batch.chains, CALIBRATION_CHAINS)
    blanks = np.count_nonzero(batch.given_vals == 0, axis=1)
    q = int(np.argmax(blanks))
    rows = batch.given_vals[q : q + 1] if blanks[q] else np.zeros_like(batch.given_vals[:1])
    trial = make_batch(rows, batch.order, batch.schedule, chains, 0, move=batch.move)
    start = time.perf_counter()
    run_slice_cpu(trial, 1, stop_on_solved=False)
    seconds = time.perf_counter() - start
    slicer.measure(int(trial.ctr[:, rules.C_PROPOSALS].sum()), seconds, chains, seconds)
    one = slicer.predict(1, batch.chains)
    if time_limit is not None and one is not None and one > time_limit:
        warnings.warn(
            f"chains = {batch.cpp:,} a puzzle: one plateau of all {batch.chains:,} chains takes "
            f"about {one:.3g} s on this CPU now, more than the time limit of {time_limit:.3g} s; "
            "running anyway (each puzzle stops at its limit after one plateau); fewer chains or "
            "a longer limit would keep it",
            LimitWarning,
            stacklevel=2,
        )


class Leaving(NamedTuple):
    """Puzzles leaving the pool, one entry a puzzle in the order of their first slot
    (_Pool.leaving)."""

    slots: np.ndarray  # every slot of these puzzles
    rows: np.ndarray  # each puzzle's status row, its slots' rows merged (merged_rows)
    reporting: np.ndarray  # the slot whose chain reports it: its grid, position and start
    spares: np.ndarray  # its spare slots that ran


class _Pool:
    """Which puzzle sits in which slot, since when, and the loop that keeps the slots busy.

    One loop serves every runner, and it works on all the slots at once: after each slice the
    status rows say which puzzles are finished (or out of time: stopped), their grids are
    fetched together, the host verifies them (one verifier call for all: verify_many) and
    refills their slots (deduction, tables and upload for all the new puzzles at once), then
    the next slice starts and the results are handed out while it runs. On a runner that
    overlaps (a modeled card of the older loop) the next slice starts before the host verifies
    and refills, a refilled slot joining the slice after.

    Every puzzle taken from the stream is, at any moment, in exactly one place: its slots
    (slot_q; its lead slot, and spare slots that name the lead in slot_lead), or the outbox (its
    result made and not yet handed out), or handed out. A slot is marked taken before its
    puzzle is loaded and empty once its result is in the outbox; a result leaves the outbox only
    when the consumer has it. So a Ctrl-C, wherever it lands, finds each puzzle once: stop_all
    reports the puzzles the outbox does not already hold, one result for all their slots.
    """

    def __init__(
        self, batch, runner, source, first_chain, first_index, report, propagate=False,
        spare=False,
    ):  # fmt: skip
        self.batch = batch
        self.runner = runner
        self.propagate = propagate
        self.source = source
        self.first_chain = first_chain
        self.first_index = first_index
        self.report = report  # backend, seed, move: what every result names
        self.next_q = 0
        self.spare = spare  # give empty slots to running puzzles once the stream is exhausted
        self.exhausted = False
        self.spares_of: dict[int, int] = {}  # q -> spare slots it has had (m of the next)
        P, cells = batch.puzzles, batch.given_vals.shape[1]
        self.slot_q = np.full(P, -1, np.int64)  # -1: empty
        self.slot_lead = np.full(P, -1, np.int64)  # the puzzle's lead slot (itself for a lead)
        self.slot_first = np.zeros(P, np.int64)  # stream of the slot's chain 0
        self.slot_masks = self.slot_deduced = None  # (spare chains) each lead's deduction
        self.slot_start = np.full(P, np.nan)  # nan: its chains have not run yet
        self.slot_cells = np.zeros((P, cells), np.uint8)  # each slot's puzzle as read
        self.slot_loaded = np.zeros((P, cells), np.uint8)  # ... as loaded (after deduction)
        self.slot_proof = np.zeros(P, np.int8)  # UNCHECKED, OPEN or why it has no solution
        self.outbox: deque[SolveResult] = deque()  # results made and not yet handed out
        self.bounds = pool_status.bound_semantics(batch.solved)
        self.stats = np.zeros((P, pool_status.N_STATS), np.int64)
        self.seen = np.zeros(P, np.int64)  # proposals of each slot's puzzle at the last status
        self.N = layout(batch.order).N

    def warm(self) -> float:
        """Compile every kernel and the proof search (compile_proof), then fill every slot
        (before any clock starts); returns the seconds of the compile step."""
        runner = self.runner
        start = time.perf_counter()
        with phases.compiling():
            runner.run(0)
            runner.fetch(np.zeros(1, np.int64), runner.status())
            runner.fetched()
            compile_proof(self.batch.order)
        compiled = time.perf_counter() - start
        timeline.mark("module loads" if self.report["backend"] == "cuda" else "compile")
        self.refill(np.arange(self.batch.puzzles))
        self.stats = runner.status()
        self.round = time.perf_counter()
        return compiled

    def refill(self, slots: np.ndarray) -> None:
        """Load the stream's next puzzles into `slots` (empty), in order; the slots left when
        the stream ends stay empty. Each slot names its puzzle before any load starts: a Ctrl-C
        while reading or loading finds every puzzle read there, not started."""
        self.slot_start[slots] = np.nan
        self.seen[slots] = 0
        read = []
        try:
            for _ in range(len(slots)):
                item = next(self.source, None)
                if item is None:
                    self.exhausted = True
                    break
                read.append(item)
        except BaseException:  # (a Ctrl-C) the puzzles read so far are named all the same
            self._take(slots, read)
            raise
        taken = self._take(slots, read)
        new = slots[:taken]  # (a slot read and not led yet has slot_lead -1: stop_all)
        self.slot_lead[new] = new
        self.slot_first[new] = self.first_chain + self.slot_q[new] * self.batch.cpp
        if taken < len(slots):
            rest = self._spare(slots[taken:])
            if rest.size:
                self.runner.empty(rest)
        if taken:
            self._load(slots[:taken])

    def _take(self, slots: np.ndarray, read: list) -> int:
        """Name the stream items `read` in the first of `slots`, in order: each slot's puzzle
        position (slot_q) and cells as read (slot_cells). Returns len(read); a malformed item
        raises InputError with the items before it named. Items of plain cells take the
        positions that follow the last one (next_q)."""
        for p, item in zip(slots, read, strict=False):
            if isinstance(item, tuple):
                q, cells = item
                q = validate.integer("puzzle position", q, 0)  # -1 marks a slot empty
            else:
                q, cells = self.next_q, item
            self.next_q = q + 1
            self.slot_cells[p] = self._cells(cells)
            self.slot_q[p] = q
        return len(read)

    def _spare(self, free: np.ndarray) -> np.ndarray:
        """Give the empty slots `free` to the puzzles still running, when spare chains are on
        and the stream is exhausted: round-robin, the longest-running puzzle first, each slot
        its puzzle's next spare streams. Returns the slots left empty (already emptied or to be
        emptied by the caller)."""
        leads = np.flatnonzero((self.slot_lead == np.arange(len(self.slot_lead)))
                               & ~np.isnan(self.slot_start))  # fmt: skip
        if not (self.spare and self.exhausted and free.size and leads.size):
            return free
        leads = leads[np.argsort(self.slot_start[leads], kind="stable")]
        turn = np.arange(free.size)  # slot j goes to leads[j % L], its (j // L + 1)-th this time
        lead_of = leads[turn % leads.size]
        q = self.slot_q[lead_of]
        m = self._count_spares(q[: leads.size], free.size)[turn % leads.size] + turn // leads.size
        self.slot_start[free] = np.nan  # their chains start with the next slice
        self.seen[free] = 0
        self.slot_cells[free] = self.slot_cells[lead_of]
        self.slot_lead[free] = lead_of  # (led before named: never an unled slot of a puzzle)
        self.slot_q[free] = q
        self.slot_first[free] = m * SPARE_STRIDE + self.first_chain + q * self.batch.cpp
        self._load(free, lead_of)
        return free[:0]

    def _count_spares(self, puzzles: np.ndarray, slots: int) -> np.ndarray:
        """Deal `slots` spare slots round-robin to `puzzles` (positions q, the first of them
        first): records each one's new count in spares_of and returns the m of the first slot
        each gets (its count before, plus one)."""
        had = np.array([self.spares_of.get(q, 0) for q in puzzles.tolist()], np.int64)
        gets = (slots - np.arange(puzzles.size) + puzzles.size - 1) // puzzles.size
        self.spares_of.update(zip(puzzles.tolist(), (had + gets).tolist(), strict=True))
        return had + 1

    def _cells(self, cells) -> np.ndarray:
        """A puzzle's cells as the pool keeps them: uint8[cells], every value in 0..N (262
        refused, never taken as 6)."""
        if (
            isinstance(cells, np.ndarray) and cells.dtype == np.uint8
            and cells.shape == self.slot_cells.shape[1:] and int(cells.max()) <= self.N
        ):  # fmt: skip
            return cells
        return validate.sudoku_array(cells, self.batch.order)[0][0]

    def _load(self, slots: np.ndarray, leads: np.ndarray | None = None) -> None:
        """The puzzles named by `slots` into the runner: deduction (when asked), tables and
        the upload, for all of them at once; spare slots take their `leads`' deduction, and
        each lead's tables are made once however many of the slots it leads."""
        b = self.batch
        cells, masks, has_mask = self.slot_cells[slots], None, None
        self.slot_proof[slots] = UNCHECKED
        if self.propagate and leads is not None:
            cells, masks, has_mask = (self.slot_loaded[leads], self.slot_masks[leads],
                                      self.slot_deduced[leads])  # fmt: skip
        elif self.propagate:
            cells, masks, has_mask = host_cores.logic_fill_rows(cells, b.order)
            self.slot_proof[slots] = np.where(has_mask, UNCHECKED, CONTRADICTION)
            if self.spare:  # kept for the spare slots a puzzle may get
                if self.slot_masks is None:
                    self.slot_masks = np.zeros((b.puzzles, cells.shape[1]), masks.dtype)
                    self.slot_deduced = np.zeros(b.puzzles, bool)
                self.slot_masks[slots], self.slot_deduced[slots] = masks, has_mask
        self.slot_loaded[slots] = cells
        if leads is None:
            tables = host_cores.tables_rows(cells, b.order, b.move, masks, has_mask)
        else:  # a table's rows depend on their puzzle's row alone
            _, first, inverse = np.unique(leads, return_index=True, return_inverse=True)
            rows = [None if a is None else a[first] for a in (cells, masks, has_mask)]
            made = puzzle_tables(rows[0], b.order, b.move, *rows[1:])
            tables = {name: table[inverse.reshape(-1)] for name, table in made.items()}
        self.runner.load(slots, tables, self.slot_first[slots])

    def active(self) -> np.ndarray:
        """bool[slots]: slots holding a puzzle."""
        return self.slot_q >= 0

    def drive(self, time_limit: float | None, slicer: Slicer):
        """Run slices until the stream is done; yield each puzzle's result as it finishes."""
        runner = self.runner
        while self.active().any():
            interrupts.check()  # a Ctrl-C that a compilation swallowed
            now = time.perf_counter()
            done = self._finished(now, time_limit, slicer)
            over = self.leaving(done) if done.size else None
            if over is not None:
                runner.fetch(over.reporting, self.stats)
            launch = None
            if runner.overlaps and self.active().sum() > done.size:
                launch = self._launch(slicer, time_limit)
            if over is not None:
                self._post(over, runner.fetched(), now)
                if launch is not None:  # the slice runs meanwhile; the freed slots join the next
                    yield from self.hand_out()
                self.refill(done)
            if self.spare and self.exhausted:  # slots emptied before any puzzle had started
                idle = np.flatnonzero(~self.active())
                if idle.size:
                    self._spare(idle)
            if launch is None:  # refilled first: the freed slots run in this slice
                if not self.active().any():
                    yield from self.hand_out()
                    return
                launch = self._launch(slicer, time_limit)
                yield from self.hand_out()  # while the slice runs
            self._measure(slicer, *launch)

    def _post(self, over: Leaving, grids: np.ndarray, now: float, error=None) -> None:
        """Put the results of the leaving puzzles in the outbox (grids: their reporting slots'),
        then mark all their slots empty; `error` (a stop: Ctrl-C, a device fault) is set on
        those not solved: a puzzle whose verified solution was in when the run stopped is
        reported solved, with no error."""
        results = self.results(over, grids, now)
        if error is not None:
            for result in results:
                if not result.solved:
                    result.error = error
        self.outbox.extend(results)
        self.slot_q[over.slots] = -1
        self.slot_lead[over.slots] = -1

    def hand_out(self) -> Iterator[SolveResult]:
        """Yield the outbox's results, each leaving it once the consumer has it (a Ctrl-C at
        the yield, thrown in or raised when the consumer asks for the next, comes after)."""
        while self.outbox:
            result = self.outbox[0]
            timeline.mark("first result")
            try:
                yield result
            finally:
                self.outbox.popleft()

    def _finished(self, now: float, time_limit: float | None, slicer: Slicer) -> np.ndarray:
        """Slots whose puzzle is over, or out of time (those are stopped), ascending. A puzzle
        with spare slots is over when one of its slots solved and is over, or all its started
        slots are over; all its slots are returned then, those still running stopped."""
        active = self.active()
        started = active & ~np.isnan(self.slot_start)
        running = self.stats[:, pool_status.S_RUNNING]
        over = started & (running == 0)
        if not self.bounds:
            over |= started & (self.stats[:, pool_status.S_SOLVED] > 0)
        if time_limit is not None:
            one = slicer.predict(1, int(running.sum()))
            left = time_limit - (now - self.slot_start)
            # out of time, or too little left for one more round of one plateau
            late = started & ~over & ((left <= 0) | (left < one if one is not None else False))
            if late.any():
                self.runner.stop(np.flatnonzero(late))
                over |= late
        P = len(self.slot_q)
        lead = np.where(active, self.slot_lead, 0)
        slots_started = np.bincount(lead[started], minlength=P)
        slots_over = np.bincount(lead[over], minlength=P)
        solved_over = np.bincount(lead[over & (self.stats[:, pool_status.S_SOLVED] > 0)],
                                  minlength=P)  # fmt: skip
        puzzle_over = (slots_started > 0) & ((slots_over == slots_started) | (solved_over > 0))
        puzzle_over |= self._proved(started, now)
        done = active & puzzle_over[lead]
        still = done & started & ~over
        if still.any():  # spare slots of a puzzle another of its slots solved
            self.runner.stop(np.flatnonzero(still))
        return np.flatnonzero(done)

    def _proved(self, started: np.ndarray, now: float) -> np.ndarray:
        """bool[slots]: the lead slots (started) of puzzles proved to have no solution: a
        contradiction deduction met, or the capped exact search of a puzzle that has run
        PROOF_AFTER seconds (looked for once a puzzle)."""
        leads = started & (self.slot_lead == np.arange(len(self.slot_lead)))
        due = leads & (self.slot_proof == UNCHECKED) & (now - self.slot_start >= PROOF_AFTER)
        due &= self.stats[:, pool_status.S_SOLVED] == 0
        for p in np.flatnonzero(due).tolist():
            unsolvable = proved_unsolvable(self.slot_loaded[p], self.batch.order)
            self.slot_proof[p] = NO_SEARCH_SOLUTION if unsolvable else OPEN
        return leads & (self.slot_proof >= CONTRADICTION)

    def _launch(self, slicer: Slicer, time_limit: float | None):
        """Start a slice sized to the least time a puzzle has left.

        Returns (running chains, seconds the run call took: the slice itself where run() waits
        for it)."""
        now = time.perf_counter()
        active = self.active()
        fresh = active & np.isnan(self.slot_start)
        started = active & ~fresh
        running = int(self.stats[started, pool_status.S_RUNNING].sum())
        running += self.batch.cpp * int(fresh.sum())
        least = None
        if time_limit is not None and active.any():
            elapsed = np.where(fresh, 0.0, now - self.slot_start)
            least = float(time_limit - elapsed[active].max())
        run_left = interrupts.time_left()  # the run's total time: no slice runs past it
        if run_left is not None:
            least = run_left if least is None else min(least, run_left)
        budget = slicer.budget(running, least)
        self.slot_start[fresh] = now
        spare = fresh & (self.slot_lead != np.arange(len(self.slot_lead)))
        self.slot_start[spare] = self.slot_start[self.slot_lead[spare]]  # the puzzle's start
        self.runner.run(budget)
        if running:
            timeline.mark("first launch")
        return running, time.perf_counter() - now

    def _measure(self, slicer: Slicer, running: int, run_seconds: float) -> None:
        """Wait for the slice's status rows; feed the slicer what the round did and took."""
        self.stats = self.runner.status()
        now = time.perf_counter()
        kernel = getattr(self.runner, "last_slice_seconds", lambda: None)()
        proposals = self.stats[:, pool_status.S_PROPOSALS]
        done = int((proposals - self.seen).clip(min=0).sum())
        slicer.measure(done, run_seconds if kernel is None else kernel, running, now - self.round)
        self.seen = proposals.copy()
        self.round = now

    def leaving(self, slots: np.ndarray) -> Leaving:
        """The puzzles of `slots` (all the slots of each among them) as they leave, from the
        status rows as they stand: one row a puzzle, a puzzle's spare slots merged into it
        (merged_rows), and the slot whose chain reports it (the slot itself, or for a puzzle
        with spare slots the one merged_rows picks); only those slots' grids are fetched."""
        rows, lead = self.stats[slots], self.slot_lead[slots]
        if (lead == slots).all():
            return Leaving(slots, rows, slots, np.zeros(len(slots), np.int64))
        rows, pick, spares = merged_rows(rows, lead, ~np.isnan(self.slot_start[slots]))
        return Leaving(slots, rows, slots[pick], spares)

    def results(self, over: Leaving, grids: np.ndarray, now: float) -> list[SolveResult]:
        """The results of the leaving puzzles, one a puzzle, from their merged rows and the
        grids of their reporting slots; a puzzle's position, cells and start are its reporting
        slot's (a started slot carries the puzzle's start)."""
        b, report = self.batch, self.report
        slots = over.reporting
        q = self.slot_q[slots]
        seconds = np.nan_to_num(now - self.slot_start[slots], nan=0.0)
        results = _results(
            b, over.rows, grids, self.slot_loaded[slots], self.slot_cells[slots], seconds,
            report["backend"], self.first_index + q, report["seed"], self.slot_first[slots],
        )  # fmt: skip
        proof = self.slot_proof[self.slot_lead[slots]]
        for result, why in zip(results, proof.tolist(), strict=True):
            result.move = report["move"]
            if why in PROOF_ERRORS and not result.solved:
                result.error = PROOF_ERRORS[why]
        if over.spares.any():  # (extra["spare_chains"] absent: none)
            for result, spare in zip(results, over.spares.tolist(), strict=True):
                result.extra["spare_chains"] = spare * b.cpp
        return results

    def _not_started(self, p: int, error: str) -> SolveResult:
        """The result of slot p's puzzle when its chains never ran: the puzzle as read, no
        counts (the slot's arrays may still hold the puzzle before it)."""
        report, b = self.report, self.batch
        return SolveResult(
            index=self.first_index + int(self.slot_q[p]), order=b.order, solved=False,
            verified=False, solution=None, best=self.slot_cells[p].copy(), cost=-1, trials=0,
            proposals=0, accepted=0, seconds=0.0, backend=report["backend"], chains=b.cpp,
            schedule=b.schedule.name, move=report["move"], seed=report["seed"], error=error,
            extra={"chain_trials": 0, "chain_proposals": 0},
        )  # fmt: skip

    def stop_all(self, error: str) -> None:
        """Move every puzzle still in a slot (and not in the outbox already) to the outbox, as
        it stands, with `error` set."""
        posted = {r.index for r in self.outbox}
        active = np.array([
            p for p in np.flatnonzero(self.active())
            if self.first_index + int(self.slot_q[p]) not in posted
        ], np.int64)  # fmt: skip
        started = active[~np.isnan(self.slot_start[active])]
        puzzles = np.unique(self.slot_lead[started]).size
        grids = np.zeros((puzzles, self.batch.given_vals.shape[1]), np.uint8)
        over = None
        if started.size:
            try:
                stats = self.runner.status()
                self.stats = stats
                over = self.leaving(started)
                self.runner.fetch(over.reporting, stats)
                grids = self.runner.fetched()
            except Exception:  # the device may be gone: the last rows known stand
                pass
        for p in active:
            if np.isnan(self.slot_start[p]):  # a spare slot not started: its lead reports
                if self.slot_lead[p] in (p, -1):
                    self.outbox.append(self._not_started(p, error))
                self.slot_q[p] = -1
                self.slot_lead[p] = -1
        if started.size:
            over = self.leaving(started) if over is None else over
            self._post(over, grids, time.perf_counter(), error)


def merged_rows(
    rows: np.ndarray, lead: np.ndarray, started: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One status row a puzzle from the rows of its slots (`lead`: each slot's lead slot;
    slots not `started` ran no chain and count nothing): counts summed, the reported chain
    that of the slot holding the solved chain with the fewest proposals among the slots over
    (none running; else among all), ties to the first slot; with none solved, the lowest
    cost. Returns (rows, the index of each puzzle's reporting slot, each puzzle's spare slots
    that ran), puzzles in the order of their first slot."""
    S = pool_status
    leads, first, group = np.unique(lead, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # puzzles in the order of their first slot
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    group = rank[group.reshape(-1)]
    solved = rows[:, S.S_SOLVED] > 0
    over = rows[:, S.S_RUNNING] == 0
    # the pick: the least (kind, value, position) of each puzzle's slots
    kind = np.where(solved, np.where(over, 0, 1), 2)
    kind = np.where(started, kind, 3)
    value = np.where(solved, rows[:, S.S_PICK_PROPOSALS], rows[:, S.S_PICK_COST])
    position = np.arange(len(rows))
    by = np.lexsort((position, value, kind, group))
    heads = np.flatnonzero(np.r_[True, group[by][1:] != group[by][:-1]])
    pick = by[heads]
    out = rows[pick].copy()
    counted = np.where(started[:, None], rows, 0)
    for k in (S.S_RUNNING, S.S_SOLVED, S.S_TRIALS, S.S_PROPOSALS, S.S_ACCEPTED):
        total = np.zeros(order.size, np.int64)
        np.add.at(total, group, counted[:, k])
        out[:, k] = total
    ran = np.bincount(group[started], minlength=order.size)
    return out, pick.astype(np.int64), np.maximum(ran - 1, 0).astype(np.int64)


def solve_batch(
    puzzles: np.ndarray,
    order: int,
    *,
    on_result: Callable[[SolveResult], None] | None = None,
    slots: int | None = None,
    **kwargs,
) -> list[SolveResult]:
    """Anneal every puzzle of `puzzles` (uint8[P, cells]); results in puzzle order.

    All puzzles are in the pool at once unless `slots` says otherwise; keyword arguments are
    solve_stream's. `on_result` sees each result as it finishes.
    """
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, layout(order).cells)
    count = puzzles.shape[0]
    results: list[SolveResult | None] = [None] * count
    first = kwargs.get("first_index", 0)
    stream = solve_stream(list(puzzles), order, slots=slots or max(1, count), **kwargs)
    try:
        for result in stream:
            results[result.index - first] = result
            if on_result is not None:
                on_result(result)
    except KeyboardInterrupt as stop:  # in the pool, or in on_result: the pool reports the rest
        stopped = stop.results if isinstance(stop, InterruptedBatch) else stop_stream(stream)
        for result in stopped:
            results[result.index - first] = result
            if on_result is not None:
                on_result(result)
        raise InterruptedBatch([r for r in results if r is not None]) from None
    return results


def _results(
    batch: SudokuBatch,
    rows: np.ndarray,
    grids: np.ndarray,
    loaded: np.ndarray,
    givens: np.ndarray,
    seconds: np.ndarray,
    backend: str,
    indices: np.ndarray,
    seed: int,
    first_chains: np.ndarray,
) -> list[SolveResult]:
    """SolveResults from status rows (gpu_anneal.pool_status) and reported grids, one per row;
    `loaded` the puzzles as the slots hold them (after deduction), `givens` as read, which
    every solution must keep (one verify_many call for all).

    A puzzle loaded complete (deduction filled every cell) runs no chain: its grid is the loaded
    one, its counts 0 and its chain fields None (extra["no_chain"]), on every backend alike."""
    cells = layout(batch.order).cells
    grids = np.array(grids[:, :cells], dtype=np.uint8)
    no_chain = loaded.all(axis=1)
    grids[no_chain] = loaded[no_chain]
    solved_any = no_chain | (rows[:, pool_status.S_SOLVED] > 0)
    faults = [None] * len(rows)
    check = np.flatnonzero(solved_any)
    start = time.perf_counter()
    if check.size:
        for j, fault in zip(
            check, host_cores.verify_rows(grids[check], batch.order, givens[check]), strict=True
        ):
            faults[j] = fault
    verify_seconds = (time.perf_counter() - start) / max(1, check.size)
    S = pool_status
    order, cpp, schedule = batch.order, batch.cpp, batch.schedule.name
    out = []
    for row, grid, none, solved, fault, index, secs, first in zip(
        rows.tolist(), list(grids), no_chain.tolist(), solved_any.tolist(), faults,
        indices.tolist(), seconds.tolist(), first_chains.tolist(), strict=True,
    ):  # fmt: skip
        verified = solved and fault is None
        cost = row[S.S_PICK_COST] if row[S.S_PICK_TRIALS] > 0 else -1
        out.append(SolveResult(
            index=index, order=order, solved=verified, verified=verified,
            solution=grid if verified else None, best=grid,
            cost=0 if none and verified else cost,
            # chains that found the grid complete (deduction first solved it) made no proposal
            # and ran no annealing trial: 0, not one trial a chain (39,424 on a card)
            trials=row[S.S_TRIALS] if row[S.S_PROPOSALS] > 0 and not none else 0,
            proposals=0 if none else row[S.S_PROPOSALS],
            accepted=0 if none else row[S.S_ACCEPTED],
            seconds=secs, backend=backend, chains=cpp, schedule=schedule,
            solving_chain=first + row[S.S_PICK] if solved and not none else None,
            seed=seed, error=fault, verify_seconds=verify_seconds if solved else 0.0,
            extra={
                "chain_trials": None if none else row[S.S_PICK_TRIALS],
                "chain_proposals": None if none else row[S.S_PICK_PROPOSALS],
                "no_chain": none,
            },
        ))  # fmt: skip
    return out


def _host_result(
    batch: SudokuBatch, p: int, givens: np.ndarray, seconds: float, index: int, seed: int,
    first: int,
) -> SolveResult:  # fmt: skip
    """A SolveResult of slot p from the host arrays (CPU batches); `givens` as read."""
    row = pool_status.puzzle_status(batch.ctr[batch.chain_slice(p)], batch.cpp)
    grid = batch.best_vals[p * batch.cpp + int(row[0, pool_status.S_PICK])][None]
    return _results(
        batch, row, grid, batch.given_vals[p : p + 1], np.asarray(givens, np.uint8)[None],
        np.array([seconds]), "cpu", np.array([index]), seed, np.array([first]),
    )[0]  # fmt: skip


def solve_one(puzzle: np.ndarray, order: int, **kwargs) -> SolveResult:
    """Anneal a single puzzle (see solve_stream for the keyword arguments)."""
    return solve_batch(np.asarray(puzzle)[None], order, **kwargs)[0]


def replay_chain(
    puzzle: np.ndarray,
    order: int,
    chain: int,
    *,
    chains: int,
    seed: int = 0,
    schedule: Schedule | str = "sirdey-course",
    max_trials: int | None = None,
    time_limit: float | None = None,
    move: str = "sirdey",
    propagate: bool = False,
) -> SolveResult:
    """Re-run chain `chain` of a run (any backend) alone on the CPU, from the same seed.

    `chains` is the run's chains per puzzle (with max_trials it sets the chain's share of the
    trials: chain_trials). A chain that
    solved in the run solves here after the same trials and proposals, at the same grid.
    `propagate` as in the run: the chain then anneals the propagated puzzle, as the pool did.
    """
    plan = pool_plan(
        order, backend="cpu", schedule=schedule, chains=chains, slots=1, seed=seed,
        time_limit=time_limit, max_trials=max_trials, move=move, propagate=propagate,
        spare_chains=False,
    )  # fmt: skip
    return replay_planned(plan, puzzle, chain)


def replay_planned(plan: RunPlan, puzzle: np.ndarray, chain: int) -> SolveResult:
    """replay_chain of a settled plan (its chains: the run's chains per puzzle)."""
    from cpu_reference.sudoku.batch import load_puzzle

    order, chains, seed, time_limit = plan.order, plan.chains, plan.seed, plan.time_limit
    trial_cap = NO_TRIAL_CAP
    if plan.max_trials is not None:  # the replayed chain's share, the only chain of its batch
        trial_cap = chain_trials(plan.max_trials, chains, chain % chains)
    givens = cells = np.asarray(puzzle, np.uint8)
    masks = None
    if plan.propagate:
        cells, masks = logic_fill(cells, order)
    # stream `chain` (a spare chain's is past 2**40): make_batch reaches any first chain
    batch = make_batch(cells[None], order, plan.schedule, 1, seed, trial_cap, chain, plan.move_code)
    if masks is not None:  # the candidate masks the pool loads with a propagated puzzle
        load_puzzle(batch, 0, cells, batch.rng[:1, :2].copy(), masks)
    start = time.perf_counter()
    budget = 64
    while batch.ctr[0, rules.C_STATUS] == rules.RUNNING:
        run_slice_cpu(batch, budget, stop_on_solved=False)
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            break
        budget = min(budget * 2, 1 << 20)
    result = _host_result(batch, 0, givens, time.perf_counter() - start, 0, seed, chain)
    result.chains = chains
    result.move = plan.move
    return result
