"""Random isomorphs of 9x9 Sudoku puzzles: held-out puzzles of the same difficulty, any number.

Glossary: r, c row and column (0..8), d digit (1..9, 0 blank), band / stack a group of three
rows / columns.

An isomorph applies one random symmetry of the Sudoku group to a puzzle: a relabelling of the
nine digits, a permutation of the bands and of the rows inside each band, of the stacks and of
the columns inside each stack, and an optional transposition. Solving is invariant under the
group, so an isomorph has exactly as many solutions as its puzzle, and the same symmetry maps
the puzzle's solution to the isomorph's.
"""

from __future__ import annotations

import numpy as np


def symmetry(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, bool]:
    """One random symmetry: (cell map int64[81], digit map uint8[10], transposed).

    Cell c of the isomorph takes cell map[c] of the puzzle, digit d becomes digit map[d]
    (map[0] = 0: blanks stay blank)."""
    rows = np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])
    cols = np.concatenate([3 * s + rng.permutation(3) for s in rng.permutation(3)])
    cell = (rows[:, None] * 9 + cols[None, :]).astype(np.int64)
    transposed = bool(rng.integers(2))
    if transposed:
        cell = cell.T
    digits = np.zeros(10, np.uint8)
    digits[1:] = rng.permutation(9) + 1
    return cell.ravel(), digits, transposed


def apply(grid: np.ndarray, sym: tuple[np.ndarray, np.ndarray, bool]) -> np.ndarray:
    """A 9x9 grid (uint8[81]) under a symmetry from `symmetry`."""
    cell, digits, _ = sym
    return digits[np.asarray(grid, np.uint8)[cell]]


def isomorphs(
    puzzles: np.ndarray, count: int, seed: int, solutions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """`count` random isomorphs of `puzzles` (uint8[P, 81]), puzzle k % P for the k-th, and
    their solutions when the puzzles' solutions are given (uint8[P, 81])."""
    rng = np.random.default_rng(seed)
    out = np.zeros((count, 81), np.uint8)
    solved = None if solutions is None else np.zeros((count, 81), np.uint8)
    for k in range(count):
        sym = symmetry(rng)
        out[k] = apply(puzzles[k % len(puzzles)], sym)
        if solved is not None:
            solved[k] = apply(solutions[k % len(puzzles)], sym)
    return out, solved


def line(grid: np.ndarray) -> str:
    """A 9x9 grid as an 81-character line, '.' blank."""
    return "".join("." if d == 0 else str(int(d)) for d in grid)
