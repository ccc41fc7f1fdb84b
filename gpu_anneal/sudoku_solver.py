"""Host orchestration of Sudoku annealing: a pool of puzzle slots, slices, limits, results.

Glossary: p slot (a puzzle's place in the batch arrays), q puzzle position in the stream, g chain
index in the batch, cpp chains per puzzle, slice = one call that advances every chain by up to
`budget` plateaus.

The pool keeps `slots` puzzles on the device (or the CPU cores) at once. After each slice it
reads one status row per puzzle (reduced on the device on CUDA: gpu_anneal.pool_status), fetches
the grids of the puzzles that are done (solved, out of trials or out of time), verifies and
reports them, and loads the next puzzles of the stream into the freed slots, so the hardware
stays busy while easy puzzles leave and new ones enter. On CUDA the next slice runs while the
host verifies and refills. A slice lasts about `slice_seconds`, and never more than half the
time the closest puzzle has left: its length in plateaus comes from the measured rate
(Slicer; on the CPU calibrated before the first slice, whose one plateau must fit the limit),
and a puzzle with less time left than one more round is stopped.

Chain i of the q-th puzzle of a run draws RNG stream first_chain + q * cpp + i whatever the slot,
batch size or backend, so any chain can be replayed alone and the same seed gives the same
trajectories. Ctrl-C (KeyboardInterrupt) reports every puzzle taken from the stream and not yet
handed out, once, and then raises InterruptedBatch: finished results as they are, puzzles in the
pool as they stand, a puzzle read but not started with no counts.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules as sa
from cpu_reference.sudoku.batch import (
    SudokuBatch,
    logic_fill,
    make_batch,
    run_slice_cpu,
)
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import Schedule, by_name
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import interrupts, validate
from gpu_anneal import pool_status as ps
from gpu_anneal.backends import cpu_threads, resolve_backend
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


class InterruptedBatch(KeyboardInterrupt):
    """Ctrl-C during a run; `results` holds every puzzle reported before and at the stop."""

    def __init__(self, results: list[SolveResult]):
        super().__init__("interrupted")
        self.results = results


NO_TRIAL_CAP = 2**62  # max_trials None: trials without end


def chain_trials(total: int, chains: int, i: int) -> int:
    """Trials chain i of a puzzle's `chains` may start when the puzzle may start `total`:
    its trials are dealt round-robin (cpu_reference.sudoku.rules_template.drive_chain)."""
    return total // chains + (1 if i < total % chains else 0)


def default_chains(backend: str, puzzles: int) -> int:
    """Chains per puzzle when none is asked, for a pool of `puzzles` slots: fill the CPU cores,
    or on CUDA the plan's share of a full wave (gpu_anneal.plan; 9x9, the current device)."""
    if backend == "cuda":
        from gpu_anneal import plan

        return plan.make_plan(3, batch=max(1, puzzles), host_seconds=0.0)["chains_per_puzzle"]
    return max(1, math.ceil(cpu_threads() / max(1, puzzles)))


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
    """
    used = resolve_backend(backend)
    lay = layout(order)
    move = sa.move_of(move, order)  # a move preset ("auto") names this order's move
    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    if chains is not None and chains < 1:
        raise InputError(f"chains = {chains}: must be at least 1")
    if slots is not None and slots < 1:
        raise InputError(f"batch = {slots}: must be at least 1")
    if max_trials is not None and max_trials < 1:
        raise InputError(f"max trials = {max_trials}: must be at least 1")
    if move not in sa.MOVE_NAMES:
        raise InputError(f"move {move!r}: expected one of {', '.join(sa.MOVE_NAMES)}")
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"time limit = {time_limit}: must be positive (None: no limit)")
    seed, slice_seconds = validate.seed(seed), validate.slice_seconds(slice_seconds)
    source = iter(puzzles)
    if used == "cuda":
        from gpu_anneal import plan

        ahead: list = []
        count = None
        if slots is None:
            most = plan.max_slots(order, move, chains, device)
            ahead = list(itertools.islice(source, most + 1))
            count = len(ahead) if len(ahead) <= most else None
            source = itertools.chain(ahead, source)
        chosen = plan.make_plan(
            order, move, puzzles=count, chains=chains, batch=slots, device=device,
            host_seconds=0.0, rate=0.0,
        )  # fmt: skip
        slots, cpp = chosen["slots"], chosen["chains_per_puzzle"]
    else:
        slots = slots or 1
        cpp = default_chains(used, slots) if chains is None else int(chains)
    if max_trials is not None:  # no chain without a trial: max_trials chains at most
        cpp = min(cpp, max_trials)
    trial_cap = NO_TRIAL_CAP if max_trials is None else max_trials  # over a puzzle's chains
    batch = make_batch(
        np.zeros((slots, lay.cells), np.uint8), order, sched, cpp, seed, trial_cap,
        move=sa.MOVE_NAMES[move],
    )  # fmt: skip
    runner = make_runner(batch, used, seed)
    report = dict(backend=used, seed=seed, move=move)
    pool = _Pool(batch, runner, source, first_chain, first_index, report, propagate)
    slicer = Slicer(sched.plateau, slice_seconds)
    try:
        pool.warm()  # compiles: time limits count annealing, not compilation
        if used == "cpu":
            calibrate(slicer, batch, time_limit)
        try:
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
        pool.stop_all("interrupted")
        raise InterruptedBatch(list(pool.outbox)) from None


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
    at most CALIBRATION_CHAINS chains on the first slot's puzzle (a trial start included).

    InputError when one plateau of every chain would take longer than the time limit: no
    slice could keep it."""
    chains = min(batch.chains, CALIBRATION_CHAINS)
    trial = make_batch(
        batch.given_vals[:1], batch.order, batch.schedule, chains, 0, move=batch.move
    )  # fmt: skip
    start = time.perf_counter()
    run_slice_cpu(trial, 1, stop_on_solved=False)
    seconds = time.perf_counter() - start
    slicer.measure(int(trial.ctr[:, sa.C_PROPOSALS].sum()), seconds, chains, seconds)
    one = slicer.predict(1, batch.chains)
    if time_limit is not None and one is not None and one > time_limit:
        raise InputError(
            f"chains = {batch.cpp:,} a puzzle: one plateau of all {batch.chains:,} chains takes "
            f"about {one:.1f} s on this CPU now, more than the time limit of {time_limit:g} s; "
            "use fewer chains or a longer limit"
        )


class _Pool:
    """Which puzzle sits in which slot, since when, and the loop that keeps the slots busy.

    One loop serves both runners. After each slice: the status rows say which puzzles are
    finished (or out of time: stopped); their grids are fetched; then, on a runner that
    overlaps, the next slice starts before the host verifies, reports and refills those slots
    (a refilled slot joins the slice after), otherwise the refill comes first.

    Every puzzle taken from the stream is, at any moment, in exactly one place: a slot
    (slot_q), or the outbox (its result made and not yet handed out), or handed out. A slot is
    marked taken before its puzzle is loaded and empty once its result is in the outbox; a
    result leaves the outbox only when the consumer has it. So a Ctrl-C, wherever it lands,
    finds each puzzle once: stop_all reports the slots the outbox does not already hold.
    """

    def __init__(self, batch, runner, source, first_chain, first_index, report, propagate=False):
        self.batch = batch
        self.runner = runner
        self.propagate = propagate
        self.source = source
        self.first_chain = first_chain
        self.first_index = first_index
        self.report = report  # backend, seed, move: what every result names
        self.next_q = 0
        P = batch.puzzles
        self.slot_q = [-1] * P
        self.slot_start: list[float | None] = [None] * P  # None: its chains have not run yet
        self.slot_cells: list[np.ndarray | None] = [None] * P  # each slot's puzzle as read
        self.outbox: list[SolveResult] = []  # results made and not yet handed out
        self.bounds = ps.bound_semantics(batch.solved)
        self.stats = np.zeros((P, ps.N_STATS), np.int64)
        self.seen = np.zeros(P, np.int64)  # proposals of each slot's puzzle at the last status

    def warm(self) -> None:
        """Compile every kernel, then fill every slot (before any clock starts)."""
        runner = self.runner
        runner.run(0)
        runner.fetch([0], runner.status())
        runner.fetched()
        for p in range(self.batch.puzzles):
            self.refill(p)
        self.stats = runner.status()
        self.round = time.perf_counter()

    def refill(self, p: int) -> None:
        """Load the stream's next puzzle into slot p (empty), or leave it empty when the stream
        ends. The slot names its puzzle before the load starts: a Ctrl-C during the load finds
        it there, not started."""
        self.slot_start[p] = None
        self.seen[p] = 0
        cells = next(self.source, None)
        if cells is None:
            self.runner.load(p, None, None, 0)
            return
        if isinstance(cells, tuple):
            q, cells = cells
            q = validate.integer("puzzle position", q, 0)  # -1 would mark the slot empty
        else:
            q = self.next_q
        self.next_q = q + 1
        cells = validate.sudoku_array(cells, self.batch.order)[0][0]  # 262 refused, never 6
        self.slot_cells[p] = cells
        self.slot_q[p] = q
        masks = None
        if self.propagate:
            cells, masks = logic_fill(cells, self.batch.order)
        self.runner.load(p, cells, masks, self.first_chain + q * self.batch.cpp)

    def drive(self, time_limit: float | None, slicer: Slicer):
        """Run slices until the stream is done; yield each puzzle's result as it finishes."""
        runner = self.runner
        while any(q >= 0 for q in self.slot_q):
            interrupts.check()  # a Ctrl-C that a compilation swallowed
            now = time.perf_counter()
            done = self._finished(now, time_limit, slicer)
            if done:
                runner.fetch(done, self.stats)
            left = [p for p, q in enumerate(self.slot_q) if q >= 0 and p not in done]
            launch = None
            if runner.overlaps and left:
                launch = self._launch(slicer, time_limit)
            if done:
                grids = runner.fetched()
                for j, p in enumerate(done):
                    self._post(p, grids[j], now)
                yield from self.hand_out()
                for p in done:
                    self.refill(p)
            if launch is None:
                if not any(q >= 0 for q in self.slot_q):
                    return
                launch = self._launch(slicer, time_limit)
            self._measure(slicer, *launch)

    def _post(self, p: int, grid: np.ndarray, now: float, error: str | None = None) -> None:
        """Put the result of slot p's puzzle in the outbox, then mark the slot empty."""
        result = self.result(p, grid, now)
        if error is not None:
            result.error = error
        self.outbox.append(result)
        self.slot_q[p] = -1

    def hand_out(self) -> Iterator[SolveResult]:
        """Yield the outbox's results, each leaving it once the consumer has it (a Ctrl-C at
        the yield, thrown in or raised when the consumer asks for the next, comes after)."""
        while self.outbox:
            result = self.outbox[0]
            try:
                yield result
            finally:
                del self.outbox[0]

    def _finished(self, now: float, time_limit: float | None, slicer: Slicer) -> list[int]:
        """Slots whose puzzle is over, or out of time (those are stopped)."""
        running = int(self.stats[:, ps.S_RUNNING].sum())
        one = slicer.predict(1, running)
        done = []
        for p, q in enumerate(self.slot_q):
            start = self.slot_start[p]
            if q < 0 or start is None:
                continue
            over = ps.is_finished(self.stats[p], self.bounds)
            if not over and time_limit is not None:
                left = time_limit - (now - start)
                # out of time, or too little left for one more round of one plateau
                if left <= 0 or (one is not None and left < one):
                    self.runner.stop(p)
                    over = True
            if over:
                done.append(p)
        return done

    def _launch(self, slicer: Slicer, time_limit: float | None):
        """Start a slice sized to the least time a puzzle has left.

        Returns (running chains, seconds the run call took: the slice itself where run() waits
        for it)."""
        now = time.perf_counter()
        active = [p for p, q in enumerate(self.slot_q) if q >= 0]
        running = sum(
            self.batch.cpp if self.slot_start[p] is None else int(self.stats[p, ps.S_RUNNING])
            for p in active
        )
        least = None
        if time_limit is not None and active:
            least = min(
                time_limit - (0.0 if self.slot_start[p] is None else now - self.slot_start[p])
                for p in active
            )
        budget = slicer.budget(running, least)
        for p in active:
            if self.slot_start[p] is None:
                self.slot_start[p] = now
        self.runner.run(budget)
        return running, time.perf_counter() - now

    def _measure(self, slicer: Slicer, running: int, run_seconds: float) -> None:
        """Wait for the slice's status rows; feed the slicer what the round did and took."""
        self.stats = self.runner.status()
        now = time.perf_counter()
        kernel = getattr(self.runner, "last_slice_seconds", lambda: None)()
        proposals = self.stats[:, ps.S_PROPOSALS]
        done = int((proposals - self.seen).clip(min=0).sum())
        slicer.measure(done, run_seconds if kernel is None else kernel, running, now - self.round)
        self.seen = proposals.copy()
        self.round = now

    def result(self, p: int, grid: np.ndarray, now: float) -> SolveResult:
        """The result of slot p's puzzle (its status row and reported grid)."""
        q, report = self.slot_q[p], self.report
        start = self.slot_start[p]
        result = _result(
            self.batch, p, self.stats[p], grid, 0.0 if start is None else now - start,
            report["backend"], self.first_index + q, report["seed"],
            self.first_chain + q * self.batch.cpp,
        )  # fmt: skip
        result.move = report["move"]
        return result

    def _not_started(self, p: int, error: str) -> SolveResult:
        """The result of slot p's puzzle when its chains never ran: the puzzle as read, no
        counts (the slot's arrays may still hold the puzzle before it)."""
        cells, report, b = self.slot_cells[p], self.report, self.batch
        return SolveResult(
            index=self.first_index + self.slot_q[p], order=b.order, solved=False,
            verified=False, solution=None, best=cells.copy(), cost=-1, trials=0, proposals=0,
            accepted=0, seconds=0.0, backend=report["backend"], chains=b.cpp,
            schedule=b.schedule.name, move=report["move"], seed=report["seed"], error=error,
            extra={"chain_trials": 0, "chain_proposals": 0},
        )  # fmt: skip

    def stop_all(self, error: str) -> None:
        """Move every puzzle still in a slot (and not in the outbox already) to the outbox, as
        it stands, with `error` set."""
        posted = {r.index for r in self.outbox}
        active = [
            p for p, q in enumerate(self.slot_q)
            if q >= 0 and self.first_index + q not in posted
        ]  # fmt: skip
        started = [p for p in active if self.slot_start[p] is not None]
        grids = np.zeros((len(started), self.batch.given_vals.shape[1]), np.uint8)
        if started:
            try:
                stats = self.runner.status()
                self.runner.fetch(started, stats)
                grids = self.runner.fetched()
                self.stats = stats
            except Exception:  # the device may be gone: the last rows known stand
                pass
        now = time.perf_counter()
        for p in active:
            if self.slot_start[p] is None:
                self.outbox.append(self._not_started(p, error))
                self.slot_q[p] = -1
            else:
                self._post(p, grids[started.index(p)], now, error)


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


def _result(
    batch: SudokuBatch,
    p: int,
    row: np.ndarray,
    grid: np.ndarray,
    seconds: float,
    backend: str,
    index: int,
    seed: int,
    first_chain_of_puzzle: int,
) -> SolveResult:
    """A SolveResult from slot p's status row (gpu_anneal.pool_status) and reported grid.

    A puzzle loaded complete (deduction filled every cell) runs no chain: its grid is the loaded
    one, its counts 0 and its chain fields None (extra["no_chain"]), on every backend alike."""
    no_chain = bool(np.all(batch.given_vals[p]))
    solved_any = no_chain or bool(row[ps.S_SOLVED] > 0)
    pick = int(row[ps.S_PICK])
    grid = np.array(grid[: layout(batch.order).cells], dtype=np.uint8)
    if no_chain:
        grid = batch.given_vals[p].copy()
    cost = int(row[ps.S_PICK_COST]) if row[ps.S_PICK_TRIALS] > 0 else -1
    error = None
    verified = False
    if solved_any:
        error = verify_solution(grid, batch.order, batch.given_vals[p])
        verified = error is None
    return SolveResult(
        index=index,
        order=batch.order,
        solved=solved_any and verified,
        verified=verified,
        solution=grid if verified else None,
        best=grid,
        cost=0 if no_chain and verified else cost,
        # chains that found the grid complete (deduction first solved it) made no proposal and
        # ran no annealing trial: 0, not one trial a chain (39,424 on a card)
        trials=int(row[ps.S_TRIALS]) if row[ps.S_PROPOSALS] > 0 and not no_chain else 0,
        proposals=0 if no_chain else int(row[ps.S_PROPOSALS]),
        accepted=0 if no_chain else int(row[ps.S_ACCEPTED]),
        seconds=seconds,
        backend=backend,
        chains=batch.cpp,
        schedule=batch.schedule.name,
        solving_chain=first_chain_of_puzzle + pick if solved_any and not no_chain else None,
        seed=seed,
        error=error,
        extra={
            "chain_trials": None if no_chain else int(row[ps.S_PICK_TRIALS]),
            "chain_proposals": None if no_chain else int(row[ps.S_PICK_PROPOSALS]),
            "no_chain": no_chain,
        },
    )


def _host_result(batch: SudokuBatch, p: int, seconds: float, index: int, seed: int, first: int):
    """A SolveResult of slot p from the host arrays (CPU batches)."""
    row = ps.puzzle_status(batch.ctr[batch.chain_slice(p)], batch.cpp)[0]
    grid = batch.best_vals[p * batch.cpp + int(row[ps.S_PICK])]
    return _result(batch, p, row, grid, seconds, "cpu", index, seed, first)


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
    from cpu_reference.sudoku.batch import load_puzzle

    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    trial_cap = NO_TRIAL_CAP
    if max_trials is not None:  # the replayed chain's share, the only chain of its batch
        trial_cap = chain_trials(max_trials, chains, chain % chains)
    cells, masks = np.asarray(puzzle, np.uint8), None
    if propagate:
        cells, masks = logic_fill(cells, order)
    batch = make_batch(
        cells[None], order, sched, 1, seed, trial_cap, chain, sa.move_code(move, order)
    )
    if masks is not None:  # the candidate masks the pool loads with a propagated puzzle
        load_puzzle(batch, 0, cells, batch.rng[:1, :2].copy(), masks)
    start = time.perf_counter()
    budget = 64
    while batch.ctr[0, sa.C_STATUS] == sa.RUNNING:
        run_slice_cpu(batch, budget, stop_on_solved=False)
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            break
        budget = min(budget * 2, 1 << 20)
    result = _host_result(batch, 0, time.perf_counter() - start, 0, seed, chain)
    result.chains = chains
    result.move = move
    return result
