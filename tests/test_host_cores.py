"""The pool's batched host work over several threads (gpu_anneal.host_cores) gives exactly what
the one-call functions give: deduction, tables, verification; and how rows are cut."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from forked import in_forked_child

from benchmarks.isomorphs import isomorphs
from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import logic_fill_many, puzzle_tables
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.verify import verify_many
from gpu_anneal import host_cores

HARDEST = Path(__file__).parent / "data" / "hardest.txt"


def base() -> tuple[np.ndarray, np.ndarray]:
    """A few hard 9x9 puzzles and their solutions."""
    texts = HARDEST.read_text().split()[:5]
    puzzles = np.array([[0 if c == "." else int(c) for c in t] for t in texts], np.uint8)
    solutions = np.stack([solve_exact(p, 3, limit=1)[1] for p in puzzles]).astype(np.uint8)
    return puzzles, solutions


ROWS = 5 * host_cores.MIN_CHUNK + 7  # cut into several chunks at 4 threads


def test_chunks_cover_every_row_once_and_keep_a_least_size():
    for rows, n in ((0, 4), (1, 4), (63, 8), (64 * 3 + 1, 8), (1000, 3), (1000, 1)):
        parts = host_cores.chunks(rows, n)
        covered = [i for s in parts for i in range(rows)[s]]
        assert covered == list(range(rows))
        assert len(parts) <= max(1, n)
        if len(parts) > 1:
            assert min(s.stop - s.start for s in parts) >= host_cores.MIN_CHUNK
    assert len(host_cores.chunks(1000, 3)) == 3


def test_deduction_tables_and_verification_match_the_one_call_functions():
    puzzles, solutions = base()
    cells, solved = isomorphs(puzzles, ROWS, 3, solutions)
    with host_cores.using(4):
        assert len(host_cores.chunks(ROWS)) == 4
        filled, masks, ok = host_cores.logic_fill_rows(cells, 3)
        want = logic_fill_many(cells, 3)
        for got, expected in zip((filled, masks, ok), want, strict=True):
            np.testing.assert_array_equal(got, expected)
        move = rules.MOVE_NAMES["candidate"]
        tables = host_cores.tables_rows(filled, 3, move, masks, ok)
        expected = puzzle_tables(filled, 3, move, masks, ok)
        assert tables.keys() == expected.keys()
        for name in tables:
            np.testing.assert_array_equal(tables[name], expected[name], err_msg=name)
        grids = solved.copy()
        grids[7, :2] = grids[7, 1::-1]  # two digits swapped: a unit fault
        grids[ROWS - 3, 0] = 0  # a blank: incomplete
        broken = np.flatnonzero(cells[200] != 0)[0]  # a given changed
        grids[200, broken] = grids[200, broken] % 9 + 1
        faults = host_cores.verify_rows(grids, 3, cells)
        assert faults == verify_many(grids, 3, cells)
        assert [j for j, f in enumerate(faults) if f] == [7, 200, ROWS - 3]


def test_chunks_run_on_other_threads_and_their_errors_reach_the_caller():
    seen = set()

    def work(s):
        seen.add(threading.get_ident())
        if s.start > 0:
            raise ValueError(f"chunk at {s.start}")
        return s.start

    with host_cores.using(2), pytest.raises(ValueError, match="chunk at"):
        host_cores.map_chunks(work, 4 * host_cores.MIN_CHUNK)
    assert len(seen) == 2  # the caller's thread and a worker's
    with host_cores.using(1):
        assert host_cores.map_chunks(lambda s: (s.start, s.stop), 1000) == [(0, 1000)]


def test_thread_count_from_the_environment_and_its_errors(monkeypatch):
    monkeypatch.setenv("GPU_ANNEAL_HOST_THREADS", "3")
    assert host_cores.threads() == 3
    with host_cores.using(5):
        assert host_cores.threads() == 5
    assert host_cores.threads() == 3
    for bad in ("0", "many", "-2"):
        monkeypatch.setenv("GPU_ANNEAL_HOST_THREADS", bad)
        with pytest.raises(InputError, match="GPU_ANNEAL_HOST_THREADS"):
            host_cores.threads()
    with pytest.raises(InputError, match="at least 1"), host_cores.using(0):
        pass


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_makes_its_own_pool():
    """The parent's pool has no threads in a forked child: the child's host work makes one."""

    def chunks_run() -> bool:
        with host_cores.using(2):
            starts = host_cores.map_chunks(lambda s: s.start, 4 * host_cores.MIN_CHUNK)
        return starts == [0, 2 * host_cores.MIN_CHUNK]

    assert chunks_run()  # the parent's pool exists now
    assert in_forked_child(chunks_run) is True
