"""How an annealing chain packs its grid: row-packed bitboard words and packed cell values.

Glossary (as in layout.py, plus):
    R       whole rows per bitboard word: min(B // N, N), B = 32 bits for N <= 32, else 64
    WR      words per digit's bitboard, N / R (R divides N for every order 2..8)
    NW      bitboard words of a chain, N * WR (digit dd = d - 1 owns words dd*WR .. dd*WR+WR-1)
    CPW     cells per value word: 8 (4 bits each) for N <= 16, else 4 (8 bits each)
    VW      value words of a chain, ceil(cells / CPW)
    dd      a digit stored 0-based, dd = d - 1
    lane    the chain's column in a (words, lanes) state array: threadIdx.x on the GPU, 0 on the CPU

Bitboard word w of digit dd holds rows w*R .. w*R+R-1, each row at bit (row mod R) * N:

    9x9 (R = 3, WR = 3, 27 of 32 bits)         16x16 (R = 2, WR = 8)      25x25 (R = 1, WR = 25)
    bit 31..27 | 26 .. 18 | 17 .. 9 | 8 .. 0    31 .. 16 | 15 .. 0         24 .. 0
      unused   |  row 3w+2 | row 3w+1| row 3w    row 2w+1 | row 2w          row w

From 36x36 up a row takes one uint64 word (R = 1, WR = N); at 64x64 it fills the word:

    36x36 (WR = 36)             49x49 (WR = 49)             64x64 (WR = 64)
    63 .. 36 | 35 .. 0          63 .. 49 | 48 .. 0          63 ............ 0
     unused  |  row w            unused  |  row w                 row w

so the row mask 2**N - 1 is all 64 bits at 64x64 (computed in Python integers, never as 1 << 64
in a kernel).

so the peers of cell (r, k) are masks computed from r and k, never loaded:

    column  COLPAT << k            COLPAT = bit 0 of every row of a word (1 + 2**N + 2**2N ...)
    row     (2**N - 1) << (r mod R) N
    box     (2**n - 1) << n (k // n), repeated on each row of the box band: inside the cell's own
            word when R >= n (orders 2 and 3), else on whole words b0 .. b1 - 1 (orders 4 to 6)

and conflicts(dd, c) = sum over w of popcount(board[dd*WR + w] & mask_w(c)), the cell's own bit
cleared from its own word's mask.

The CPU runner keeps its chains' bitboards cell-linear instead (tables, not computed masks):

    LWR = ceil(cells / 64) uint64 words a digit, cell c at bit c mod 64 of word c // 64
    9x9: 2 words (81 bits)    16x16: 4    25x25: 10    36x36: 21

    word 1 of digit dd: bit 63 ...... 17 | 16 ...... 0     word 0: bit 63 ...... 0
                            unused       | cells 80..64            cells 63..0

which takes fewer words a digit than whole rows per word (9x9: 2 against 3), so fewer loads
and popcounts a move; run_slice_cpu converts the batch's row-packed boards to it and back.

On orders 5 and up the CPU runner's one-cell moves count instead of masking (COUNTS): a byte a
(unit, digit), units being the N rows, N columns and N boxes and the n N row segments and n N
column segments (a row or column inside one box), NU = 3N + 2nN of them:

    count[u N + dd]   cells of unit u holding dd            u:  0 .. N-1      rows
                                                                N .. 2N-1     columns
    conflicts(dd, c) = row + column + box                       2N .. 3N-1    boxes
                       - row segment - column segment           3N + r n + k // n
                       (- 1 when c holds dd itself)             3N + nN + k n + r // n

since a peer sharing the cell's row and box is counted in both and once in its row segment (the
same for columns): five byte loads a digit, whatever the order, against LWR words and popcounts.
The counts follow from the values alone, so run_slice_cpu builds them from each chain's grid and
rebuilds the batch's row-packed boards from the grid after the slice.

Cell values, 4 bits each for N <= 16 (8 bits for larger grids), stored 0-based:

    value word i:  bits 31..28 | 27..24 | ... | 3..0
                   cell 8i+7   | 8i+6   | ... | 8i
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from cpu_reference.sudoku.layout import layout


@dataclass(frozen=True)
class Packing:
    """Packing constants of one order."""

    n: int
    N: int
    cells: int
    word_bits: int
    R: int
    WR: int
    NW: int
    value_bits: int
    CPW: int
    VW: int

    @property
    def word_dtype(self) -> type:
        """NumPy type of a bitboard word."""
        return np.uint32 if self.word_bits == 32 else np.uint64

    @property
    def colpat(self) -> int:
        """Bit 0 of every row of a word."""
        return sum(1 << (j * self.N) for j in range(self.R))

    @property
    def bandpat(self) -> int:
        """Bit 0 of each of the n rows of a box band (used when R >= n)."""
        return sum(1 << (j * self.N) for j in range(self.n))


@cache
def packing(n: int) -> Packing:
    """Packing constants of order n (2..8)."""
    lay = layout(n)
    N = lay.N
    word_bits = 32 if N <= 32 else 64
    R = min(word_bits // N, N)
    value_bits = 4 if N <= 16 else 8
    cpw = 32 // value_bits
    return Packing(
        n=n, N=N, cells=lay.cells, word_bits=word_bits, R=R, WR=N // R, NW=N * (N // R),
        value_bits=value_bits, CPW=cpw, VW=-(-lay.cells // cpw),
    )  # fmt: skip


def cell_word_bit(order: int, c: int) -> tuple[int, int]:
    """(word within a digit's bitboard, bit) of cell c."""
    pk = packing(order)
    r, k = divmod(c, pk.N)
    return r // pk.R, (r % pk.R) * pk.N + k


def pack_board(cells: np.ndarray, order: int) -> np.ndarray:
    """Row-packed bitboards (word_dtype[NW]) of the nonzero cells of a grid (uint8[cells])."""
    pk = packing(order)
    board = np.zeros(pk.NW, dtype=pk.word_dtype)
    for c in np.flatnonzero(cells):
        w, bit = cell_word_bit(order, int(c))
        board[(int(cells[c]) - 1) * pk.WR + w] |= pk.word_dtype(1) << pk.word_dtype(bit)
    return board


def pack_values(cells: np.ndarray, order: int) -> np.ndarray:
    """uint32[VW]: cells (1-based digits; 0 is stored as digit 1) packed 0-based."""
    pk = packing(order)
    words = np.zeros(pk.VW, dtype=np.uint32)
    mask = (1 << pk.value_bits) - 1
    for c, d in enumerate(np.asarray(cells).tolist()):
        stored = max(int(d) - 1, 0) & mask
        words[c // pk.CPW] |= np.uint32(stored << (pk.value_bits * (c % pk.CPW)))
    return words


def unpack_values(words: np.ndarray, order: int) -> np.ndarray:
    """uint8[cells]: the 1-based digits packed in value words (inverse of pack_values)."""
    pk = packing(order)
    words = np.asarray(words, dtype=np.uint32)[: pk.VW]
    shifts = (np.arange(pk.cells) % pk.CPW) * pk.value_bits
    stored = (words[np.arange(pk.cells) // pk.CPW] >> shifts.astype(np.uint32)) & (
        (1 << pk.value_bits) - 1
    )
    return (stored + 1).astype(np.uint8)


def unpack_board(board: np.ndarray, order: int) -> np.ndarray:
    """bool[N, cells]: which cells each digit's row-packed bitboard holds (for tests)."""
    pk = packing(order)
    out = np.zeros((pk.N, pk.cells), dtype=bool)
    for c in range(pk.cells):
        w, bit = cell_word_bit(order, c)
        for dd in range(pk.N):
            out[dd, c] = bool((int(board[dd * pk.WR + w]) >> bit) & 1)
    return out


@cache
def peer_tables(order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(peers word_dtype[cells * WR], word uint32[cells], bit word_dtype[cells]): each cell's
    row-packed peer masks, the word holding the cell and its bit there (read-only)."""
    pk = packing(order)
    return _mask_tables(order, pk.WR, pk.word_dtype, lambda c: cell_word_bit(order, c))


def _mask_tables(order, words_per_digit, dtype, word_bit):
    """(peers, word, bit) tables of a bitboard layout that puts cell c at word_bit(c) = (word
    within a digit's bitboard, bit), read-only."""
    lay = layout(order)
    peers = np.zeros(lay.cells * words_per_digit, dtype=dtype)
    words = np.zeros(lay.cells, dtype=np.uint32)
    bits = np.zeros(lay.cells, dtype=dtype)
    one = dtype(1)
    for c in range(lay.cells):
        w, bit = word_bit(c)
        words[c] = w
        bits[c] = one << dtype(bit)
        for q in lay.peer_list[c]:
            qw, qbit = word_bit(int(q))
            peers[c * words_per_digit + qw] |= one << dtype(qbit)
    for array in (peers, words, bits):
        array.setflags(write=False)
    return peers, words, bits


def linear_words(order: int) -> int:
    """uint64 words of one digit's cell-linear bitboard: ceil(cells / 64)."""
    return -(-packing(order).cells // 64)


@cache
def linear_peer_tables(order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """peer_tables for cell-linear bitboards: (peers uint64[cells * LWR], word uint32[cells],
    bit uint64[cells]), cell c at bit c mod 64 of word c // 64 (read-only)."""
    return _mask_tables(order, linear_words(order), np.uint64, lambda c: divmod(c, 64))


# numba keeps a global array inside cached machine code up to this many bytes; code that reads
# a larger one holds its address instead and is compiled again in every process
# (numba.core.base.BaseContext.make_constant_array)
FROZEN_ARRAY_BYTES = 10**6


def table_parts(table: np.ndarray, words_per_cell: int) -> tuple[tuple[np.ndarray, ...], int]:
    """(parts, cells a part): a peer table (words_per_cell words a cell, cell after cell) cut
    into consecutive parts of whole cells, each at most FROZEN_ARRAY_BYTES, so that numba
    caches the code that reads them; cell c's words are at row c - p * cells of part
    p = c // cells (one part, the table itself, where it fits). Read-only."""
    row_bytes = words_per_cell * table.itemsize
    cells = max(1, FROZEN_ARRAY_BYTES // row_bytes)
    if table.nbytes <= FROZEN_ARRAY_BYTES:
        return (table,), table.size // words_per_cell
    step = cells * words_per_cell
    parts = tuple(table[i : i + step].copy() for i in range(0, table.size, step))
    for part in parts:
        part.setflags(write=False)
    return parts, cells


def count_units(order: int) -> int:
    """NU: units a COUNTS table keeps for each digit (3N + 2nN, see the module docstring)."""
    n = packing(order).n
    return 3 * n * n + 2 * n * n * n


@cache
def cell_count_units(order: int) -> np.ndarray:
    """int32[cells, 5]: u N for the row, column, box, row segment and column segment of each
    cell (COUNTS: count[u N + dd] is the unit's count of digit dd; read-only)."""
    n = packing(order).n
    N = n * n
    out = np.zeros((N * N, 5), dtype=np.int32)
    for c in range(N * N):
        r, k = divmod(c, N)
        units = (r, N + k, 2 * N + (r // n) * n + k // n, 3 * N + r * n + k // n,
                 3 * N + n * N + k * n + r // n)  # fmt: skip
        out[c] = [u * N for u in units]
    out.setflags(write=False)
    return out


@cache
def row_bit_cells(order: int) -> np.ndarray:
    """int32[WR * word_bits]: the cell at bit b of word w of a digit's row-packed bitboard
    (element w * word_bits + b), -1 for a bit no cell uses (read-only)."""
    pk = packing(order)
    out = np.full(pk.WR * pk.word_bits, -1, dtype=np.int32)
    for c in range(pk.cells):
        w, bit = cell_word_bit(order, c)
        out[w * pk.word_bits + bit] = c
    out.setflags(write=False)
    return out
