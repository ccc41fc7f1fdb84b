"""The independent verifier: every kind of broken grid is named, valid grids pass, and
conflict_cost and conflicted_cells match a pair-by-pair count.

Glossary: n order, N = n * n side, r/k row/column, c cell, d digit (0 blank).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cpu_reference.sudoku.verify import (
    conflict_cost,
    conflicted_cells,
    is_valid_solution,
    verify_many,
    verify_solution,
)


def random_grid(n: int, rng: np.random.Generator) -> np.ndarray:
    """A valid solved grid: the pattern grid with digits, rows in bands, columns in stacks,
    bands and stacks shuffled."""
    N = n * n
    base = np.array([[(r * n + r // n + k) % N for k in range(N)] for r in range(N)])
    digits = rng.permutation(N) + 1
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([s * n + rng.permutation(n) for s in rng.permutation(n)])
    return digits[base[rows][:, cols]].astype(np.uint8).ravel()


def brute_cost(grid: np.ndarray, n: int) -> int:
    N = n * n
    g = [int(x) for x in np.asarray(grid).ravel()]
    cost = 0
    for a, b in itertools.combinations(range(N * N), 2):
        ra, ka, rb, kb = a // N, a % N, b // N, b % N
        peers = ra == rb or ka == kb or (ra // n == rb // n and ka // n == kb // n)
        if peers and g[a] == g[b] and g[a] > 0:
            cost += 1
    return cost


SOLVED_TEXT = "652483917978162435314975628825736149791824563436519872269348751547291386183657294"
PUZZLE_TEXT = ".5..83.17...1..4..3.4..56.8....3...9.9.8245....6....7...9....5...729..861.36.72.4"
SOLVED = np.array([int(ch) for ch in SOLVED_TEXT], dtype=np.uint8)
PUZZLE = np.array([0 if ch == "." else int(ch) for ch in PUZZLE_TEXT], dtype=np.uint8)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_valid_grids_pass(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        g = random_grid(n, rng)
        assert verify_solution(g, n) is None
        assert is_valid_solution(g.astype(np.int64), n)
        assert is_valid_solution(g.reshape(n * n, n * n), n)
        puzzle = np.where(rng.random(g.size) < 0.3, g, 0)
        assert verify_solution(g, n, puzzle) is None
        assert conflict_cost(g, n) == 0


def conflicted_by_hand(grid: np.ndarray, n: int) -> np.ndarray:
    """The cells whose digit (d > 0) a peer also holds, pair by pair."""
    N = n * n
    g = [int(x) for x in np.asarray(grid).ravel()]
    out = np.zeros(N * N, bool)
    for a, b in itertools.combinations(range(N * N), 2):
        ra, ka, rb, kb = a // N, a % N, b // N, b % N
        peers = ra == rb or ka == kb or (ra // n == rb // n and ka // n == kb // n)
        if peers and g[a] == g[b] and g[a] > 0:
            out[a] = out[b] = True
    return out


@pytest.mark.parametrize("n", [2, 3])
def test_conflicted_cells_match_pair_by_pair(n):
    rng = np.random.default_rng(n)
    grid = random_grid(n, rng)
    assert not conflicted_cells(grid, n).any()
    for _ in range(5):
        broken = grid.copy()
        broken[rng.integers(grid.size, size=3)] = rng.integers(0, n * n + 1, size=3)
        got = conflicted_cells(broken, n)
        assert np.array_equal(got, conflicted_by_hand(broken, n))
        assert got.any() == (conflict_cost(broken, n) > 0)


def test_known_solution_keeps_its_puzzle():
    assert verify_solution(SOLVED, 3, PUZZLE) is None
    assert not is_valid_solution(PUZZLE, 3)


def test_wrong_size():
    assert verify_solution(SOLVED[:80], 3) == "wrong size: 80 cells, expected 81 (9x9)"
    assert verify_solution(SOLVED, 3, PUZZLE[:80]).startswith("puzzle: wrong size: 80 cells")
    assert verify_solution(SOLVED.astype(float), 3).endswith("expected integers")


def test_blank_cell():
    g = SOLVED.copy()
    g[13] = 0
    assert verify_solution(g, 3) == "cell r2c5 is blank"


def test_out_of_range_digit():
    g = SOLVED.copy()
    g[0] = 10
    assert verify_solution(g, 3) == "cell r1c1 holds 10, outside 1..9"
    g = SOLVED.astype(np.int64)
    g[80] = -1
    assert verify_solution(g, 3) == "cell r9c9 holds -1, outside 1..9"


def test_row_duplicate_only():
    # Swapping two cells of one column inside one box keeps columns and boxes whole and breaks
    # two rows: rows are checked first.
    g = SOLVED.reshape(9, 9).copy()
    g[[0, 1], 0] = g[[1, 0], 0]
    assert verify_solution(g, 3) == "row 1 holds 9 twice"


def test_column_duplicate_only():
    g = SOLVED.reshape(9, 9).copy()
    g[0, [0, 1]] = g[0, [1, 0]]
    assert verify_solution(g, 3) == "column 1 holds 5 twice"


def test_box_duplicate_only():
    # Exchanging rows 3 and 4 (across a band boundary) keeps rows and columns whole.
    g = SOLVED.reshape(9, 9).copy()
    g[[2, 3]] = g[[3, 2]]
    fault = verify_solution(g, 3)
    assert fault.startswith("box 1 holds") and fault.endswith("twice")


def test_changed_given():
    puzzle = PUZZLE.copy()
    puzzle[0] = 7
    assert verify_solution(SOLVED, 3, puzzle) == "cell r1c1 changes given 7 to 6"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_single_cell_change_is_caught(n):
    rng = np.random.default_rng(10 + n)
    g = random_grid(n, rng)
    N = n * n
    for c in rng.choice(N * N, size=min(N * N, 40), replace=False):
        bad = g.copy()
        bad[c] = bad[c] % N + 1
        assert verify_solution(bad, n) is not None
        assert conflict_cost(bad, n) > 0


@pytest.mark.parametrize("n", [2, 3])
def test_conflict_cost_matches_brute_force(n):
    rng = np.random.default_rng(20 + n)
    N = n * n
    for _ in range(15):
        g = rng.integers(0, N + 1, size=N * N)
        assert conflict_cost(g, n) == brute_cost(g, n)
    assert (
        conflict_cost(np.ones(N * N, dtype=np.uint8), n) == N * N * (3 * (N - 1) - 2 * (n - 1)) // 2
    )
    assert conflict_cost(np.zeros(N * N, dtype=np.uint8), n) == 0


def test_conflict_cost_counts_a_row_and_box_pair_once():
    g = np.zeros(81, dtype=np.uint8)
    g[[0, 1]] = 5
    assert conflict_cost(g, 3) == 1
    g[10] = 5
    assert conflict_cost(g, 3) == 3
    with pytest.raises(ValueError, match="wrong size"):
        conflict_cost(g[:80], 3)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
def test_verify_many_gives_verify_solution_row_by_row(n, dtype):
    """Valid grids, grids with one fault of each kind and wrong givens, as uint8 and as int64
    (where a value past N may also be negative, or 256 + a digit: never taken modulo 256):
    verify_many's answer for each row is verify_solution's for that row alone."""
    rng = np.random.default_rng(n)
    N = n * n
    grids, puzzles = [], []
    for j in range(40):
        g = random_grid(n, rng).astype(dtype)
        puzzle = np.where(rng.random(N * N) < 0.3, g, 0).astype(np.uint8)
        fault = j % 5
        if fault == 1:  # two cells swapped: a repeat in a column or a box
            a, b = rng.choice(N * N, 2, replace=False)
            g[a], g[b] = g[b], g[a]
        elif fault == 2:
            g[rng.integers(N * N)] = 0
        elif fault == 3:  # a given changed (the grid stays valid)
            c = rng.integers(N * N)
            puzzle[c] = g[c] % N + 1
        elif fault == 4:
            c = rng.integers(N * N)
            if dtype is np.int64 and j % 10 == 9:  # half the int64 rows: -1 or 256 + a digit
                g[c] = -1 if j % 20 == 9 else 256 + int(g[c])
            else:
                g[c] = N + 1
        grids.append(g)
        puzzles.append(puzzle)
    grids, puzzles = np.stack(grids), np.stack(puzzles)
    want = [verify_solution(g, n, p) for g, p in zip(grids, puzzles, strict=True)]
    assert verify_many(grids, n, puzzles) == want
    assert verify_many(grids, n) == [verify_solution(g, n) for g in grids]
    assert sum(w is None for w in want) >= 8  # valid rows are in the mix
    assert sum(w is not None for w in want) >= 24
