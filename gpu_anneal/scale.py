"""Scale-out on Dask: a file of puzzles cut into chunks, one task per chunk.

A run's plan (gpu_anneal.run_plan.RunPlan: backend, chains, slots = the chunk, schedule, move)
is settled before the tasks are made; each task anneals its chunk by it with the RNG streams
the chunk's puzzles would have in one big run (`first_index` and `first_chain = first_index *
chains`), so with one chain per puzzle every result equals a single-process `solve_batch` over
the whole file with the same seed. With more
chains per puzzle, which chain wins a puzzle depends on timing; the solution of a puzzle with a
unique solution is still the same.

Dask is an optional extra (`pip install "gpu-anneal[dask]"`), imported only when
`solve_on_dask` is called; without it, a MissingExtra (an ImportError) names the extra. A
scheduler address that is malformed is an InputError; one where no scheduler answers within
CONNECT_SECONDS is a BackendError naming the address.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace

import numba
import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sudoku.layout import layout
from gpu_anneal import validate
from gpu_anneal.backends import BackendError, missing_extra
from gpu_anneal.run_plan import RunPlan
from gpu_anneal.sudoku_solver import SolveResult, run_pool

CONNECT_SECONDS = 10  # how long a scheduler address may take to answer


def import_distributed():
    """The `distributed` module, or a MissingExtra (an ImportError) naming the dask extra."""
    try:  # late: an optional extra, and dask with distributed costs ~0.2 s
        import dask  # noqa: F401
        import distributed
    except ImportError as exc:
        raise missing_extra("Dask scale-out (--workers, --scheduler)", "dask", exc) from None
    return distributed


def require_dask(scheduler: str | None = None, name: str = "scheduler"):
    """The `distributed` module once dask is importable and `scheduler` (when given) is a
    well-formed address; MissingExtra or InputError (one line, naming the address `name`: the
    API's scheduler, the command line's --scheduler) otherwise."""
    distributed = import_distributed()
    if scheduler is not None:
        from distributed.comm import get_address_host_port  # late: the optional dask extra

        try:
            get_address_host_port(scheduler)
        except (ValueError, TypeError) as exc:
            raise InputError(f"{name} {scheduler!r}: not a scheduler address ({exc}); "
                             "expected e.g. tcp://host:8786") from None  # fmt: skip
    return distributed


def connect(distributed, scheduler: str):
    """A Client of the scheduler at `scheduler`; BackendError naming the address when none
    answers within CONNECT_SECONDS (never a longer wait)."""
    try:
        return distributed.Client(scheduler, timeout=CONNECT_SECONDS)
    except Exception as exc:  # refused, timed out, or something that does not speak Dask
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise BackendError(f"no Dask scheduler answers at {scheduler!r} ({reason})") from None


def solve_chunk(
    puzzles: np.ndarray,
    order: int,
    first_index: int,
    plan: RunPlan,
    slice_seconds: float = 0.2,
    numba_threads: int | None = None,
) -> list[SolveResult]:
    """One Dask task: the plan's pool (sudoku_solver.run_pool) over a chunk whose first puzzle
    is `first_index` of the file, every puzzle of the chunk at once; results in puzzle order.

    The plan's backend and chains are taken as they are (`first_chain = first_index *
    plan.chains`). `numba_threads` caps the numba threads this task uses
    (`numba.set_num_threads`; setting NUMBA_NUM_THREADS in a worker's environment instead clashes
    with a numba that the spawned process imported before the environment was applied).
    """
    if numba_threads is not None:
        numba.set_num_threads(max(1, min(numba_threads, numba.config.NUMBA_NUM_THREADS)))
    grid = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, layout(order).cells)
    chunk = replace(plan, slots=max(1, grid.shape[0]))
    first_chain = first_index * plan.chains
    results = run_pool(chunk, list(grid), first_index, first_chain, slice_seconds)
    return sorted(results, key=lambda r: r.index)


def solve_on_dask(
    puzzles: np.ndarray,
    order: int,
    plan: RunPlan,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    slice_seconds: float = 0.2,
) -> Iterator[SolveResult]:
    """Solve `puzzles` (uint8[P, cells]) on a Dask cluster by a settled run plan (its chains
    and slots set: run_plan.sudoku_plan builds one for a Dask run, run_plan.pool_plan for a
    caller that skips the API); yield results as tasks complete.

    `scheduler` is the address of a running distributed scheduler (for example
    "tcp://host:8786"); `workers` starts a `distributed.LocalCluster` of that many one-thread
    worker processes (each task limited to one numba thread) that is closed at the end. With
    neither, a local cluster of one worker per core is started. The puzzles are cut into chunks
    of the plan's slots, one task each, each annealed with the plan's backend, chains, schedule
    and move. Results come in completion order, each with its global `index`.

    GPU workers come from dask-cuda when it is installed (`dask cuda worker` or
    `LocalCUDACluster`, one worker per GPU, reached through `scheduler`); dask-cuda is not
    required. Workers of a remote cluster need this package installed; their numba threads are
    left as they are configured.

    Ctrl-C (or closing the iterator) cancels the tasks still outstanding and closes a local
    cluster; results already yielded stay yielded. Raises MissingExtra (an ImportError) naming
    the dask extra when dask is missing, InputError on bad arguments or a malformed scheduler
    address, BackendError (when the stream starts) when no scheduler answers at the address,
    ValueError for a plan whose chains or slots are left to a pool's launch plan.
    """
    distributed = require_dask(scheduler)
    if scheduler is not None and workers is not None:
        raise InputError("solve_on_dask: give scheduler or workers, not both")
    workers = validate.workers(workers)
    slice_seconds = validate.slice_seconds(slice_seconds)
    grid = np.ascontiguousarray(validate.sudoku_array(puzzles, order)[0])  # never wrapped
    if plan.chains is None or plan.slots is None:
        raise ValueError("solve_on_dask: the plan must settle chains and slots (the chunk)")
    if scheduler is None and workers is None:
        workers = os.cpu_count() or 1
    return _stream(distributed, grid, order, plan, scheduler, workers, slice_seconds)


def _stream(distributed, grid, order, plan, scheduler, workers, slice_seconds):
    cluster = None
    client = None
    futures = []
    try:
        if scheduler is None:
            cluster = distributed.LocalCluster(
                n_workers=int(workers),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = distributed.Client(cluster)
            threads = 1
        else:
            client = connect(distributed, scheduler)
            threads = None
        chunk = plan.slots
        for lo in range(0, grid.shape[0], chunk):
            futures.append(
                client.submit(
                    solve_chunk,
                    grid[lo : lo + chunk].copy(),
                    order,
                    lo,
                    plan,
                    slice_seconds,
                    threads,
                    pure=False,
                    key=f"solve_batch-{lo}-{os.urandom(6).hex()}",
                )
            )
        for future in distributed.as_completed(futures):
            results = future.result()
            yield from results
    finally:
        outstanding = [f for f in futures if not f.done()]
        if outstanding and client is not None:
            try:
                client.cancel(outstanding)
            except Exception:
                pass
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
