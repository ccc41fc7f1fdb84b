"""The pool's batched host work spread over the machine's cores: deduction of incoming puzzles,
their tables, and the verification of returned grids, each cut into row chunks that a thread
pool runs at once.

Glossary: rows, the puzzles (or grids) of one call, one a row; chunk, a run of consecutive rows
one thread takes; threads, how many run at once (`threads()`).

Every function here gives exactly what its one-call counterpart gives (the rows are
independent: a row's result depends on that row alone), only sooner where there are cores to
spare. The work is numba code compiled `nogil` (deduction: cpu_reference.sudoku.exact's
propagation; tables: cpu_reference.sudoku.batch's _fill_puzzles) and NumPy's fancy indexing and
reductions (the verifier's batched check), which release the GIL, so threads run in parallel.

    rows:   0 ............................................. k-1
    chunks: [ thread 0 ][ thread 1 ] ... [ thread t-1 ]      (at least MIN_CHUNK rows each)

Threads: GPU_ANNEAL_HOST_THREADS in the environment, else os.cpu_count(); `using(n)` sets it
for a block (bench_host measures 1, 2 and all cores that way).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from cpu_reference.anneal.threads import thread_pool
from cpu_reference.errors import InputError
from cpu_reference.sudoku.batch import logic_fill_many, puzzle_tables
from cpu_reference.sudoku.verify import verify_many

MIN_CHUNK = 64  # fewer rows a thread than this cost more in hand-off than they save

_state: dict = {"threads": None}


def default_threads() -> int:
    """GPU_ANNEAL_HOST_THREADS when set (a positive integer), else the machine's cores."""
    text = os.environ.get("GPU_ANNEAL_HOST_THREADS", "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise InputError(f"GPU_ANNEAL_HOST_THREADS={text!r}: must be a positive integer")
        return value
    return os.cpu_count() or 1


def threads() -> int:
    """Threads the host work uses now."""
    chosen = _state["threads"]
    return default_threads() if chosen is None else chosen


@contextmanager
def using(n: int) -> Iterator[None]:
    """Host work on `n` threads inside the block (n >= 1), the setting before it after."""
    if n < 1:
        raise InputError(f"host threads = {n}: must be at least 1")
    before = _state["threads"]
    _state["threads"] = int(n)
    try:
        yield
    finally:
        _state["threads"] = before


def chunks(rows: int, n: int | None = None) -> list[slice]:
    """The row slices `rows` rows are cut into for n threads (default: threads()): as equal as
    may be, MIN_CHUNK rows each at least, one slice when that leaves one."""
    n = threads() if n is None else n
    parts = max(1, min(n, rows // MIN_CHUNK))
    edges = np.linspace(0, rows, parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def map_chunks(work: Callable[[slice], object], rows: int) -> list:
    """[work(s) for s in chunks(rows)], the chunks on the pool's threads at once (the first on
    the calling thread); an exception in any chunk is raised here."""
    parts = chunks(rows)
    if len(parts) == 1:
        return [work(parts[0])]
    futures = [thread_pool("host", len(parts) - 1).submit(work, s) for s in parts[1:]]
    first = work(parts[0])
    return [first, *(f.result() for f in futures)]


def logic_fill_rows(cells: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """logic_fill_many(cells, order), its rows spread over the threads."""
    cells = np.ascontiguousarray(cells, np.uint8)
    parts = map_chunks(lambda s: logic_fill_many(cells[s], order), cells.shape[0])
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]


def tables_rows(
    cells: np.ndarray, order: int, move: int, masks=None, has_mask=None
) -> dict[str, np.ndarray]:
    """puzzle_tables(cells, order, move, masks, has_mask), its rows spread over the threads."""
    cells = np.ascontiguousarray(cells, np.uint8)

    def part(s: slice) -> dict[str, np.ndarray]:
        return puzzle_tables(
            cells[s], order, move, None if masks is None else masks[s],
            None if has_mask is None else has_mask[s],
        )  # fmt: skip

    parts = map_chunks(part, cells.shape[0])
    if len(parts) == 1:
        return parts[0]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def verify_rows(grids: np.ndarray, order: int, givens: np.ndarray) -> list[str | None]:
    """verify_many(grids, order, givens), its rows spread over the threads."""
    parts = map_chunks(lambda s: verify_many(grids[s], order, givens[s]), len(grids))
    return [fault for part in parts for fault in part]
