"""Host orchestration of Sudoku annealing: batches, slices, limits, verification, results.

Glossary: p puzzle index in a batch, g chain index, cpp chains per puzzle, slice = one call that
advances every chain by up to `budget` plateaus.

The same loop drives both backends: it launches a slice, reads back the per-chain counters and
per-puzzle solved flags, verifies and reports each puzzle as soon as it is done, grows or shrinks
the slice so that one lasts about `slice_seconds`, and stops puzzles that pass their time limit.
Ctrl-C (KeyboardInterrupt) ends the loop with every puzzle reported as it stands.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from cpu_reference import sudoku_anneal as sa
from cpu_reference.errors import InputError
from cpu_reference.schedules import Schedule, by_name
from cpu_reference.sudoku_batch import SudokuBatch, make_batch, run_slice_cpu
from cpu_reference.sudoku_layout import layout
from cpu_reference.sudoku_verify import verify_solution
from gpu_anneal.backends import cpu_threads, resolve_backend

HOST_STOPPED = 2  # solved[p] value the host writes to stop a puzzle's chains


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
    solving_chain: int | None = None
    seed: int = 0
    error: str | None = None
    extra: dict = field(default_factory=dict)


class CpuRunner:
    """Runs a batch's slices on every CPU core (numba prange over chains)."""

    name = "cpu"

    def __init__(self, batch: SudokuBatch):
        self.batch = batch

    def run(self, budget: int) -> None:
        """Advance every chain by up to `budget` plateaus."""
        run_slice_cpu(self.batch, budget, stop_on_solved=True)

    def sync(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def fetch_grids(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def stop_puzzle(self, p: int) -> None:
        """Ask the chains of puzzle p to stop at their next plateau."""
        if self.batch.solved[p] == 0:
            self.batch.solved[p] = HOST_STOPPED


def make_runner(batch: SudokuBatch, backend: str):
    """The runner of a resolved backend name ('cpu' or 'cuda')."""
    if backend == "cuda":
        from gpu_anneal.cuda_sudoku import CudaRunner

        return CudaRunner(batch)
    return CpuRunner(batch)


def default_chains(backend: str, puzzles: int) -> int:
    """Chains per puzzle when none is asked: fill the cores, or 1024 per puzzle on a GPU."""
    if backend == "cuda":
        return 1024
    return max(1, math.ceil(cpu_threads() / max(1, puzzles)))


def solve_batch(
    puzzles: np.ndarray,
    order: int,
    *,
    schedule: Schedule | str = "sirdey-course",
    chains: int | None = None,
    seed: int = 0,
    time_limit: float | None = 60.0,
    max_trials: int | None = None,
    backend: str = "auto",
    first_index: int = 0,
    first_chain: int = 0,
    on_result: Callable[[SolveResult], None] | None = None,
    slice_seconds: float = 0.2,
    move: str = "sirdey",
) -> list[SolveResult]:
    """Anneal every puzzle of `puzzles` (uint8[P, cells]) at once; results in puzzle order.

    Each puzzle gets `chains` chains (restart strategy: each chain starts a new trial when one
    fails) and stops when one of them reaches cost 0, after `max_trials` trials over its chains,
    or after `time_limit` seconds. A solution is reported solved only if the independent
    verifier accepts it.
    """
    used = resolve_backend(backend)
    lay = layout(order)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, lay.cells)
    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    cpp = default_chains(used, puzzles.shape[0]) if chains is None else int(chains)
    if cpp < 1:
        raise InputError(f"chains = {cpp}: must be at least 1")
    if max_trials is not None and max_trials < 1:
        raise InputError(f"max trials = {max_trials}: must be at least 1")
    trial_cap = 2**62 if max_trials is None else math.ceil(max_trials / cpp)
    if used == "cuda":
        from gpu_anneal.cuda_sudoku import check_order, max_chains_on_device

        check_order(order)
        per_launch = max(1, max_chains_on_device(order) // cpp)
        if puzzles.shape[0] > per_launch:  # more chains than device memory holds: split
            results = []
            for lo in range(0, puzzles.shape[0], per_launch):
                results += solve_batch(
                    puzzles[lo : lo + per_launch], order, schedule=sched, chains=cpp, seed=seed,
                    time_limit=time_limit, max_trials=max_trials, backend="cuda",
                    first_index=first_index + lo, first_chain=first_chain + lo * cpp,
                    on_result=on_result, slice_seconds=slice_seconds, move=move,
                )  # fmt: skip
            return results
    if move not in sa.MOVE_NAMES:
        raise InputError(f"move {move!r}: expected one of {', '.join(sa.MOVE_NAMES)}")
    batch = make_batch(
        puzzles, order, sched, cpp, seed, trial_cap, first_chain, sa.MOVE_NAMES[move]
    )
    runner = make_runner(batch, used)
    results: list[SolveResult | None] = [None] * batch.puzzles
    start = time.perf_counter()
    budget = 16
    try:
        while any(r is None for r in results):
            t0 = time.perf_counter()
            runner.run(budget)
            runner.sync()
            elapsed = time.perf_counter() - t0
            now = time.perf_counter() - start
            finished = []
            for p in range(batch.puzzles):
                if results[p] is not None:
                    continue
                status = batch.ctr[batch.chain_slice(p), sa.C_STATUS]
                done = (status == sa.SOLVED).any() or (status == sa.EXHAUSTED).all()
                if done or (time_limit is not None and now >= time_limit):
                    if not done:
                        runner.stop_puzzle(p)
                    finished.append(p)
            if finished:
                runner.fetch_grids()
            for p in finished:
                results[p] = _result(batch, p, now, used, first_index, seed, first_chain)
                if on_result is not None:
                    on_result(results[p])
            if elapsed < slice_seconds / 2:
                budget = min(budget * 2, 1 << 24)
            elif elapsed > slice_seconds * 2 and budget > 1:
                budget //= 2
    except KeyboardInterrupt:
        _finish_all(runner, results, start, "interrupted", on_result, first_index, first_chain)
        raise InterruptedBatch(results) from None
    except Exception as exc:
        if used != "cuda":
            raise
        # a device fault: report what is done, every other puzzle unsolved with the error named
        message = f"CUDA error: {type(exc).__name__}: {exc}".splitlines()[0]
        _finish_all(runner, results, start, message, on_result, first_index, first_chain)
    return results


def _finish_all(runner, results, start, error, on_result, first_index, first_chain) -> None:
    """Report every unfinished puzzle as it stands, with `error` set."""
    batch = runner.batch
    now = time.perf_counter() - start
    try:
        runner.sync()
        runner.fetch_grids()
    except Exception:  # the device may be gone: the host copies are the last known state
        pass
    for p in range(batch.puzzles):
        if results[p] is None:
            results[p] = _result(batch, p, now, runner.name, first_index, batch.seed, first_chain)
            results[p].error = error
            if on_result is not None:
                on_result(results[p])


class InterruptedBatch(KeyboardInterrupt):
    """Ctrl-C during a batch; `results` holds every puzzle as it stood."""

    def __init__(self, results: list[SolveResult]):
        super().__init__("interrupted")
        self.results = results


def _result(
    batch: SudokuBatch,
    p: int,
    seconds: float,
    backend: str,
    first_index: int,
    seed: int,
    first_chain: int,
) -> SolveResult:
    lay = layout(batch.order)
    chains = batch.chain_slice(p)
    ctr = batch.ctr[chains]
    best_rows = batch.best_vals[chains, : lay.cells]
    solved_chains = np.flatnonzero(ctr[:, sa.C_STATUS] == sa.SOLVED)
    if solved_chains.size:
        pick = int(solved_chains[0])
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
        index=first_index + p,
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
        solving_chain=first_chain + chains.start + pick if solved_chains.size else None,
        seed=seed,
        error=error,
        extra={
            "chain_trials": int(ctr[pick, sa.C_TRIALS]),
            "chain_proposals": int(ctr[pick, sa.C_PROPOSALS]),
        },
    )


def solve_one(puzzle: np.ndarray, order: int, **kwargs) -> SolveResult:
    """Anneal a single puzzle (see solve_batch for the keyword arguments)."""
    return solve_batch(np.asarray(puzzle)[None], order, **kwargs)[0]


def batched(items: Iterable, size: int) -> Iterable[list]:
    """Consecutive lists of at most `size` items."""
    chunk: list = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


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
) -> SolveResult:
    """Re-run chain `chain` of a run (any backend) alone on the CPU, from the same seed.

    `chains` is the run's chains per puzzle (it sets the per-chain trial cap). A chain that
    solved in the run solves here after the same trials and proposals, at the same grid.
    """
    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    trial_cap = 2**62 if max_trials is None else math.ceil(max_trials / chains)
    batch = make_batch(np.asarray(puzzle)[None], order, sched, 1, seed, trial_cap, chain)
    start = time.perf_counter()
    budget = 64
    while batch.ctr[0, sa.C_STATUS] == sa.RUNNING:
        run_slice_cpu(batch, budget, stop_on_solved=False)
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            break
        budget = min(budget * 2, 1 << 20)
    result = _result(batch, 0, time.perf_counter() - start, "cpu", 0, seed, chain)
    result.chains = chains
    return result
