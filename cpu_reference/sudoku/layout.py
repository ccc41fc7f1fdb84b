"""Geometry of a Sudoku of order n: cells, units, peers, and the bitboard layout.

Glossary of index names (used in every Sudoku module):
    n       order: box side (2 to 8)
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    c       cell index, row-major: c = r * N + k
    r, k    row and column of a cell (k for "kolumn": c is taken)
    b       box index, b = (r // n) * n + k // n
    u       unit index: rows 0..N-1, columns N..2N-1, boxes 2N..3N-1
    d       digit, 1..N; 0 means blank
    w       word index into a bitboard, w = c >> 6
    W       words per bitboard, ceil(cells / 64)

Bitboards: one per digit, a set of cells as W little-endian 64-bit words.

    word w:   bit 63 ............ bit 1  bit 0
              cell 64w+63 ....... 64w+1  64w+0

    9x9 (81 cells, W = 2):
    word 0 = cells  0..63  (rows 0-6 and the first column of row 7)
    word 1 = cells 64..80  (bits 0-16), bits 17-63 always zero

A cell's peers mask is the bitboard of the 3(N-1) - 2(n-1) cells that share its row, column or
box, the cell itself excluded (20 for 9x9). The conflicts of digit d at cell c are
popcount(board[d] & peers[c]) summed over the W words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

MIN_ORDER = 2
MAX_ORDER = 8


@dataclass(frozen=True)
class Layout:
    """Lookup tables of one order n, shared by the solvers, the annealer and the kernels."""

    n: int
    N: int
    cells: int
    W: int
    peers: np.ndarray  # uint64[cells, W]: peers mask of each cell
    units: np.ndarray  # int32[3N, N]: cells of each unit
    cell_units: np.ndarray  # int32[cells, 3]: row, column and box unit of each cell
    peer_list: np.ndarray  # int32[cells, P]: the peers of each cell, P = 3(N-1) - 2(n-1)

    @property
    def peer_count(self) -> int:
        """Number of peers of every cell: 3(N - 1) - 2(n - 1)."""
        return self.peer_list.shape[1]

    @property
    def max_cost(self) -> int:
        """e_P, the largest conflict-pair cost: cells * peers / 2 (810 for 9x9)."""
        return self.cells * self.peer_count // 2


@cache
def layout(n: int) -> Layout:
    """Tables for order n (2 <= n <= 8); cached, arrays read-only."""
    if not MIN_ORDER <= n <= MAX_ORDER:
        raise ValueError(f"order {n} is outside {MIN_ORDER}..{MAX_ORDER}")
    N = n * n
    cells = N * N
    W = (cells + 63) // 64
    units = np.zeros((3 * N, N), dtype=np.int32)
    for i in range(N):
        units[i] = [i * N + k for k in range(N)]
        units[N + i] = [r * N + i for r in range(N)]
        br, bk = (i // n) * n, (i % n) * n
        units[2 * N + i] = [(br + a) * N + bk + b for a in range(n) for b in range(n)]
    cell_units = np.zeros((cells, 3), dtype=np.int32)
    for c in range(cells):
        r, k = divmod(c, N)
        cell_units[c] = (r, N + k, 2 * N + (r // n) * n + k // n)
    peer_count = 3 * (N - 1) - 2 * (n - 1)
    peers = np.zeros((cells, W), dtype=np.uint64)
    peer_list = np.zeros((cells, peer_count), dtype=np.int32)
    for c in range(cells):
        peer_list[c] = sorted(set(units[cell_units[c]].ravel().tolist()) - {c})
    rows = np.repeat(np.arange(cells), peer_count)  # one OR a (cell, peer), in one call
    bits = np.left_shift(np.uint64(1), (peer_list.ravel() & 63).astype(np.uint64))
    np.bitwise_or.at(peers, (rows, peer_list.ravel() >> 6), bits)
    for a in (peers, units, cell_units, peer_list):
        a.setflags(write=False)
    return Layout(n, N, cells, W, peers, units, cell_units, peer_list)
