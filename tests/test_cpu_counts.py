"""The CPU runner's unit counts (COUNTS) against its cell-linear bitboards: same chains."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import load_puzzle, logic_fill, make_batch, run_slice_cpu
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.presets import expand
from cpu_reference.sudoku.schedules import by_name

DATA = Path(__file__).parent / "data"
HEADS = {3: "general_9x9_head.tsv", 4: "general_16x16_head.tsv", 5: "general_25x25_head.tsv"}


def _puzzles(order: int) -> np.ndarray:
    """Two puzzles of the order: the first of the test data's file, empty 4x4 grids for order 2."""
    if order == 2:
        return np.zeros((2, 16), np.uint8)
    return np.stack([p.cells for p in read_puzzles(DATA / HEADS[order])[:2]]).astype(np.uint8)


def _run(batch, model, budgets):
    """Slices of the given plateau budgets with one model's rules, in place."""
    for budget in budgets:
        run_slice_cpu(batch, budget, stop_on_solved=False, model=model)


@pytest.mark.parametrize(
    ("order", "move", "schedule"),
    [
        (2, rules.MOVE_SIRDEY, "sirdey-course"),
        (3, rules.MOVE_CANDIDATE, "sirdey-course:t0=0.34,stall=0,max_plateaus=40"),
        (4, rules.MOVE_SIRDEY, "geometric:t0=0.5,t_final=0.3,ratio=0.99,stall=0"),
        (5, rules.MOVE_CANDIDATE, "candidate-auto"),
        (5, rules.MOVE_CANDIDATE, "geometric:t0=0.4,t_final=0.3,ratio=0.99,stall=0,reheat=0.35"),
    ],
)
def test_counts_and_linear_bitboards_run_the_same_chains(order, move, schedule):
    """Slices of every length from the same batch: grids, best grids, counters, RNG states,
    thresholds and the row-packed boards handed back are equal element for element, over
    fresh trials, reheats and (order 2) solved chains."""
    puzzles = _puzzles(order)
    sched = by_name(expand(schedule, order), order, plateau=30 if order >= 4 else None)
    batches = []
    for _ in range(2):
        batch = make_batch(puzzles, order, sched, cpp=2, seed=11, move=move)
        if move == rules.MOVE_CANDIDATE and order >= 4:  # 9x9's first puzzle falls to deduction
            for p, cells in enumerate(puzzles):
                filled, masks = logic_fill(cells, order)
                load_puzzle(batch, p, filled, batch.rng[2 * p : 2 * p + 2, :2].copy(), masks)
        batches.append(batch)
    _run(batches[0], rules.model(order, move, linear=True), (1, 3, 7, 20))
    _run(batches[1], rules.model(order, move, counts=True), (1, 3, 7, 20))
    a, b = batches
    assert a.ctr[:, rules.C_PROPOSALS].min() > 0
    for name in ("vals", "best_vals", "ctr", "rng", "thr", "boards", "solved"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
