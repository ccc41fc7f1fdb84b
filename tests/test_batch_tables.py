"""puzzle_tables (compiled, one puzzle at a time) against a plain numpy statement of its tables."""

from __future__ import annotations

import numpy as np
import pytest

from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import puzzle_tables
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import cell_word_bit, packing


def reference_tables(puzzle: np.ndarray, order: int, move: int, mask=None) -> dict:
    """The tables of one puzzle as the module docstring defines them, in plain numpy."""
    lay, pk = layout(order), packing(order)
    N = lay.N
    free = np.flatnonzero(puzzle == 0)
    board = np.zeros(pk.NW, dtype=pk.word_dtype)
    for c in np.flatnonzero(puzzle):
        w, bit = cell_word_bit(order, int(c))
        board[(int(puzzle[c]) - 1) * pk.WR + w] |= pk.word_dtype(1) << pk.word_dtype(bit)
    t = {"given_board": board, "ninit": free.size, "init_cells": np.zeros(lay.cells, np.int16)}
    t["init_cells"][: free.size] = free
    t["cand"] = np.tile(np.arange(1, N + 1, dtype=np.uint8), (lay.cells, 1))
    t["ncand"] = np.full(lay.cells, N, np.int32)
    t["box_cells"] = np.zeros((N, N), np.int16)
    t["nbox"] = np.zeros(N, np.int32)
    t["box_missing"] = np.zeros((N, N), np.uint8)
    for b in range(N):
        cells = lay.units[2 * N + b]
        empty = cells[puzzle[cells] == 0]
        missing = np.setdiff1d(np.arange(1, N + 1), puzzle[cells])
        t["nbox"][b] = empty.size
        t["box_cells"][b, : empty.size] = empty
        t["box_missing"][b, : missing.size] = missing
    if move == rules.MOVE_BOX_SWAP:
        movable = np.flatnonzero(t["nbox"] >= 2)
    elif move == rules.MOVE_CANDIDATE:
        for c in free:
            if mask is not None:
                digits = np.array([d + 1 for d in range(N) if int(mask[c]) >> d & 1], np.uint8)
            else:
                seen = puzzle[lay.units[lay.cell_units[c]].ravel()]
                digits = np.setdiff1d(np.arange(1, N + 1), seen)
            if digits.size:
                t["cand"][c, : digits.size] = digits
                t["ncand"][c] = digits.size
        movable = free[t["ncand"][free] >= 2]
    else:
        movable = free
    t["nmove"] = movable.size
    t["move_cells"] = np.zeros(lay.cells, np.int16)
    t["move_cells"][: movable.size] = movable
    return t


def random_puzzles(order: int, count: int, rng) -> np.ndarray:
    """Puzzles from a pattern grid with random blanks (some also with a repeated digit)."""
    n, N = order, order * order
    r, k = np.divmod(np.arange(N * N), N)
    grid = ((r * n + r // n + k) % N + 1).astype(np.uint8)
    out = []
    for i in range(count):
        p = np.where(rng.random(N * N) < rng.uniform(0.2, 0.9), 0, grid).astype(np.uint8)
        if i % 5 == 4:  # a conflicting given: tables are built all the same
            p[rng.integers(N * N)] = rng.integers(1, N + 1)
        out.append(p)
    return np.stack(out)


@pytest.mark.parametrize("order", [2, 3, 4])
@pytest.mark.parametrize("move", [rules.MOVE_SIRDEY, rules.MOVE_CANDIDATE, rules.MOVE_BOX_SWAP])
@pytest.mark.parametrize("with_masks", [False, True])
def test_tables_equal_the_plain_statement(order, move, with_masks):
    """Every table of 12 random puzzles, with and without candidate masks, equals the reference
    (a mask with no bit left keeps the cell's N candidates, as the docstring says)."""
    rng = np.random.default_rng(order * 10 + move)
    puzzles = random_puzzles(order, 12, rng)
    N = order * order
    masks = None
    if with_masks:
        masks = rng.integers(0, 1 << N, size=puzzles.shape, dtype=np.int64)
        masks[:, ::7] = 0
    got = puzzle_tables(puzzles, order, move, masks)
    for p in range(len(puzzles)):
        want = reference_tables(puzzles[p], order, move, None if masks is None else masks[p])
        for name, value in want.items():
            assert np.array_equal(got[name][p], value), (name, p)
