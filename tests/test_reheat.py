"""Reheating (schedule key `reheat`): an unsolved trial's chain keeps its grid and cools on from
the first plateau at or below T_r; the key is checked, the running cost stays a full recount,
and the kernel in the simulator moves reheated chains as the CPU runner does."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_presets import HARD, cells, recount

from cpu_reference.errors import OptionError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, run_slice_cpu
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal.sudoku_solver import replay_chain, solve_one

# 2 -> 1 over 7 plateaus (ratio 0.9); T_r = 1.5 is first reached at plateau 3
SHORT = "geometric:t0=2,t_final=1,ratio=0.9,stall=0"


def test_reheat_plateau_is_the_first_at_or_below_the_reheat_temperature():
    """k_r: T(k_r) <= T_r < T(k_r - 1), on both cooling laws; 0 = off leaves it at 0."""
    for text in (
        "geometric:t0=0.32,t_final=0.2,ratio=0.9999765,stall=0,reheat=0.24",
        "sirdey-course:t0=0.34,stall=0,max_plateaus=2000,reheat=0.33",
    ):
        sched = by_name(text, 3)
        k = sched.reheat_plateau()
        assert 0 < k < sched.max_plateaus
        assert 1 / sched.beta(k) <= sched.reheat < 1 / sched.beta(k - 1)
    assert by_name(SHORT, 3).reheat_plateau() == 0
    assert by_name(SHORT + ",reheat=1.5", 3).reheat_plateau() == math.ceil(
        math.log(2 / 1.5) / -math.log(0.9)
    )


@pytest.mark.parametrize(
    "tail, says",
    [
        (",reheat=0.5", "not reached"),
        (",reheat=-1", "reheat = -1"),
        (",reheat=x", "not a number"),
        (",reheats=1.5", "reheats = 1.5"),
    ],
)
def test_a_reheat_the_trial_never_reaches_is_refused(tail, says):
    with pytest.raises(OptionError, match=says):
        by_name(SHORT + tail, 3)


def run_one_trial_then_one_plateau(schedule: str):
    """A 9x9 chain with one move per plateau: its grid at the end of trial one, and the batch
    after one plateau more."""
    sched = by_name(schedule, 3, plateau=1)
    batch = make_batch(np.zeros((1, 81), np.uint8), 3, sched, cpp=1, seed=4)
    run_slice_cpu(batch, sched.max_plateaus, stop_on_solved=False)
    assert batch.ctr[0, rules.C_PLATEAU] == -1 and batch.ctr[0, rules.C_TRIALS] == 1
    before = batch.grid(0).copy()
    run_slice_cpu(batch, 1, stop_on_solved=False)
    return sched, before, batch


def test_reheated_trial_keeps_the_grid_and_starts_at_its_plateau():
    """With reheat, trial two starts from trial one's grid (one move apart after one plateau)
    at plateau k_r; without, from a fresh random grid at plateau 0."""
    sched, before, batch = run_one_trial_then_one_plateau(SHORT + ",reheat=1.5")
    assert batch.ctr[0, rules.C_TRIALS] == 2
    assert batch.ctr[0, rules.C_PLATEAU] == sched.reheat_plateau() + 1
    assert np.count_nonzero(batch.grid(0) != before) <= 1
    assert batch.ctr[0, rules.C_COST] == recount(batch.grid(0), 3)

    _, before, fresh = run_one_trial_then_one_plateau(SHORT)
    assert fresh.ctr[0, rules.C_TRIALS] == 2 and fresh.ctr[0, rules.C_PLATEAU] == 1
    assert np.count_nonzero(fresh.grid(0) != before) > 40  # a new random grid


def test_reheats_bounds_the_reheated_trials_in_a_row():
    """reheats=1: trial two is reheated (the grid stays), trial three starts afresh."""
    sched, before, batch = run_one_trial_then_one_plateau(SHORT + ",reheat=1.5,reheats=1")
    assert np.count_nonzero(batch.grid(0) != before) <= 1
    run_slice_cpu(batch, sched.max_plateaus - sched.reheat_plateau() - 1, stop_on_solved=False)
    assert batch.ctr[0, rules.C_PLATEAU] == -1 and batch.ctr[0, rules.C_TRIALS] == 2
    before = batch.grid(0).copy()
    run_slice_cpu(batch, 1, stop_on_solved=False)
    assert batch.ctr[0, rules.C_TRIALS] == 3 and batch.ctr[0, rules.C_PLATEAU] == 1
    assert np.count_nonzero(batch.grid(0) != before) > 40


def test_reheated_runs_keep_the_cost_a_full_recount_and_respect_the_trial_cap():
    """Many reheats on 16x16: the running cost is the recount, trials stop at the cap."""
    sched = by_name(SHORT + ",reheat=1.2", 4, plateau=50)
    batch = make_batch(np.zeros((1, 256), np.uint8), 4, sched, cpp=2, seed=9, trial_cap=10)
    for budget in (3, 11, 40):
        run_slice_cpu(batch, budget, stop_on_solved=False)
        for g in range(2):
            assert batch.ctr[g, rules.C_COST] == recount(batch.grid(g), 4)
    assert list(batch.ctr[:, rules.C_TRIALS]) == [5, 5]
    assert list(batch.ctr[:, rules.C_STATUS]) == [rules.EXHAUSTED, rules.EXHAUSTED]


@pytest.mark.cudasim
def test_simulated_kernel_reheats_like_the_cpu_runner():
    """Same counters, grids, bitboards, best grids, RNG states and solved bounds with reheat."""
    from simulate import run_simulated

    schedule = "geometric:t0=2,t_final=0.3,ratio=0.8,reheat=1,reheats=1"
    rows = run_simulated("sudoku_equality.py", "4", "--move", "candidate", "--schedule", schedule)
    assert [row["order"] for row in rows] == [2, 3]
    for row in rows:
        assert row["equal"], row
        assert row["reheat"] == 1 and row["trials"] > 2


def test_reheated_run_is_replayable():
    """Same seed, same chains: the same solving chain, counts and grid with reheating on (a
    run of many short trials); the solving chain re-run alone gives that grid again."""
    schedule = "sirdey-course:t0=0.34,stall=0,max_plateaus=300,reheat=0.339,reheats=2"
    kwargs = dict(schedule=schedule, chains=2, seed=3, move="candidate", propagate=True)
    puzzle = cells(HARD)
    first = solve_one(puzzle, 3, time_limit=20, **kwargs)
    again = solve_one(puzzle, 3, time_limit=20, **kwargs)
    assert first.solved and again.solved
    assert first.trials > 2  # trials were reheated and restarted
    assert first.solving_chain == again.solving_chain and first.extra == again.extra
    assert np.array_equal(first.solution, again.solution)
    alone = replay_chain(puzzle, 3, first.solving_chain, **kwargs)
    assert alone.solved and np.array_equal(alone.solution, first.solution)
    assert alone.extra["chain_proposals"] == first.extra["chain_proposals"]
