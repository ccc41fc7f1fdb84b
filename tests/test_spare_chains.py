"""Spare chains: once the input is exhausted, slots that fall empty take more chains of the
puzzles still running (gpu_anneal.sudoku_solver, on CUDA by default); each such chain draws a
stream of its own that replays alone, and a puzzle's slots report as one result."""

from __future__ import annotations

import numpy as np
import pytest

from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, puzzle_tables
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal import api, pool_status
from gpu_anneal.runners import CpuRunner
from gpu_anneal.sudoku_solver import (
    SPARE_STRIDE,
    merged_rows,
    puzzle_of_stream,
    replay_chain,
    solve_stream,
)

EASY_4X4 = "1...........4..."
# 9x9 without a solution (a given of forum_hardest's first puzzle changed; no two givens clash
# and every empty cell keeps a candidate): its chains anneal until the time limit
NO_SOLUTION = "85...14..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."


def cells(text: str) -> np.ndarray:
    """A puzzle's cells (0 blank) from its one-line text."""
    return np.array([0 if ch == "." else int(ch) for ch in text], np.uint8)


@pytest.mark.parametrize(("order", "text", "move"), [
    (2, EASY_4X4, "sirdey"),
    (3, "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
     "focused-two"),
])  # fmt: skip
def test_a_spare_slots_chain_replays_alone(order, text, move):
    """A slot loaded with spare streams (m * 2**40 + q * cpp + i) runs the chains that
    replay_chain re-runs alone from the stream: same grid, trials and proposals."""
    puzzle, cpp, seed = cells(text), 2, 7
    code = rules.move_code(move, order)
    sched = by_name("sirdey-course", order)
    batch = make_batch(puzzle[None], order, sched, cpp, seed, move=code)
    runner = CpuRunner(batch, seed)
    first = 3 * SPARE_STRIDE + 5 * cpp
    runner.load(np.array([0]), puzzle_tables(puzzle[None], order, code), np.array([first]))
    while batch.ctr[:, rules.C_STATUS].tolist().count(rules.RUNNING) == cpp:
        runner.run(64)
    row = runner.status()[0]
    assert row[pool_status.S_SOLVED] > 0
    chain = first + int(row[pool_status.S_PICK])
    again = replay_chain(puzzle, order, chain, chains=cpp, seed=seed, move=move)
    assert again.solved
    assert np.array_equal(again.solution, batch.best_vals[row[pool_status.S_PICK], : order**4])
    assert again.extra["chain_trials"] == row[pool_status.S_PICK_TRIALS]
    assert again.extra["chain_proposals"] == row[pool_status.S_PICK_PROPOSALS]
    assert puzzle_of_stream(chain, cpp) == 5


def test_replay_finds_the_puzzle_of_a_spare_stream():
    """api.replay takes a spare chain's stream to its puzzle (stream mod 2**40 over chains):
    the second puzzle here, whose spare chain then solves it."""
    text = "..3.4.........2.\n" + EASY_4X4 + "\n"
    chain = 2 * SPARE_STRIDE + 1 * 3 + 2  # the second spare slot of puzzle 1, chain 2
    again = api.replay(text, chain, chains=3, seed=4)
    assert again.index == 1 and again.solved
    assert again.params.replay_chain == chain
    with pytest.raises(InputError, match="no puzzle 2"):
        api.replay(text, SPARE_STRIDE + 2 * 3, chains=3, seed=4)


def test_merged_rows_sum_counts_and_report_the_fewest_proposal_solve():
    """Slots 0 (lead) and 2 and 3 (spare) of one puzzle, slot 1 alone: counts summed over the
    started slots, the reported chain that of the solved slot with the fewest proposals, a
    spare slot that never started ignored."""
    S = pool_status
    rows = np.zeros((4, S.N_STATS), np.int64)
    rows[:, S.S_PROPOSALS] = [100, 7, 40, 999]
    rows[:, S.S_TRIALS] = [3, 1, 2, 9]
    rows[:, S.S_SOLVED] = [1, 0, 1, 1]
    rows[:, S.S_PICK_PROPOSALS] = [90, 7, 30, 5]
    rows[:, S.S_PICK] = [0, 1, 1, 0]
    rows[:, S.S_PICK_COST] = [0, 4, 0, 0]
    lead = np.array([0, 1, 0, 0])
    started = np.array([True, True, True, False])
    merged, pick, spares = merged_rows(rows, lead, started)
    assert pick.tolist() == [2, 1] and spares.tolist() == [1, 0]
    assert merged[0, S.S_PROPOSALS] == 140 and merged[0, S.S_TRIALS] == 5
    assert merged[0, S.S_SOLVED] == 2 and merged[0, S.S_PICK_PROPOSALS] == 30
    assert merged[1].tolist() == rows[1].tolist()
    rows[2, S.S_RUNNING] = 3  # slot 2 still runs chains that may beat its solve: slot 0 reports
    merged, pick, spares = merged_rows(rows, lead, started)
    assert pick.tolist() == [0, 1] and merged[0, S.S_RUNNING] == 3
    assert merged[0, S.S_PICK_PROPOSALS] == 90


def run_pair(**options) -> dict:
    """An easy 9x9 and one without a solution, two slots of 2 chains, 2 s each at most (the easy
    one takes milliseconds; the limit leaves room for a loaded machine), the exact search's
    proof of no solution held off so that the second runs to its limit: {index: result}."""
    from gpu_anneal import sudoku_solver

    puzzles = [cells(".2" + "." * 79), cells(NO_SOLUTION)]
    proof_after, sudoku_solver.PROOF_AFTER = sudoku_solver.PROOF_AFTER, float("inf")
    try:
        stream = solve_stream(
            puzzles, 3, slots=2, chains=2, seed=3, time_limit=2.0, backend="cpu",
            slice_seconds=0.02, **options,
        )  # fmt: skip
        return {r.index: r for r in stream}
    finally:
        sudoku_solver.PROOF_AFTER = proof_after


def test_spare_chains_go_to_the_puzzle_still_running():
    """The easy puzzle leaves its slot; the input is exhausted, so the slot takes 2 more chains
    of the puzzle without a solution, which reports the counts of both slots as one result."""
    results = run_pair(spare_chains=True)
    assert sorted(results) == [0, 1]
    assert results[0].solved and results[0].extra.get("spare_chains", 0) == 0
    stuck = results[1]
    assert not stuck.solved and stuck.extra.get("spare_chains", 0) == 2 and stuck.chains == 2
    assert stuck.trials >= 4  # every chain of both slots started a trial


def test_no_spare_chains_on_the_cpu_by_default_nor_with_a_trial_cap():
    """On the CPU spare chains only add work: off unless asked; with max_trials (dealt over a
    puzzle's chains) never."""
    for options in ({}, {"spare_chains": True, "max_trials": 10**9}):
        results = run_pair(**options)
        assert [results[q].extra.get("spare_chains", 0) for q in (0, 1)] == [0, 0]


def test_fixed_chains_turns_spare_chains_off_and_applies_to_sudoku_annealing(monkeypatch):
    """fixed_chains=True reaches the pool's plan as spare_chains=False (None, the backend's
    default, otherwise); a kind or method without chains pools refuses it by name."""
    from gpu_anneal import sudoku_solver

    seen = []
    real = sudoku_solver.run_pool

    def spy(plan, *args, **kwargs):
        seen.append(plan.spare_chains)
        return real(plan, *args, **kwargs)

    monkeypatch.setattr(sudoku_solver, "run_pool", spy)
    for fixed in (True, False):
        (result,) = api.solve(EASY_4X4 + "\n", chains=2, seed=1, fixed_chains=fixed)
        assert result.solved and result.counts.spare_chains == 0
    assert seen[-1] is None and False in seen
    with pytest.raises(InputError, match="fixed_chains"):
        api.solve(EASY_4X4 + "\n", method="exact", fixed_chains=True)


@pytest.mark.cudasim
def test_the_cuda_runner_seeds_spare_streams_as_the_cpu_runner():
    """A slot loaded with streams past 2**40: the CUDA runner (simulator) reseeds its chains to
    the CPU runner's RNG rows, by jump-ahead (9x9, xoroshiro128+) and by Philox key (16x16)."""
    from simulate import run_simulated

    assert run_simulated("spare_streams.py") == {"3": True, "4": True}
