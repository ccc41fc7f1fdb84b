"""The focused moves: the conflict set, kept move by move, equals a recount from the grid; the
two-choice move takes the better of its two digits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cpu_reference.anneal.fixed_point import beta_fixed
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import logic_fill, make_batch, run_slice_cpu
from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.packing import packing
from cpu_reference.sudoku.schedules import by_name
from cpu_reference.sudoku.verify import conflicted_cells

DATA = Path(__file__).parent / "data"
FOCUSED = rules.MOVE_FOCUSED
TWO = rules.MOVE_FOCUSED_TWO


def _puzzles(name: str, order: int, count: int) -> list[np.ndarray]:
    out = []
    for puzzle in iter_puzzles(DATA / name, order=order):
        out.append(puzzle.cells)
        if len(out) == count:
            break
    return out


def _cells_of(words: np.ndarray, cell_bits, cells: int) -> np.ndarray:
    """bool[cells] of a bitboard in the model's layout."""
    out = np.zeros(cells, bool)
    for c in range(cells):
        w, bit = cell_bits(c)
        out[c] = (int(words[w]) >> bit) & 1 == 1
    return out


MODELS = {
    "cpu linear": dict(linear=True),
    "row-packed tables": dict(),
    "computed masks": dict(table=False),
}


# Each layout with each order's default move in CI (focused-two on 9x9, focused from 16x16);
# the other pairs, the same conflict-set upkeep, in the slow run.
SLOW = pytest.mark.slow
CASES = [
    *[(kind, 3, "top95_head.txt", TWO) for kind in MODELS],
    *[(kind, 4, "general_16x16_head.tsv", FOCUSED) for kind in MODELS],
    *[pytest.param(kind, 3, "top95_head.txt", FOCUSED, marks=SLOW) for kind in MODELS],
    pytest.param("computed masks", 4, "general_16x16_head.tsv", TWO, marks=SLOW),
]


@pytest.mark.parametrize(("kind", "order", "name", "move"), CASES)
def test_conflict_set_kept_by_each_move_equals_a_recount(kind, order, name, move):
    m = rules.model(order, move, **MODELS[kind])
    linear = MODELS[kind].get("linear", False)
    pk = packing(order)
    wr = pk.cells // 64 + (pk.cells % 64 > 0) if linear else pk.WR
    nw = pk.N * wr

    def cell_bits(c):
        if linear:
            return c // 64, c % 64
        return c // (pk.N * pk.R), c % (pk.N * pk.R)

    sched = by_name("sirdey-course", order, t0=0.45, stall=0, max_plateaus=10**6)
    checked = 0
    for puzzle in _puzzles(name, order, 2):
        batch = make_batch(puzzle[None], order, sched, cpp=1, seed=7, move=move)
        run_slice_cpu(batch, 1)  # a trial started by the CPU runner
        flat = not MODELS[kind].get("table", True)  # computed masks take the lists flat
        move_cells = batch.move_cells.ravel() if flat else batch.move_cells[0]
        box_cells = batch.box_cells.ravel() if flat else batch.box_cells[0]
        nbox = batch.nbox.ravel() if flat else batch.nbox[0]
        vals = batch.vals[0].copy()
        board = np.zeros(nw + m.focus_words, dtype=np.uint64 if linear else pk.word_dtype)
        if linear:
            m.rows_to_linear(batch.boards[0], board)
        else:
            board[:nw] = batch.boards[0, :nw]
        movable = np.zeros(pk.cells, bool)
        movable[batch.move_cells[0, : batch.nmove[0]]] = True
        m.focus_init(vals, board, 0, move_cells, 0, batch.nmove[0])
        assert np.array_equal(_cells_of(board[nw + wr :], cell_bits, pk.cells), movable)
        thr = np.zeros(m.thr_rows, np.uint32)
        m.fill_thresholds(thr, 0, np.uint64(beta_fixed(1 / 0.45)), batch.exp_table)
        cost = int(batch.ctr[0, rules.C_COST])
        s0, s1 = batch.rng[0, 0], batch.rng[0, 1]
        accepted = 0
        for _ in range(30):
            if cost == 0:
                break
            out = m.plateau(
                vals, board, thr, 0, move_cells, 0, batch.nmove[0], batch.cand[0],
                batch.ncand[0], box_cells, nbox, 0, pk.cells, cost, cost,
                s0, s1,
            )  # fmt: skip
            cost, s0, s1, nconf = int(out[0]), np.uint64(out[4]), np.uint64(out[5]), int(out[8])
            accepted += int(out[3])
            kept = board[nw : nw + wr].copy()
            grid = vals[: pk.cells]
            expected = conflicted_cells(grid, order) & movable
            assert np.array_equal(_cells_of(kept, cell_bits, pk.cells), expected)
            assert nconf == int(expected.sum()) == int(m.focus_count(board, 0))
            m.focus_init(vals, board, 0, move_cells, 0, batch.nmove[0])
            assert np.array_equal(board[nw : nw + wr], kept)
            assert cost == int(m.full_cost(vals, board, 0))
            checked += 1
        assert accepted > 100
    assert checked >= 2


@pytest.mark.parametrize("move", [FOCUSED, TWO])
def test_focused_cells_come_from_the_conflict_set_and_givens_stay(move):
    """A chain that only ever moves cells in conflict leaves every given and, on a puzzle whose
    deduction fixes some cells, every fixed cell as it was."""
    puzzle = _puzzles("top95_head.txt", 3, 1)[0]
    filled, masks = logic_fill(puzzle, 3)
    sched = by_name("sirdey-course", 3, t0=0.45, stall=0, max_plateaus=50)
    batch = make_batch(filled[None], 3, sched, cpp=4, seed=3, move=move)
    run_slice_cpu(batch, 60)
    for g in range(4):
        grid = batch.grid(g)
        assert np.array_equal(grid[filled > 0], filled[filled > 0])
        assert batch.ctr[g, rules.C_PROPOSALS] > 0


def test_the_cpu_runner_uses_bitboards_for_the_focused_move_at_every_order():
    with pytest.raises(ValueError, match="focused"):
        rules.model(5, FOCUSED, counts=True)
    assert rules.cpu_model(5, FOCUSED).focus_words == 2 * 10
    assert rules.cpu_model(5, rules.MOVE_CANDIDATE).focus_words == 0


def _drawn_digit(field: int, cands: np.ndarray, old: int) -> int:
    """The 0-based digit a 12-bit field draws among the candidates other than old."""
    j = (field * (len(cands) - 1)) >> 12
    new = int(cands[j]) - 1
    return int(cands[j + 1]) - 1 if new >= old else new


def test_two_choice_takes_the_digit_with_fewer_conflicts_and_clears_its_bits():
    """On a trial's grid, for every free cell with three candidates or more: the second digit is
    the one the high word's low 12 bits draw; it replaces the first only when fewer peers hold
    it; the acceptance word loses those 12 bits. The focused move keeps its draw unchanged."""
    two, one = rules.model(3, TWO), rules.model(3, FOCUSED)
    lay = rules.layout(3)
    puzzle = _puzzles("top95_head.txt", 3, 1)[0]
    sched = by_name("sirdey-course", 3, t0=0.45, stall=0, max_plateaus=10)
    batch = make_batch(puzzle[None], 3, sched, cpp=1, seed=5, move=TWO)
    run_slice_cpu(batch, 1)
    grid = batch.grid(0).astype(int) - 1
    board = batch.boards[0].copy()
    kept = replaced = 0
    for c in batch.move_cells[0, : batch.nmove[0]]:
        cands = batch.cand[0, c, : batch.ncand[0, c]]
        if len(cands) < 3:
            continue
        old = int(grid[c])
        held = [int(np.sum(grid[lay.peer_list[c]] == d)) for d in range(9)]
        for field in range(0, 4096, 211):
            new = _drawn_digit((field * 7 + 1000) & 0xFFF, cands, old)
            hi = np.uint32((0xABCDE << 12) | field)
            args = (board, 0, np.uint32(c), np.uint32(old), np.uint32(new), np.uint32(held[new]),
                    batch.cand[0], batch.ncand[0])  # fmt: skip
            got = two.second_choice(hi, *args)
            other = _drawn_digit(field, cands, old)
            better = held[other] < held[new]
            assert int(got[0]) == (other if better else new)
            assert int(got[1]) == min(held[other], held[new])
            assert int(got[2]) == 0xABCDE << 12
            kept += not better
            replaced += better
            same = one.second_choice(hi, *args)
            assert (int(same[0]), int(same[1]), int(same[2])) == (new, held[new], int(hi))
    assert kept > 20 and replaced > 20
