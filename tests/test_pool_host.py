"""The pool's host side with no kernel (the stand-in runner, gpu_anneal.standin): a puzzle's
spare slots reported once, and the verifier over many grids."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cpu_reference.sudoku.batch import logic_fill, make_batch
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.schedules import by_name
from cpu_reference.sudoku.verify import verify_many, verify_solution
from gpu_anneal import sudoku_solver
from gpu_anneal.standin import StandInRunner
from gpu_anneal.sudoku_solver import Slicer, _Pool

HARDEST = Path(__file__).parent / "data" / "hardest.txt"
PUZZLES = HARDEST.read_text().split()[:6]  # 9x9, one line each


def cells(text: str) -> np.ndarray:
    """A puzzle's cells (0 blank) from its one-line text."""
    return np.array([0 if ch == "." else int(ch) for ch in text], np.uint8)


def standin_pool(slots: int, source, slices: int = 2, spare: bool = False, propagate=False):
    """A 9x9 pool of `slots` slots on the stand-in runner, reading `source`."""
    table = {}
    for text in PUZZLES:
        puzzle = cells(text)
        _, solution, _ = solve_exact(puzzle, 3, limit=1)
        table[puzzle.tobytes()] = table[logic_fill(puzzle, 3)[0].tobytes()] = solution
    batch = make_batch(np.zeros((slots, 81), np.uint8), 3, by_name("sirdey-course", 3), 2, 0)
    runner = StandInRunner(batch, 0, table, slices)
    report = dict(backend="cuda", seed=0, move="sirdey")
    return _Pool(batch, runner, iter(source), 0, 0, report, propagate, spare)


def test_a_puzzle_with_spare_slots_is_merged_once_as_it_leaves(monkeypatch):
    """Four slots, six puzzles solving after three slices each: once the stream is exhausted
    the two empty slots take spare chains of the last two puzzles, which run a slice before
    those solve. The round that hands them out merges their slots' rows once (the same merge
    names the slots fetched and the results), and every puzzle is reported solved, once; the
    last two with one spare slot (2 chains) each."""
    calls = []
    merge = sudoku_solver.merged_rows

    def counted(*args):
        calls.append(len(args[0]))
        return merge(*args)

    monkeypatch.setattr(sudoku_solver, "merged_rows", counted)
    pool = standin_pool(4, [cells(text) for text in PUZZLES], slices=3, spare=True)
    pool.warm()
    results = list(pool.drive(None, Slicer(1000, 0.2)))
    assert sorted(r.index for r in results) == list(range(6))
    assert all(r.solved and r.verified and r.error is None for r in results)
    spares = {r.index: r.extra.get("spare_chains", 0) for r in results}
    assert spares == {0: 0, 1: 0, 2: 0, 3: 0, 4: 2, 5: 2}
    assert calls == [4]  # one round had spare slots leaving: its four slots, merged once


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
def test_verify_many_answers_as_verify_solution_row_by_row(order, dtype):
    """Valid grids and grids with a blank, two cells of a row swapped (a repeat in columns), a
    value past N, and as int64 a negative value and one past 255 (256 + a digit, never taken
    modulo 256), with givens kept or changed: each row as verify_solution says alone."""
    rng = np.random.default_rng(order)
    N = order * order
    r, c = np.divmod(np.arange(N * N), N)
    pattern = (order * (r % order) + r // order + c) % N  # a valid grid, digits 0..N-1
    rows, puzzles = [], []
    for j in range(14):
        g = (rng.permutation(N)[pattern] + 1).astype(dtype)
        puzzle = np.where(rng.random(N * N) < 0.3, g, 0).astype(np.uint8)
        cell = rng.integers(N * N)
        kind = j % 7
        if kind == 1:
            g[cell] = 0
        elif kind == 2:
            g[[cell, cell - cell % N + (cell + 1) % N]] = g[
                [cell - cell % N + (cell + 1) % N, cell]
            ]
        elif kind == 3:
            g[cell] = N + 1
        elif kind == 4:
            puzzle[cell] = g[cell] % N + 1  # a given the grid changes
        elif kind == 5 and dtype is np.int64:
            g[cell] = -1
        elif kind == 6 and dtype is np.int64:
            g[cell] = 256 + int(g[cell])
        rows.append(g)
        puzzles.append(puzzle)
    grids, givens = np.stack(rows), np.stack(puzzles)
    want = [verify_solution(g, order, p) for g, p in zip(grids, givens, strict=True)]
    assert verify_many(grids, order, givens) == want
    assert verify_many(grids, order) == [verify_solution(g, order) for g in grids]
    assert sum(w is None for w in want) >= 2 and sum(w is not None for w in want) >= 6
    assert verify_many(grids[:0], order) == []
