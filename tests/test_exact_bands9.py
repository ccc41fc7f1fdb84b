"""The 9x9 band solver (cpu_reference.sudoku.exact_bands9): matching tables, each deduction on a
hand-made state, contradictions, and whole solves against seed 003's rules."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from tdoku_cases import parse81, tdoku_cases

from cpu_reference.sudoku import exact_bands9 as B
from cpu_reference.sudoku.exact import solve_exact

DATA = Path(__file__).parent / "data"
FULL27 = (1 << 27) - 1


def lines81(name: str) -> list[np.ndarray]:
    out = []
    for line in (DATA / name).read_text().splitlines():
        if len(line.strip()) >= 81 and not line.startswith("#"):
            out.append(parse81(line.strip()[:81]))
    return out


def solve(cells: np.ndarray, limit: int, max_nodes: int = 0):
    stack = np.empty((B.DEPTH, B.STATE), np.int32)
    solution = np.zeros(81, np.uint8)
    count, nodes = B.solve9(cells, limit, max_nodes, stack, solution)
    return int(count), solution, int(nodes)


def valid(grid: np.ndarray, puzzle: np.ndarray) -> bool:
    g = grid.reshape(9, 9).astype(int)
    boxes = g.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
    ok = all(sorted(u) == list(range(1, 10)) for block in (g, g.T, boxes) for u in block)
    return ok and bool(np.all((puzzle == 0) | (puzzle == grid)))


def test_match_table_is_the_union_of_perfect_matchings():
    """_MATCH against a brute force over all 6 one-to-one maps, for all 512 occupancies."""
    for o in range(512):
        want = 0
        for p in permutations(range(3)):
            if all(o >> (3 * r + p[r]) & 1 for r in range(3)):
                want |= sum(1 << (3 * r + p[r]) for r in range(3))
        assert B._MATCH[o] == want


def test_match_table_hand_cases():
    assert B._MATCH[511] == 511
    # row 0 only in box 1: rows 1 and 2 lose box 1, row 0 keeps box 1 only
    assert B._MATCH[0b111_111_010] == 0b101_101_010
    # rows 0 and 1 both only in box 0: no matching
    assert B._MATCH[0b111_001_001] == 0


def test_band_matching_pointing():
    """Digit confined to row 0 inside box 0 (band 0): row 0 loses the digit outside box 0."""
    a0 = FULL27 & ~(0b000_000_111 << 9) & ~(0b000_000_111 << 18)
    ok, a0, a1, a2 = B._digit_fixpoint(a0, FULL27, FULL27)
    assert ok
    assert a0 & B.ROW9 == 0b000_000_111
    assert (a0 >> 9) & B.ROW9 == 0b111_111_000
    assert a1 == FULL27 and a2 == FULL27


def test_stack_matching_claiming():
    """Box (band 0, stack 0) holds the digit only in column 0: bands 1 and 2 lose column 0."""
    cols12 = 0b110 * B.REP3
    ok, a0, a1, a2 = B._digit_fixpoint(FULL27 & ~cols12, FULL27, FULL27)
    assert ok
    col0 = 0b001 * B.REP3
    assert a1 & col0 == 0 and a2 & col0 == 0
    assert a0 & col0 == col0


def test_hidden_single_in_column():
    """Column 4 holds the digit only at row 7 (band 2): the digit is placed there."""
    col4 = (1 << 4) * B.REP3
    a2 = FULL27 & ~(col4 & ~(1 << (9 + 4)))  # band 2: only row 7 keeps column 4
    ok, a0, a1, a2 = B._digit_fixpoint(FULL27 & ~col4, FULL27 & ~col4, a2)
    assert ok
    assert (a2 >> 9) & B.ROW9 == 1 << 4  # row 7 holds the digit at column 4 alone


def test_digit_fixpoint_contradiction():
    """Two rows of a band whose only place is the same box: no matching."""
    a0 = FULL27 & ~(0b111_111_000 << 0) & ~(0b111_111_000 << 9)
    ok, *_ = B._digit_fixpoint(a0, FULL27, FULL27)
    assert not ok


def test_naked_single_and_placement_clear_other_digits():
    """Row 0 holds 2..9 at cells 1..8, so cell 0 can only be 1: no search needed."""
    puzzle = np.zeros(81, np.uint8)
    puzzle[1:9] = np.arange(2, 10)
    F = np.empty(B.STATE, np.int32)
    assert B._start(puzzle, F)
    for d in range(1, 9):
        assert F[3 * d] & 1 == 0  # digits 2..9 left cell 0
    assert F[0] & B.ROW9 == 1  # digit 1 in row 0: cell 0 alone
    assert F[B.PLACED] & B.ROW9 == B.ROW9


@pytest.mark.parametrize(
    "cells,digit",
    [((0, 5), 7), ((0, 45), 3), ((0, 20), 9)],  # same row, same column, same box
)
def test_repeated_givens_give_zero(cells, digit):
    puzzle = np.zeros(81, np.uint8)
    puzzle[list(cells)] = digit
    assert solve(puzzle, 2)[0] == 0


def test_empty_cell_gives_zero():
    """Row 0 holds 1..8 at cells 1..8 and column 0 holds 9: cell 0 has no digit left."""
    puzzle = np.zeros(81, np.uint8)
    puzzle[1:9] = np.arange(1, 9)
    puzzle[9 * 4] = 9
    count, solution, _ = solve(puzzle, 2)
    assert count == 0 and not solution.any()


def test_digit_above_nine_gives_zero():
    puzzle = np.zeros(81, np.uint8)
    puzzle[3] = 10
    assert solve(puzzle, 2)[0] == 0


@pytest.mark.parametrize("index", range(43))
def test_tdoku_counts_exhaustive(index):
    cells, count, solution = tdoku_cases()[index]
    got, grid, _ = solve(cells, 1000)
    assert got == count
    assert solve(cells, 2)[0] == min(count, 2)
    if count:
        assert valid(grid, cells)
    if solution:
        assert "".join(map(str, grid)) == solution


def test_same_counts_and_solutions_as_the_seed_rules():
    puzzles = lines81("hardest.txt") + lines81("top95_head.txt") + lines81("logic_solvable_9x9.txt")
    for cells in puzzles:
        for limit in (1, 2, 50):
            fast = solve(cells, limit)
            seed = solve_exact(cells, 3, limit, rules="seed")
            assert fast[0] == seed[0]
            if fast[0] == 1 and limit > 1:  # unique: the same grid
                assert np.array_equal(fast[1], seed[1])
            elif fast[0]:
                assert valid(fast[1], cells)


def test_node_cap_reports_unfinished():
    count, _, nodes = solve(np.zeros(81, np.uint8), 10**6, max_nodes=7)
    assert (count, nodes) == (-1, 7)


def test_parallel_equals_serial():
    puzzles = np.stack([c for c, _, _ in tdoku_cases()] + lines81("top95_head.txt"))
    serial_counts = np.zeros(len(puzzles), np.int32)
    serial_solutions = np.zeros_like(puzzles)
    total = B.solve9_serial(puzzles, 2, 0, serial_counts, serial_solutions)
    counts = np.zeros(len(puzzles), np.int32)
    solutions = np.zeros_like(puzzles)
    nodes = np.zeros(len(puzzles), np.int64)
    B.solve9_parallel(puzzles, 2, 0, 2, counts, solutions, nodes)
    assert np.array_equal(counts, serial_counts)
    assert np.array_equal(solutions, serial_solutions)
    assert nodes.sum() == total
