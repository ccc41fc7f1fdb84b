"""Chains that draw from Philox by proposal index (orders 4 to 6, one-cell moves): which chains
do, and that the CPU runner's batched draws move them as the kernels' one-at-a-time draws do."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from cpu_reference.anneal.philox import counter_states
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import flat_rows, make_batch, run_slice_cpu
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal.measure import never_solving_puzzle

FIELDS = ("ctr", "vals", "boards", "best_vals", "rng", "solved")


def test_generator_follows_order_and_move():
    """Philox for orders 4-6 and every one-cell move; xoroshiro128+ for 4x4, 9x9 and the box
    swap; a batch's RNG rows say which (key and no proposal, or a xoroshiro state)."""
    for n in (2, 3):
        assert rules.generator_name(n, rules.MOVE_FOCUSED) == rules.XOROSHIRO
    for n in (4, 5, 6):
        assert rules.generator_name(n, rules.MOVE_BOX_SWAP) == rules.XOROSHIRO
        for move in (
            rules.MOVE_SIRDEY,
            rules.MOVE_CANDIDATE,
            rules.MOVE_FOCUSED,
            rules.MOVE_FOCUSED_TWO,
        ):
            assert rules.generator_name(n, move) == rules.PHILOX
    puzzle = never_solving_puzzle(4)[None]
    philox = make_batch(puzzle, 4, by_name("auto", 4), 3, seed=9, move=rules.MOVE_FOCUSED)
    assert np.array_equal(philox.rng[:, :2], counter_states(9, 0, 3))
    xoro = make_batch(puzzle, 4, by_name("auto", 4), 3, seed=9, move=rules.MOVE_BOX_SWAP)
    assert not np.array_equal(xoro.rng[:, :2], philox.rng[:, :2])
    assert np.all(xoro.rng[:, 1] != 0)


def test_box_swap_refuses_counter_draws():
    """The box swap shuffles boxes with sequential draws: no counter-based rules for it."""
    with pytest.raises(ValueError, match="one-cell moves"):
        rules.model(4, rules.MOVE_BOX_SWAP, counter=True)


def run_one_thread_kernel_rules(batch, budget: int) -> None:
    """Every chain through the one-thread kernel's rules on the CPU (local-memory layout: one
    byte a cell, row-packed bitboards, flat move lists, each draw computed alone), as
    gpu_anneal.kernels.sudoku's run_chain does for orders 5 and 6."""
    m = rules.model(batch.order, batch.move, table=False, counter=True)
    pk = m.packing
    puzzle = {key: getattr(batch, key) for key in rules.PUZZLE_ARRAYS}
    for key in ("move_cells", "box_cells", "nbox"):
        puzzle[key] = puzzle[key].reshape(-1)
    settings = (*rules.schedule_args(batch.schedule), batch.trial_cap, budget, True)
    rows = flat_rows(batch.boards)
    for g in range(batch.chains):
        vals = batch.vals[g, : pk.cells].copy()
        board = np.zeros(pk.NW + m.focus_words, pk.word_dtype)
        board[: pk.NW] = rows[g, : pk.NW]
        thr = np.zeros(m.thr_rows, np.uint32)
        m.drive_chain(
            np.uint64(g), np.uint64(g // batch.cpp), 0, vals, board, thr, batch.best_vals,
            batch.ctr, batch.rng, batch.solved, batch.exp_table,
            *(puzzle[key] for key in rules.PUZZLE_ARRAYS), settings,
        )  # fmt: skip
        batch.vals[g, : pk.cells] = vals
        rows[g, : pk.NW] = board[: pk.NW]


@pytest.mark.parametrize(("order", "move"), [(4, "sirdey"), (4, "focused-two"), (5, "focused")])
def test_batched_draws_equal_draws_one_at_a_time(order, move):
    """The CPU runner (Philox draws computed 32 at a time, its own board layouts) and the
    one-thread kernel's rules (one draw per move) end every slice in the same state: counters,
    grids, bitboards, best grids, RNG rows; and a chain's RNG row counts its proposals. One
    CPU thread, so that chains run one after another as the emulation runs them."""
    code = rules.move_code(move, order)
    sched = by_name("auto", order, plateau=37)  # 37: plateaus end inside a block of draws
    puzzle = never_solving_puzzle(order)[None]
    cpu = make_batch(puzzle, order, sched, 3, seed=4, trial_cap=3, move=code)
    kern = make_batch(puzzle, order, sched, 3, seed=4, trial_cap=3, move=code)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for budget in (3, 5, 2):
            run_slice_cpu(cpu, budget)
            run_one_thread_kernel_rules(kern, budget)
    finally:
        numba.set_num_threads(threads)
    for key in FIELDS:
        np.testing.assert_array_equal(getattr(kern, key), getattr(cpu, key), err_msg=key)
    assert np.array_equal(cpu.rng[:, 1], cpu.ctr[:, rules.C_PROPOSALS].astype(np.uint64))
    accepted, proposals = cpu.ctr[:, rules.C_ACCEPTED].sum(), cpu.ctr[:, rules.C_PROPOSALS].sum()
    assert 0 < accepted < proposals


def test_another_key_gives_another_chain():
    """The check can fail: the same batch with one chain's key changed ends elsewhere."""
    sched = by_name("auto", 4, plateau=37)
    puzzle = never_solving_puzzle(4)[None]
    a = make_batch(puzzle, 4, sched, 2, seed=4, trial_cap=3, move=rules.MOVE_FOCUSED)
    b = make_batch(puzzle, 4, sched, 2, seed=4, trial_cap=3, move=rules.MOVE_FOCUSED)
    b.rng[1, 0] ^= np.uint64(1)
    run_slice_cpu(a, 4)
    run_slice_cpu(b, 4)
    assert np.array_equal(a.vals[0], b.vals[0]) and not np.array_equal(a.vals[1], b.vals[1])
