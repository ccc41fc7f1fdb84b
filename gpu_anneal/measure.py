"""Engine measurements: Sirdey proposals per second on a grid that never solves."""

from __future__ import annotations

import time

import numba
import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sudoku.batch import make_batch
from cpu_reference.sudoku.exact import solve_many
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.rules import C_PROPOSALS, move_code
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal import validate
from gpu_anneal.backends import cpu_threads, resolve_backend
from gpu_anneal.runners import make_runner


def never_solving_puzzle(order: int) -> np.ndarray:
    """A valid grid's every third cell as givens, with one given changed to clash in its row.

    About a third of the cells are given, as in the native reference loop, and cost 0 is out
    of reach, so every chain keeps moving for the whole measurement.
    """
    lay = layout(order)
    n, N = order, lay.N
    r, k = np.divmod(np.arange(lay.cells), N)
    full = ((r * n + r // n + k) % N + 1).astype(np.uint8)
    puzzle = np.where(np.arange(lay.cells) % 3 == 0, full, 0).astype(np.uint8)
    puzzle[3] = puzzle[0]  # cells 0 and 3 share row 0: a clash no move can undo
    return puzzle


FIRST_BUDGET = 64  # plateaus of a measurement's first round, where a twentieth of it holds them


def timed_plateau(runner) -> float:
    """Seconds of one plateau of every chain on `runner` (after its warm-up)."""
    start = time.perf_counter()
    runner.run(1)
    runner.sync()
    return time.perf_counter() - start


def first_budget(one: float, seconds: float) -> int:
    """Plateaus of a measurement's first round: FIRST_BUDGET, fewer where a plateau of every
    chain takes `one` s and FIRST_BUDGET of them would outlast a twentieth of `seconds` (the
    rounds double from there while they are short), at least 1."""
    if one <= 0:
        return FIRST_BUDGET
    return int(max(1, min(FIRST_BUDGET, seconds / 20 / one)))


# the native loop's regime: trials of 20,000 plateaus from T0 = e_P, no stall rule
NATIVE_REGIME = "sirdey-course:stall=0,max_plateaus=20000"


def measure_throughput(
    order: int,
    seconds: float,
    backend: str = "cpu",
    chains: int | None = None,
    move: str = "sirdey",
    schedule: str | None = None,
    on_round=None,
) -> dict:
    """Proposals per second of a move (Sirdey's by default) over `chains` chains, on a grid
    that never solves, under `schedule` (default: the native loop's, hot: most moves taken).
    `on_round(elapsed)`, when given, is called after each round with the seconds measured."""
    order = validate.order(order)
    seconds = validate.seconds("--seconds", seconds)
    chains = validate.chains(chains, layout(order).cells)
    used = resolve_backend(backend)
    threads = cpu_threads()
    count = chains or (8 * threads if used == "cpu" else 65536)
    sched = by_name(schedule or NATIVE_REGIME, order)
    code = move_code(move, order)
    batch = make_batch(never_solving_puzzle(order)[None], order, sched, count, seed=1, move=code)
    runner = make_runner(batch, used)
    runner.run(1)  # compile and warm up
    runner.sync()
    budget = first_budget(timed_plateau(runner), seconds)
    before = int(batch.ctr[:, C_PROPOSALS].sum())
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        runner.run(budget)
        runner.sync()
        elapsed = time.perf_counter() - start
        if on_round is not None:
            on_round(elapsed)
        if elapsed < seconds / 20:
            budget *= 2
    done = int(batch.ctr[:, C_PROPOSALS].sum()) - before
    return {
        "proposals_per_second": done / elapsed,
        "proposals": done,
        "seconds": elapsed,
        "order": order,
        "backend": used,
        "chains": count,
        "threads": threads if used == "cpu" else None,
        "move": move,
    }


EXACT_PIECE = 16384  # puzzles solved between two looks at Ctrl-C in measure_exact


def measure_exact(
    puzzles: np.ndarray,
    order: int,
    limit: int = 2,
    threads: int = 1,
    repeats: int = 3,
    rules: str = "fast",
    on_pass=None,
) -> dict:
    """The exact solver's puzzles per second on uint8[P, cells] puzzles over `threads` threads.

    Compilation is excluded (a warm-up solve first); the rate is the best of `repeats` passes over
    all the puzzles. `counts` is how many puzzles got each solution count ("-1" for none here).
    `on_pass()`, when given, is called after each pass. A pass is solved EXACT_PIECE puzzles at a
    time: Ctrl-C (or SIGTERM) ends the measuring within a piece, and the result is that of the
    passes done, or of the puzzles done when none is, with `interrupted` true (the interrupt
    is raised when nothing was measured).
    """
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise InputError(
            f"threads: {threads} is outside 1..{numba.config.NUMBA_NUM_THREADS} (numba's threads)"
        )
    if repeats < 1:
        raise InputError(f"repeats: {repeats} must be at least 1")
    if len(puzzles) == 0:
        raise InputError("puzzles: none to solve")
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    seconds: list[float] = []
    counts = np.zeros(0, np.int64)
    done, spent, interrupted = 0, 0.0, False
    try:
        solve_many(puzzles[:2], order, limit, rules)  # compile and warm up
        for _ in range(repeats):
            pieces, done, spent = [], 0, 0.0
            for lo in range(0, len(puzzles), EXACT_PIECE):
                start = time.perf_counter()
                piece, _ = solve_many(puzzles[lo : lo + EXACT_PIECE], order, limit, rules)
                spent += time.perf_counter() - start
                pieces.append(piece)
                done += len(piece)
            seconds.append(spent)
            counts = np.concatenate(pieces)
            if on_pass is not None:
                on_pass()
    except KeyboardInterrupt:
        if not seconds and done == 0:
            raise
        interrupted = True
        if not seconds:  # the first pass, part way: its puzzles done
            counts = np.concatenate(pieces)
            seconds.append(spent)
    finally:
        numba.set_num_threads(before)
    measured = len(counts)  # every puzzle, or those of the first pass done before a stop
    values, tally = np.unique(counts, return_counts=True)
    return {
        "puzzles": int(measured),
        "puzzles_per_second": measured / min(seconds),
        "counts": {str(int(v)): int(t) for v, t in zip(values, tally, strict=True)},
        "limit": int(limit),
        "threads": int(threads),
        "order": int(order),
        "rules": rules,
        "best_seconds": min(seconds),
        "all_seconds": seconds,
        "interrupted": interrupted,
    }
