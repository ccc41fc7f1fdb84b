"""Schedule presets (cpu_reference.sudoku.presets): what a name expands to, that keys given after
it win, that the published schedule is untouched, and that a preset run stays replayable with a
running cost equal to a full recount."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cpu_reference.errors import OptionError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import load_puzzle, logic_fill, make_batch, run_slice_cpu
from cpu_reference.sudoku.presets import PRESETS, expand
from cpu_reference.sudoku.schedules import KIND_GEOMETRIC, by_name, sirdey
from gpu_anneal.sudoku_solver import replay_chain, solve_one

# the second 9x9 puzzle of tests/cuda_sim/sudoku_equality.py
HARD = "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..1..5"


def cells(text: str) -> np.ndarray:
    return np.array([0 if ch == "." else int(ch) for ch in text], np.uint8)


def recount(grid: np.ndarray, order: int) -> int:
    """Pairs of cells sharing a row, column or box and holding the same digit, by brute force."""
    N = order * order
    g = grid.reshape(N, N).astype(int)
    pairs = 0
    for a in range(N * N):
        ra, ca = divmod(a, N)
        for b in range(a + 1, N * N):
            rb, cb = divmod(b, N)
            peer = ra == rb or ca == cb or (ra // order, ca // order) == (rb // order, cb // order)
            pairs += peer and g[ra, ca] == g[rb, cb]
    return pairs


@pytest.mark.parametrize("order", [3, 4, 5, 6])
def test_band_stays_in_its_temperature_band_and_restarts(order):
    """Every plateau of a trial lies between T = 0.34 and 0.18 (the band of the docstring's
    picture), there is no stall rule, and a trial ends after a bounded number of plateaus."""
    sched = by_name("band", order)
    assert sched.name == "band"
    assert sched.stall == 0 and sched.max_plateaus <= 30_000
    temps = [1 / sched.beta(k) for k in range(0, sched.max_plateaus + 1, 97)]
    assert max(temps) == pytest.approx(0.34)
    assert min(temps) > 0.18
    assert all(a >= b for a, b in zip(temps, temps[1:], strict=False))  # cools in a trial


def test_keys_after_a_preset_win_and_bad_keys_are_refused():
    assert by_name("band:t0=0.25,max_plateaus=7", 5).t0 == 0.25
    assert by_name("band:t0=0.25,max_plateaus=7", 5).max_plateaus == 7
    assert by_name("band:t0=0.5", 3).t0 == 0.5
    assert expand("sirdey-course:t0=1", 5) == "sirdey-course:t0=1"  # no preset: unchanged
    with pytest.raises(OptionError, match="stall"):
        by_name("band:stall=-1", 5)
    with pytest.raises(OptionError, match="band"):
        by_name("bands", 5)  # the error lists the presets among the names


@pytest.mark.parametrize("order", [3, 5])
def test_published_schedule_is_not_a_preset(order):
    """sirdey-course stays Sirdey's course schedule from T0 = e_P with the scaled stall rule."""
    assert "sirdey-course" not in PRESETS
    assert by_name("sirdey-course", order) == sirdey(order, "course")
    assert by_name("sirdey-course", order).t0 == by_name("sirdey-course", order).e_p


def test_running_cost_equals_a_full_recount_after_preset_slices():
    """Cost kept by the move loop = brute-force recount of each chain's grid (restarts too)."""
    puzzle = cells(HARD)
    filled, masks = logic_fill(puzzle, 3)
    sched = by_name("band:max_plateaus=5", 3)  # restarts every 5 plateaus
    batch = make_batch(filled[None], 3, sched, cpp=4, seed=11, move=rules.MOVE_CANDIDATE)
    load_puzzle(batch, 0, filled, batch.rng[:4, :2].copy(), masks)
    for budget in (1, 3, 7):
        run_slice_cpu(batch, budget, stop_on_solved=False)
        for g in range(4):
            assert batch.ctr[g, rules.C_COST] == recount(batch.grid(g), 3)
    assert batch.ctr[:, rules.C_TRIALS].min() >= 2  # at least one restart happened


@pytest.mark.parametrize(("schedule", "move"), [("band", "candidate"), ("auto", "auto")])
def test_preset_run_is_replayable(schedule, move):
    """Same seed, same chains: the same solving chain, trials, proposals and grid; the chain
    re-run alone gives that grid again (the band preset, and the default: auto schedule and
    auto move, focused-two on 9x9)."""
    puzzle = cells(HARD)
    kwargs = dict(schedule=schedule, chains=2, seed=5, move=move, propagate=True)
    first = solve_one(puzzle, 3, time_limit=20, **kwargs)
    again = solve_one(puzzle, 3, time_limit=20, **kwargs)
    assert first.solved and again.solved
    assert first.solving_chain == again.solving_chain
    assert first.extra == again.extra  # the solving chain's trials and proposals
    assert np.array_equal(first.solution, again.solution)
    alone = replay_chain(puzzle, 3, first.solving_chain, chains=2, seed=5,
                         schedule=schedule, move=move, propagate=True)  # fmt: skip
    assert alone.solved and np.array_equal(alone.solution, first.solution)
    assert alone.extra["chain_proposals"] == first.extra["chain_proposals"]


def test_band_recount_on_36x36():
    """Order 6 (64-bit bitboard words): the running cost equals the recount there too."""
    rng = np.random.default_rng(3)
    from cpu_reference.sudoku.exact import solve_exact

    count, grid, _ = solve_exact(np.zeros(36 * 36, np.uint8), 6, limit=1)
    assert count == 1
    puzzle = grid.copy()
    puzzle[rng.permutation(puzzle.size)[: math.floor(0.5 * puzzle.size)]] = 0
    sched = by_name("band:max_plateaus=2", 6, plateau=200)
    batch = make_batch(puzzle[None], 6, sched, cpp=2, seed=1, move=rules.MOVE_CANDIDATE)
    run_slice_cpu(batch, 3, stop_on_solved=False)
    for g in range(2):
        assert batch.ctr[g, rules.C_COST] == recount(batch.grid(g), 6)


@pytest.mark.slow  # 80 s in the simulator; the CPU replay and recount tests above stay fast
@pytest.mark.cudasim
def test_simulated_kernel_runs_a_preset_like_the_cpu_runner():
    """The band preset on propagated candidates: kernel and CPU runner stay equal."""
    from simulate import run_simulated

    rows = run_simulated("preset_equality.py", "band", "4")
    assert [row["order"] for row in rows] == [2, 3]
    for row in rows:
        assert row["equal"], row
        assert row["trials"] > 2  # restarts happened


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
def test_candidate_auto_holds_short_trials_on_9x9_and_a_short_band_above(order):
    """candidate-auto: held trials from T0 = 0.34 for 2,000 plateaus on 4x4 and 9x9, no
    reheating; from 16x16 a geometric band from T = 0.32 to 0.2 over 20,000 plateaus (the band
    preset: 0.34, 30,000), an unsolved trial reheated to 0.28 three times, then a fresh grid."""
    sched = by_name("candidate-auto", order)
    if order <= 3:
        assert (sched.t0, sched.stall, sched.max_plateaus) == (0.34, 0, 2000)
        assert sched.reheat == 0
    else:
        assert (sched.reheat, sched.reheats) == (0.28, 3)
        assert by_name("band", order).reheat == 0
        assert sched.kind == KIND_GEOMETRIC
        assert (sched.t0, sched.t_final, sched.stall) == (0.32, 0.2, 0)
        assert sched.max_plateaus == pytest.approx(20_000, rel=1e-3)
        assert by_name("band", order).max_plateaus == pytest.approx(30_000, rel=1e-3)


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
def test_auto_is_the_focused_moves_schedules(order):
    """auto (the auto move's): on 4x4 and 9x9 (focused-two) held trials, geometric from T = 0.5
    to 0.48 over about 2,000 plateaus; from 16x16 (focused) a geometric band from T = 0.36 to
    0.26 (about 16,300 plateaus; on 36x36 cooled half as fast, about 32,500), an unsolved trial
    reheated to 0.3 three times, then a fresh grid."""
    sched = by_name("auto", order)
    if order <= 3:
        assert sched.kind == KIND_GEOMETRIC
        assert (sched.t0, sched.t_final, sched.stall, sched.reheat) == (0.5, 0.48, 0, 0)
        assert sched.max_plateaus == pytest.approx(2_000, abs=2)
    else:
        assert sched.kind == KIND_GEOMETRIC
        assert (sched.t0, sched.t_final, sched.stall) == (0.36, 0.26, 0)
        assert (sched.reheat, sched.reheats) == (0.3, 3)
        plateaus = 32_544 if order == 6 else 16_272
        assert sched.max_plateaus == pytest.approx(plateaus, rel=1e-3)


@pytest.mark.parametrize("order", [7, 8])
def test_auto_runs_cooler_bands_from_49x49(order):
    """auto from 49x49: a cooler geometric band; 49x49 from T = 0.31 to 0.21 reheated to 0.26
    over about 38,900 plateaus (its TTS99 sweeps), 64x64 from 0.3 to 0.2 reheated to 0.25 over
    about 20,300 (the band 49x49 had before), each reheated three times in a row before a fresh
    grid."""
    sched = by_name("auto", order)
    expected = (0.31, 0.21, 0.26) if order == 7 else (0.3, 0.2, 0.25)
    assert sched.kind == KIND_GEOMETRIC
    assert (sched.t0, sched.t_final, sched.reheat) == pytest.approx(expected)
    assert sched.max_plateaus == pytest.approx(38_948 if order == 7 else 20_274, rel=1e-3)
    assert (sched.stall, sched.reheats) == (0, 3)
