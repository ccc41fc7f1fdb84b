"""Row-packed bitboards: computed peer masks equal the table and the layout's peer lists."""

from __future__ import annotations

import numpy as np
import pytest

from cpu_reference.sudoku import rules as sa
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import (
    cell_word_bit,
    pack_board,
    pack_values,
    packing,
    peer_tables,
    unpack_board,
    unpack_values,
)


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
def test_computed_masks_equal_table_and_peer_lists(order):
    """For every cell: the kernels' computed masks, the CPU's table and layout.peer_list agree."""
    pk = packing(order)
    computed = sa.model(order, table=False).peer_words
    tabled = sa.model(order, table=True).peer_words
    table, words, bits = peer_tables(order)
    lay = layout(order)
    a = np.zeros(pk.WR, dtype=pk.word_dtype)
    b = np.zeros(pk.WR, dtype=pk.word_dtype)
    for c in range(pk.cells):
        wa, bit_a = computed(c, a)
        wb, bit_b = tabled(c, b)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, table[c * pk.WR : (c + 1) * pk.WR])
        assert (wa, int(bit_a)) == (wb, int(bit_b)) == (words[c], int(bits[c]))
        marked = unpack_board(np.tile(a, pk.N), order)[0]
        assert set(np.flatnonzero(marked).tolist()) == set(lay.peer_list[c].tolist())


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
def test_pack_round_trips(order):
    """Values and bitboards pack and unpack to the same grid; every cell has one word and bit."""
    pk = packing(order)
    rng = np.random.default_rng(order)
    grid = rng.integers(1, pk.N + 1, pk.cells).astype(np.uint8)
    np.testing.assert_array_equal(unpack_values(pack_values(grid, order), order), grid)
    board = unpack_board(pack_board(grid, order), order)
    assert board.sum() == pk.cells
    for c in range(pk.cells):
        assert board[grid[c] - 1, c]
    spots = {cell_word_bit(order, c) for c in range(pk.cells)}
    assert len(spots) == pk.cells and max(bit for _, bit in spots) < pk.word_bits
