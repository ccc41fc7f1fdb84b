"""`gpu-anneal bench throughput`: Sirdey proposals per second, on a grid that never solves."""

from __future__ import annotations

import json
import time

import numpy as np

from cpu_reference import sudoku_anneal as sa
from cpu_reference.schedules import by_name
from cpu_reference.sudoku_batch import make_batch
from cpu_reference.sudoku_layout import layout
from gpu_anneal.backends import cpu_threads, resolve_backend
from gpu_anneal.sudoku_solver import make_runner


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


def measure_throughput(
    order: int, seconds: float, backend: str = "cpu", chains: int | None = None
) -> dict:
    """Proposals per second of the Sirdey move over `chains` chains for about `seconds`."""
    used = resolve_backend(backend)
    threads = cpu_threads()
    count = chains or (8 * threads if used == "cpu" else 65536)
    sched = by_name("sirdey-course", order, stall=0)
    batch = make_batch(never_solving_puzzle(order)[None], order, sched, count, seed=1)
    runner = make_runner(batch, used)
    runner.run(1)  # compile and warm up
    runner.sync()
    before = int(batch.ctr[:, sa.C_PROPOSALS].sum())
    budget = 64
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        runner.run(budget)
        runner.sync()
        elapsed = time.perf_counter() - start
        if elapsed < seconds / 20:
            budget *= 2
    done = int(batch.ctr[:, sa.C_PROPOSALS].sum()) - before
    return {
        "proposals_per_second": done / elapsed,
        "proposals": done,
        "seconds": elapsed,
        "order": order,
        "backend": used,
        "chains": count,
        "threads": threads if used == "cpu" else None,
    }


def run_throughput(
    order: int, seconds: float, backend: str, chains: int | None, json_out: bool
) -> int:
    """Print the measurement as JSON or as one line."""
    result = measure_throughput(order, seconds, backend, chains)
    if json_out:
        print(json.dumps(result))
    else:
        print(
            f"{result['proposals_per_second'] / 1e6:.1f} M proposals/s "
            f"({result['backend']}, {result['chains']} chains, order {order})"
        )
    return 0
