"""The cells a peer mask marks, for the tests that check masks against layout.peer_list."""

from __future__ import annotations

from functools import cache

import numpy as np

from cpu_reference.sudoku.packing import cell_word_bit, packing


@cache
def _spots(order: int) -> tuple[np.ndarray, np.ndarray]:
    """(word, bit as a mask) of every cell in a digit's row-packed bitboard."""
    spots = np.array([cell_word_bit(order, c) for c in range(packing(order).cells)], np.uint64)
    return spots[:, 0].astype(np.int64), np.left_shift(np.uint64(1), spots[:, 1])


def marked_cells(words: np.ndarray, order: int) -> set[int]:
    """The cells whose bit is set in `words`, one digit's row-packed bitboard (WR words)."""
    word_of, bit_of = _spots(order)
    return set(np.flatnonzero(words.astype(np.uint64)[word_of] & bit_of).tolist())
