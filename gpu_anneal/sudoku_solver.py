"""Host orchestration of Sudoku annealing: a pool of puzzle slots, slices, limits, results.

Glossary: p slot (a puzzle's place in the batch arrays), q puzzle position in the stream, g chain
index in the batch, cpp chains per puzzle, slice = one call that advances every chain by up to
`budget` plateaus.

The pool keeps `slots` puzzles on the device (or the CPU cores) at once. After each slice it
reads back the per-chain counters, verifies and reports every puzzle that is done (solved, out
of trials or out of time), and loads the next puzzle of the stream into the freed slot, so the
hardware stays busy while easy puzzles leave and new ones enter. The slice grows or shrinks so
that one lasts about `slice_seconds`.

Chain i of the q-th puzzle of a run draws RNG stream first_chain + q * cpp + i whatever the slot,
batch size or backend, so any chain can be replayed alone and the same seed gives the same
trajectories. Ctrl-C (KeyboardInterrupt) reports every puzzle in the pool as it stands and then
raises InterruptedBatch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from cpu_reference.anneal.rng import StreamCursor
from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules as sa
from cpu_reference.sudoku.batch import (
    SudokuBatch,
    load_puzzle,
    logic_fill,
    make_batch,
    run_slice_cpu,
)
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import Schedule, by_name
from cpu_reference.sudoku.verify import verify_solution
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


def default_chains(backend: str, puzzles: int) -> int:
    """Chains per puzzle when none is asked: fill the cores, or 1024 per puzzle on a GPU."""
    if backend == "cuda":
        return 1024
    return max(1, math.ceil(cpu_threads() / max(1, puzzles)))


def solve_stream(
    puzzles: Iterable[np.ndarray | tuple[int, np.ndarray]],
    order: int,
    *,
    slots: int = 1,
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
) -> Iterator[SolveResult]:
    """Anneal a stream of puzzles (uint8[cells] each), `slots` at a time; yield as they finish.

    An item may also be (q, cells): q then stands for the puzzle's position (its index is
    first_index + q and its chains first_chain + q * cpp + i), so skipped puzzles keep the
    numbering of the full stream.

    Each puzzle gets `chains` chains (restart strategy: a chain starts a new trial when one
    fails) and stops when one of them reaches cost 0, after `max_trials` trials over its chains,
    or `time_limit` seconds after it entered the pool. A solution is reported solved only if the
    independent verifier accepts it. Results come in completion order; `index` is first_index
    plus the puzzle's position in the stream. With `propagate`, the exact solver's deduction
    rules first fix every digit they can and narrow the candidates (a named hybrid, off by
    default: the published method anneals the puzzle as given).
    """
    used = resolve_backend(backend)
    lay = layout(order)
    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    cpp = default_chains(used, slots) if chains is None else int(chains)
    if cpp < 1:
        raise InputError(f"chains = {cpp}: must be at least 1")
    if slots < 1:
        raise InputError(f"batch = {slots}: must be at least 1")
    if max_trials is not None and max_trials < 1:
        raise InputError(f"max trials = {max_trials}: must be at least 1")
    if move not in sa.MOVE_NAMES:
        raise InputError(f"move {move!r}: expected one of {', '.join(sa.MOVE_NAMES)}")
    if used == "cuda":
        from gpu_anneal.kernels.sudoku import check_order, max_chains_on_device

        check_order(order)
        slots = max(1, min(slots, max_chains_on_device(order) // cpp))  # split what won't fit
    trial_cap = 2**62 if max_trials is None else math.ceil(max_trials / cpp)
    source = iter(puzzles)
    cursor = StreamCursor(seed)
    batch = make_batch(
        np.zeros((slots, lay.cells), np.uint8), order, sched, cpp, seed, trial_cap,
        move=sa.MOVE_NAMES[move],
    )  # fmt: skip
    pool = _Pool(batch, source, cursor, first_chain, first_index, propagate)
    pool.fill()
    runner = make_runner(batch, used)  # uploads the filled pool
    runner.run(0)  # compiles on first use: time limits count annealing, not compilation
    pool.restart_clocks()
    budget = 16
    try:
        while pool.active():
            t0 = time.perf_counter()
            runner.run(budget)
            runner.sync()
            elapsed = time.perf_counter() - t0
            done = pool.finished(runner, time_limit)
            if done:
                runner.fetch_grids()
                for p in done:
                    yield pool.report(p, used, seed, move)
                    pool.refill(p, runner)
            if elapsed < slice_seconds / 2:
                budget = min(budget * 2, 1 << 24)
            elif elapsed > slice_seconds * 2 and budget > 1:
                budget //= 2
    except KeyboardInterrupt:
        stopped = list(pool.report_all(runner, used, seed, move, "interrupted"))
        raise InterruptedBatch(stopped) from None
    except Exception as exc:
        if used != "cuda":
            raise
        # a device fault: what was reported stays; every puzzle in the pool is reported
        # unsolved with the error named
        message = f"CUDA error: {type(exc).__name__}: {exc}".splitlines()[0]
        yield from pool.report_all(runner, used, seed, move, message)


class _Pool:
    """Which puzzle sits in which slot, since when, and where the stream stands."""

    def __init__(self, batch, source, cursor, first_chain, first_index, propagate=False):
        self.batch = batch
        self.propagate = propagate
        self.source = source
        self.cursor = cursor
        self.first_chain = first_chain
        self.first_index = first_index
        self.next_q = 0
        self.slot_q = [-1] * batch.puzzles
        self.slot_start = [0.0] * batch.puzzles

    def fill(self) -> None:
        """Load the first puzzles into every slot (before any runner holds the arrays)."""
        for p in range(self.batch.puzzles):
            self.refill(p, None)

    def refill(self, p: int, runner) -> None:
        """Load the stream's next puzzle into slot p, or leave it empty when the stream ends."""
        cells = next(self.source, None)
        cpp = self.batch.cpp
        if cells is None:
            load_puzzle(self.batch, p, None, np.zeros((cpp, 2), np.uint64))
            self.slot_q[p] = -1
        else:
            if isinstance(cells, tuple):
                q, cells = cells
            else:
                q = self.next_q
            self.next_q = q + 1
            states = self.cursor.states(self.first_chain + q * cpp, cpp)
            cells = np.asarray(cells, np.uint8)
            masks = None
            if self.propagate:
                cells, masks = logic_fill(cells, self.batch.order)
            load_puzzle(self.batch, p, cells, states, masks)
            self.slot_q[p] = q
            self.slot_start[p] = time.perf_counter()
        if runner is not None:
            runner.load_slot(p)

    def restart_clocks(self) -> None:
        """Every puzzle's time starts now."""
        now = time.perf_counter()
        self.slot_start = [now] * len(self.slot_start)

    def active(self) -> bool:
        """Whether any slot still holds a puzzle."""
        return any(q >= 0 for q in self.slot_q)

    def finished(self, runner, time_limit: float | None) -> list[int]:
        """Slots whose puzzle is solved, out of trials, or out of time (those are stopped)."""
        now = time.perf_counter()
        done = []
        for p, q in enumerate(self.slot_q):
            if q < 0:
                continue
            status = self.batch.ctr[self.batch.chain_slice(p), sa.C_STATUS]
            over = not (status == sa.RUNNING).any()  # solvers and the chains run up to them
            if over or (time_limit is not None and now - self.slot_start[p] >= time_limit):
                if not over:
                    runner.stop_puzzle(p)
                done.append(p)
        return done

    def report(self, p: int, backend: str, seed: int, move: str) -> SolveResult:
        """The result of slot p's puzzle."""
        q = self.slot_q[p]
        seconds = time.perf_counter() - self.slot_start[p]
        result = _result(
            self.batch, p, seconds, backend, self.first_index + q, seed,
            self.first_chain + q * self.batch.cpp,
        )  # fmt: skip
        result.move = move
        return result

    def report_all(self, runner, backend, seed, move, error) -> Iterator[SolveResult]:
        """Every puzzle still in the pool, as it stands, with `error` set."""
        try:
            runner.sync()
            runner.fetch_grids()
        except Exception:  # the device may be gone: the host copies are the last known state
            pass
        for p, q in enumerate(self.slot_q):
            if q >= 0:
                result = self.report(p, backend, seed, move)
                result.error = error
                self.slot_q[p] = -1
                yield result


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
    except InterruptedBatch as stop:
        for result in stop.results:
            results[result.index - first] = result
            if on_result is not None:
                on_result(result)
        raise InterruptedBatch([r for r in results if r is not None]) from None
    return results


def _result(
    batch: SudokuBatch,
    p: int,
    seconds: float,
    backend: str,
    index: int,
    seed: int,
    first_chain_of_puzzle: int,
) -> SolveResult:
    lay = layout(batch.order)
    chains = batch.chain_slice(p)
    ctr = batch.ctr[chains]
    best_rows = batch.best_vals[chains, : lay.cells]
    solved_chains = np.flatnonzero(ctr[:, sa.C_STATUS] == sa.SOLVED)
    if solved_chains.size:
        # the deterministic winner: fewest proposals, ties to the lowest chain index
        pick = int(solved_chains[np.argmin(ctr[solved_chains, sa.C_PROPOSALS])])
    else:
        pick = int(np.argmin(ctr[:, sa.C_BEST_VALS_COST]))
    grid = best_rows[pick].copy()
    cost = int(ctr[pick, sa.C_BEST_VALS_COST]) if ctr[pick, sa.C_TRIALS] > 0 else -1
    puzzle = batch.given_vals[p]
    error = None
    verified = False
    if solved_chains.size:
        error = verify_solution(grid, batch.order, puzzle)
        verified = error is None
    return SolveResult(
        index=index,
        order=batch.order,
        solved=bool(solved_chains.size) and verified,
        verified=verified,
        solution=grid if verified else None,
        best=grid,
        cost=cost,
        trials=int(ctr[:, sa.C_TRIALS].sum()),
        proposals=int(ctr[:, sa.C_PROPOSALS].sum()),
        accepted=int(ctr[:, sa.C_ACCEPTED].sum()),
        seconds=seconds,
        backend=backend,
        chains=batch.cpp,
        schedule=batch.schedule.name,
        solving_chain=first_chain_of_puzzle + pick if solved_chains.size else None,
        seed=seed,
        error=error,
        extra={
            "chain_trials": int(ctr[pick, sa.C_TRIALS]),
            "chain_proposals": int(ctr[pick, sa.C_PROPOSALS]),
        },
    )


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

    `chains` is the run's chains per puzzle (it sets the per-chain trial cap). A chain that
    solved in the run solves here after the same trials and proposals, at the same grid.
    `propagate` as in the run: the chain then anneals the propagated puzzle, as the pool did.
    """
    from cpu_reference.sudoku.batch import load_puzzle

    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    trial_cap = 2**62 if max_trials is None else math.ceil(max_trials / chains)
    cells, masks = np.asarray(puzzle, np.uint8), None
    if propagate:
        cells, masks = logic_fill(cells, order)
    batch = make_batch(cells[None], order, sched, 1, seed, trial_cap, chain, sa.MOVE_NAMES[move])
    if masks is not None:  # the candidate masks the pool loads with a propagated puzzle
        load_puzzle(batch, 0, cells, batch.rng[:1, :2].copy(), masks)
    start = time.perf_counter()
    budget = 64
    while batch.ctr[0, sa.C_STATUS] == sa.RUNNING:
        run_slice_cpu(batch, budget, stop_on_solved=False)
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            break
        budget = min(budget * 2, 1 << 20)
    result = _result(batch, 0, time.perf_counter() - start, "cpu", 0, seed, chain)
    result.chains = chains
    result.move = move
    return result
