"""Sudoku rules checked from scratch with plain numpy, apart from every solver and table.

Glossary of index names (as in sudoku_layout):
    n       order: box side
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    c       cell index, row-major: c = r * N + k
    r, k    row and column of a cell, 0-based in code, 1-based in messages (r1c1 is the top left)
    d       digit, 1..N; 0 means blank

Messages count rows, columns and boxes from 1; boxes are numbered row-major (box 1 top left,
box N bottom right).
"""

from __future__ import annotations

from functools import cache

import numpy as np


def _rc(r: int, k: int) -> str:
    return f"r{r + 1}c{k + 1}"


def _as_grid(values, order: int, what: str) -> tuple[np.ndarray | None, str | None]:
    a = np.asarray(values)
    if a.dtype.kind not in "iub":
        return None, f"{what} has type {a.dtype}, expected integers"
    a = a.ravel().astype(np.int64)
    N = order * order
    if a.size != N * N:
        return None, f"wrong size: {a.size} cells, expected {N * N} ({N}x{N})"
    return a.reshape(N, N), None


def _units_hold_each_digit_once(g: np.ndarray, n: int) -> bool:
    """True when every cell holds 1..N and no row, column or box repeats a digit: one count
    over all 3N units at once (the fast answer for a valid grid; faults are then located one
    by one for the message)."""
    N = n * n
    if g.min() < 1 or g.max() > N:
        return False
    units = np.concatenate((g, g.T, _boxes(g, n)))
    keys = units + (N + 1) * np.arange(3 * N)[:, None]
    return int(np.bincount(keys.ravel()).max()) <= 1


def _keeps_givens(g: np.ndarray, n: int, puzzle) -> bool:
    """True when there is no puzzle, or it is well formed and g holds every given of it."""
    if puzzle is None:
        return True
    p, fault = _as_grid(puzzle, n, "puzzle")
    return fault is None and not ((p != 0) & (p != g)).any()


def _boxes(g: np.ndarray, n: int) -> np.ndarray:
    """[N, N]: row b holds the cells of box b, each box read row by row."""
    N = n * n
    return g.reshape(n, n, n, n).transpose(0, 2, 1, 3).reshape(N, N)


def verify_solution(
    solution: np.ndarray, order: int, puzzle: np.ndarray | None = None
) -> str | None:
    """None if solution is a complete valid grid keeping puzzle's givens, else the first fault."""
    n = int(order)
    if n < 1:
        return f"order {n} is not positive"
    N = n * n
    g, fault = _as_grid(solution, n, "solution")
    if fault:
        return fault
    if _units_hold_each_digit_once(g, n) and _keeps_givens(g, n, puzzle):
        return None
    blank = np.argwhere(g == 0)
    if blank.size:
        return f"cell {_rc(*blank[0])} is blank"
    out = np.argwhere((g < 0) | (g > N))
    if out.size:
        r, k = out[0]
        return f"cell {_rc(r, k)} holds {g[r, k]}, outside 1..{N}"
    for kind, units in (("row", g), ("column", g.T), ("box", _boxes(g, n))):
        for i, unit in enumerate(units):
            counts = np.bincount(unit, minlength=N + 1)
            twice = np.flatnonzero(counts[1:] > 1)
            if twice.size:
                return f"{kind} {i + 1} holds {twice[0] + 1} twice"
    if puzzle is not None:
        p, fault = _as_grid(puzzle, n, "puzzle")
        if fault:
            return "puzzle: " + fault
        changed = np.argwhere((p != 0) & (p != g))
        if changed.size:
            r, k = changed[0]
            return f"cell {_rc(r, k)} changes given {p[r, k]} to {g[r, k]}"
    return None


def verify_many(
    solutions: np.ndarray, order: int, puzzles: np.ndarray | None = None
) -> list[str | None]:
    """verify_solution of every row of solutions (int[k, cells]) against the same row of puzzles,
    at once: all rows are checked together, and only a row that fails is checked again alone for
    its message. Element j is None when row j is a complete valid grid keeping its givens."""
    n = int(order)
    N = n * n
    grids = np.asarray(solutions)
    if grids.ndim != 2 or grids.shape[1] != N * N or grids.dtype.kind not in "iu":
        return [verify_solution(g, n, None if puzzles is None else puzzles[j])
                for j, g in enumerate(grids)]  # fmt: skip
    k = grids.shape[0]
    ok = _units_complete(grids, n)
    if puzzles is not None:
        p = np.asarray(puzzles).reshape(k, N * N)
        ok &= ~((p != 0) & (p != grids)).any(axis=1)
    return [
        None if good else verify_solution(grids[j], n, None if puzzles is None else puzzles[j])
        for j, good in enumerate(ok.tolist())
    ]


def _units_complete(grids: np.ndarray, n: int) -> np.ndarray:
    """bool[k]: whether each row of grids (int[k, cells]) holds every digit 1..N once in each of
    its 3N units. Each cell becomes one bit (digit d: bit d - 1; a value outside 1..N: none), and
    a unit of N cells ORs to all N bits only when its cells hold N different digits."""
    N = n * n
    bits, cells = _digit_bits(N), grids[:, _unit_cells(n)]  # [k, N, 3N]: cell j of unit u
    if grids.dtype != np.uint8:  # the table covers 0..255: other values first to 0 (no bit)
        cells = np.where((cells >= 1) & (cells <= N), cells, 0)
    units = np.bitwise_or.reduce(bits[cells], axis=1)
    return (units == bits[1 : N + 1].sum()).all(axis=1)


@cache
def _digit_bits(N: int) -> np.ndarray:
    """uint[256]: digit d in 1..N -> 1 << (d - 1), any other byte -> 0 (no digit)."""
    dtype = np.uint16 if N <= 16 else np.uint64
    table = np.zeros(256, dtype)
    table[1 : N + 1] = np.left_shift(dtype(1), np.arange(N, dtype=dtype))
    table.setflags(write=False)
    return table


@cache
def _unit_cells(n: int) -> np.ndarray:
    """intp[N, 3N]: column u lists the cells of unit u (rows, then columns, then boxes)."""
    N = n * n
    c = np.arange(N * N).reshape(N, N)
    units = np.concatenate((c, c.T, _boxes(c, n)))
    out = np.ascontiguousarray(units.T)
    out.setflags(write=False)
    return out


def is_valid_solution(solution: np.ndarray, order: int, puzzle: np.ndarray | None = None) -> bool:
    """True if verify_solution finds no fault."""
    return verify_solution(solution, order, puzzle) is None


def conflict_cost(grid: np.ndarray, order: int) -> int:
    """Sirdey's cost: pairs of peer cells (same row, column or box) holding the same digit, d > 0.

    Counted pair by pair over all cells, each pair once even when two cells share both a row
    (or column) and a box.
    """
    return int(np.count_nonzero(np.triu(_same_digit_peers(grid, order), 1)))


def conflicted_cells(grid: np.ndarray, order: int) -> np.ndarray:
    """bool[cells]: the cells (d > 0) whose digit some peer also holds, i.e. whose row, column
    or box holds that digit twice or more (counted a unit and digit: no matrix of pairs)."""
    g, units = _grid_units(grid, order)
    N = int(order) ** 2
    d = np.where(g > 0, g, 0)
    span = max(N, int(d.max(initial=0))) + 1  # a key per (unit, digit)
    clash = np.zeros(g.size, dtype=bool)
    for unit in units:
        key = unit * span + d
        clash |= np.bincount(key, minlength=N * span)[key] > 1
    return clash & (g > 0)


def _grid_units(grid: np.ndarray, order: int) -> tuple[np.ndarray, tuple]:
    """(the grid's digits as int64[cells], (row, column, box) of every cell as int64[cells])."""
    n = int(order)
    N = n * n
    g = np.asarray(grid).ravel().astype(np.int64)
    if g.size != N * N:
        raise ValueError(f"wrong size: {g.size} cells, expected {N * N} ({N}x{N})")
    c = np.arange(N * N)
    r, k = c // N, c % N
    return g, (r, k, (r // n) * n + k // n)


def _same_digit_peers(grid: np.ndarray, order: int) -> np.ndarray:
    """bool[cells, cells]: a and b share a row, column or box and hold the same digit d > 0
    (the diagonal holds each filled cell)."""
    g, (r, k, b) = _grid_units(grid, order)
    peer = (r[:, None] == r[None, :]) | (k[:, None] == k[None, :]) | (b[:, None] == b[None, :])
    same = (g[:, None] == g[None, :]) & (g[:, None] > 0)
    return peer & same
