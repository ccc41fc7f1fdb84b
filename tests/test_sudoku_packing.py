"""Row-packed bitboards: computed peer masks equal the table and the layout's peer lists."""

from __future__ import annotations

import numpy as np
import pytest
from peer_masks import marked_cells

from cpu_reference.sudoku import rules
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import (
    cell_word_bit,
    count_units,
    linear_peer_tables,
    linear_words,
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
    computed = rules.model(order, table=False).peer_words
    tabled = rules.model(order, table=True).peer_words
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
        assert marked_cells(a, order) == set(lay.peer_list[c].tolist())


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


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
def test_linear_bitboards_round_trip_and_count_the_same_conflicts(order):
    """The CPU runner's cell-linear bitboards: the conversion from the batch's row-packed
    boards and back is exact (a random grid, and a board of random bits on real cells), each
    cell's linear peer mask holds exactly its peers, and the linear model counts the same
    conflicts as the row-packed one for every cell and digit."""
    pk = packing(order)
    lwr = linear_words(order)
    lay = layout(order)
    rows_model = rules.model(order)
    lin = rules.model(order, linear=True)
    peers, words, bits = linear_peer_tables(order)
    for c in (0, pk.cells // 2, pk.cells - 1):
        mask = peers[c * lwr : (c + 1) * lwr]
        marked = [q for q in range(pk.cells) if int(mask[q // 64]) >> (q % 64) & 1]
        assert marked == sorted(lay.peer_list[c].tolist())
        assert words[c] == c // 64 and int(bits[c]) == 1 << (c % 64)
    rng = np.random.default_rng(order)
    grid = rng.integers(1, pk.N + 1, pk.cells).astype(np.uint8)
    rows = pack_board(grid, order)
    noise = unpack_board(rows, order) ^ (rng.random((pk.N, pk.cells)) < 0.3)
    for board_rows in (rows, _pack_bool(noise, order)):
        linear = np.zeros(pk.N * lwr, np.uint64)
        lin.rows_to_linear(board_rows, linear)
        back = np.zeros(pk.NW, pk.word_dtype)
        lin.linear_to_rows(linear, back)
        np.testing.assert_array_equal(back, board_rows)
        cells = rng.choice(pk.cells, size=min(40, pk.cells), replace=False)
        for c in cells.tolist():
            for dd in (0, pk.N // 2, pk.N - 1):
                want = rows_model.conflicts_at(board_rows, 0, np.uint32(dd), np.uint32(c))
                got = lin.conflicts_at(linear, 0, np.uint32(dd), np.uint32(c))
                assert got == want


def _pack_bool(marks: np.ndarray, order: int) -> np.ndarray:
    """Row-packed bitboards of bool[N, cells] marks (any number of digits a cell)."""
    pk = packing(order)
    board = np.zeros(pk.NW, dtype=pk.word_dtype)
    for dd, c in zip(*np.nonzero(marks), strict=True):
        w, bit = cell_word_bit(order, int(c))
        board[int(dd) * pk.WR + w] |= pk.word_dtype(1) << pk.word_dtype(bit)
    return board


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
def test_unit_counts_count_the_same_conflicts(order):
    """The CPU runner's unit counts (COUNTS): five bytes a digit give the conflicts the
    row-packed bitboards give for every sampled cell and digit (the cell's own digit counted
    once, as the move loop takes it away), and the bitboards rebuilt from the grid are the
    packed ones."""
    pk = packing(order)
    rows_model = rules.model(order)
    counting = rules.model(order, rules.MOVE_CANDIDATE, counts=True)
    rng = np.random.default_rng(order + 10)
    grid = rng.integers(1, pk.N + 1, pk.cells).astype(np.uint8)
    rows = pack_board(grid, order)
    table = np.zeros(count_units(order) * pk.N, np.uint8)
    counting.counts_from_values(grid, table)
    assert int(table.sum()) == 5 * pk.cells
    rebuilt = np.full(pk.NW, 7, pk.word_dtype)
    counting.rows_from_values(grid, rebuilt)
    np.testing.assert_array_equal(rebuilt, rows)
    for c in rng.choice(pk.cells, size=min(60, pk.cells), replace=False).tolist():
        for dd in {0, pk.N // 2, pk.N - 1, int(grid[c]) - 1}:
            want = rows_model.conflicts_at(rows, 0, np.uint32(dd), np.uint32(c))
            own = int(grid[c]) - 1 == dd
            assert counting.unit_count(table, np.uint32(c), np.uint32(dd)) - own == want


def test_counts_model_is_for_the_cpu_runners_one_cell_moves():
    """COUNTS refuses the box swap and the kernels' variants (lanes, computed masks)."""
    for kwargs in ({"linear": True}, {"table": False}, {"lanes": 32}):
        with pytest.raises(ValueError, match="counts"):
            rules.model(5, rules.MOVE_CANDIDATE, counts=True, **kwargs)
    with pytest.raises(ValueError, match="counts"):
        rules.model(5, rules.MOVE_BOX_SWAP, counts=True)
    assert rules.cpu_model(5, rules.MOVE_CANDIDATE).counts_from_values is not None
