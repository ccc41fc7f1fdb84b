"""Sirdey's annealing on the CPU: incremental cost, schedules, RNG, solving, reporting."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cpu_reference.anneal.fixed_point import growth_fixed
from cpu_reference.anneal.rng import init_states, stream
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, run_slice_cpu
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import unpack_board
from cpu_reference.sudoku.schedules import by_name, final_temperature, sirdey
from cpu_reference.sudoku.verify import conflict_cost, verify_solution
from gpu_anneal.sudoku_solver import solve_batch, solve_one

DATA = Path(__file__).parent / "data"


def board_of(vals: np.ndarray, order: int) -> np.ndarray:
    """Which cells each digit holds, rebuilt from the cell values the slow way."""
    lay = layout(order)
    board = np.zeros((lay.N, lay.cells), dtype=bool)
    for c, d in enumerate(vals[: lay.cells]):
        board[d - 1, c] = True
    return board


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [1, 7, 42])
def test_incremental_cost_equals_full_recount(order, seed):
    """After thousands of accepted moves the tracked cost is c(w) recomputed from scratch."""
    lay = layout(order)
    puzzle = np.zeros(lay.cells, dtype=np.uint8)
    # hot schedule: most moves are accepted, so the cost changes all the time
    sched = by_name("geometric", order, stall=0)
    batch = make_batch(puzzle[None], order, sched, cpp=3, seed=seed)
    for _ in range(4):
        run_slice_cpu(batch, 3, stop_on_solved=False)
        for g in range(batch.chains):
            vals = batch.grid(g)
            assert batch.ctr[g, rules.C_COST] == conflict_cost(vals, order)
            rows = unpack_board(batch.boards[g], order)
            np.testing.assert_array_equal(rows, board_of(vals, order))
    assert batch.ctr[:, rules.C_ACCEPTED].min() > 100


def test_givens_never_move_and_cost_counts_them():
    """Givens stay put through a run, and clashes with givens count in the cost."""
    puzzle = read_puzzles(DATA / "seed002_grids.txt")[1].cells
    batch = make_batch(puzzle[None], 3, by_name("sirdey-course", 3), cpp=2, seed=3)
    run_slice_cpu(batch, 50, stop_on_solved=False)
    given = puzzle != 0
    for g in range(batch.chains):
        vals = batch.grid(g)
        np.testing.assert_array_equal(vals[given], puzzle[given])
        assert batch.ctr[g, rules.C_COST] == conflict_cost(vals, 3)


def test_schedule_constants_match_the_sources():
    """T_f = 0.00273852 for 9x9; the course trial is about 3.1 million plateaus, the paper's 62."""
    assert final_temperature(3) == pytest.approx(0.00273852, abs=1e-8)
    course = sirdey(3, "course")
    assert course.t0 == 810 and course.e_p == 810 and course.plateau == 81
    assert 3.0e6 < course.max_plateaus < 3.2e6
    paper = sirdey(3, "paper")
    assert paper.e_p == 16202 and paper.t0 == 16202
    assert 60e6 < paper.max_plateaus < 64e6
    # the 10,000-plateau stall rule spans the same change of beta whatever e_P
    assert course.stall == 10_000 and paper.stall == round(10_000 * 16203 / 811)
    assert sirdey(5).stall == round(10_000 * (sirdey(5).e_p + 1) / 811)
    assert course.stall * course.step == pytest.approx(paper.stall * paper.step, rel=1e-4)
    # beta grows by log(1 + delta)/(e_P + 1) per plateau: T_{k+1} = T_k / (1 + step T_k)
    t1 = 1.0 / course.beta(1)
    assert t1 == pytest.approx(810 / (1 + np.log(1.1) / 811 * 810))


def test_rng_matches_numba_cuda_random():
    """Chain i's stream equals numba.cuda.random's xoroshiro128+ for thread i."""
    cuda_random = pytest.importorskip("numba.cuda.random")
    ref = np.empty(6, dtype=cuda_random.xoroshiro128p_dtype)
    cuda_random.init_xoroshiro128p_states_cpu(ref, 2024, 0)
    mine = init_states(6, 2024)
    np.testing.assert_array_equal(ref["s0"], mine[:, 0])
    np.testing.assert_array_equal(ref["s1"], mine[:, 1])
    for i in (0, 5):
        expected = [cuda_random.xoroshiro128p_next(ref, i) for _ in range(50)]
        np.testing.assert_array_equal(np.array(expected, dtype=np.uint64), stream(mine, i, 50))


def test_cut_batches_keep_each_chain_stream():
    """A batch starting at chain 3 gives chain 3 the stream it has in the whole batch."""
    whole = init_states(5, 9)
    part = make_batch(np.zeros((1, 16), np.uint8), 2, by_name("geometric", 2), 2, 9, first_chain=3)
    np.testing.assert_array_equal(part.rng[:, :2], whole[3:5])


def test_every_4x4_puzzle_of_a_sample_is_solved_and_agrees_with_exact():
    """Forty random minimal 4x4 puzzles: annealing finds each one's unique solution."""
    from gpu_anneal.generation import generate_puzzles

    made, _ = generate_puzzles(2, 40, seed=5, method="backtrack", tries=1)
    puzzles = np.stack([m["puzzle"] for m in made])
    results = solve_batch(puzzles, 2, chains=2, seed=11, time_limit=30)
    for result, made_one in zip(results, made, strict=True):
        assert result.solved and result.verified
        assert solve_exact(made_one["puzzle"], 2, limit=2)[0] == 1
        np.testing.assert_array_equal(result.solution, made_one["solution"])


def test_seed002_easy_grid_agrees_with_exact_solver():
    """The seed's easy grid: annealing's solution is the exact solver's unique solution."""
    puzzle = read_puzzles(DATA / "seed002_grids.txt")[0].cells
    count, exact, _ = solve_exact(puzzle, 3, limit=2)
    assert count == 1
    result = solve_one(puzzle, 3, chains=2, seed=1, time_limit=60)
    assert result.solved and result.verified
    np.testing.assert_array_equal(result.solution, exact)
    assert verify_solution(result.solution, 3, puzzle) is None
    assert result.trials >= 1 and result.proposals > 0


def test_unsolvable_puzzle_is_reported_unsolved_with_its_best_cost():
    """A puzzle with no completion ends unsolved after its trials, with a positive best cost."""
    # r1c1 sees 1 and 2 in its row, 3 and 4 in its column: no digit is left for it
    grid = np.zeros(16, np.uint8)
    grid[[2, 3, 8, 12]] = [1, 2, 3, 4]
    assert solve_exact(grid, 2, limit=2)[0] == 0
    sched = by_name("sirdey-course", 2, max_plateaus=200)
    result = solve_one(grid, 2, schedule=sched, chains=2, seed=4, max_trials=6, time_limit=30)
    assert not result.solved and not result.verified and result.solution is None
    assert result.cost >= 1
    assert result.trials == 6


def test_same_seed_same_trajectory():
    """One chain, same seed: same solution, trials and proposals; another seed differs."""
    puzzle = read_puzzles(DATA / "seed002_grids.txt")[0].cells
    runs = [solve_one(puzzle, 3, chains=1, seed=s, time_limit=60) for s in (5, 5, 6)]
    assert runs[0].solved and runs[1].solved
    assert (runs[0].trials, runs[0].proposals) == (runs[1].trials, runs[1].proposals)
    np.testing.assert_array_equal(runs[0].solution, runs[1].solution)
    assert runs[2].proposals != runs[0].proposals


def test_time_limit_stops_a_run_and_keeps_the_best_state():
    """A tiny time limit returns unsolved with the best grid so far, never a false solution."""
    puzzle = read_puzzles(DATA / "top95_head.txt")[0].cells
    result = solve_one(puzzle, 3, chains=2, seed=2, time_limit=0.3)
    assert result.seconds < 5  # compilation is not counted, annealing stops at the limit
    assert not result.solved and result.solution is None  # hopeless in 0.3 s with T0 = 810
    assert result.cost == conflict_cost(result.best, 3)
    assert result.cost > 0


def test_custom_schedule_strings():
    """'name:key=value,...' sets parameters; unknown keys and non-numbers are refused."""
    from cpu_reference.errors import InputError

    geo = by_name("geometric:t0=1.5,ratio=0.9995,t_final=0.05", 3)
    assert geo.t0 == 1.5 and geo.t_final == 0.05
    assert geo.max_plateaus == math.ceil(math.log(1.5 / 0.05) / -math.log(0.9995))
    wide = by_name("sirdey-course:delta=0.2,plateau=162,stall=5000", 3)
    assert wide.plateau == 162 and wide.stall == 5000
    assert wide.step == pytest.approx(math.log(1.2) / 811)
    with pytest.raises(InputError, match="foo"):
        by_name("sirdey-course:foo=1", 3)
    with pytest.raises(InputError, match="not a number"):
        by_name("geometric:t0=x", 3)
    # the chains hold the growth factor 1 / ratio below 4: a ratio at or below 0.25 is refused
    # as the option's fault, one just above it runs
    for low in (0.25, 0.2, 1e-300):
        with pytest.raises(InputError, match=r"ratio = .*\(0\.25, 1\)"):
            by_name(f"geometric:ratio={low}", 3)
    steep = by_name("geometric:ratio=0.2500001,t0=1.5,t_final=0.05", 3)
    assert growth_fixed(steep.step) < 4 << 62


def test_winner_does_not_depend_on_threads_or_batch_size():
    """The reported chain is the one with the fewest proposals: the same for 1 or 2 threads and
    for a pool of 1 or 3 slots, with the same grid and counts."""
    import numba

    puzzles = np.stack([p.cells for p in read_puzzles(DATA / "top95_head.txt")[:3]])
    seen = []
    saved = numba.get_num_threads()
    try:
        for threads, slots in ((1, 1), (2, 3), (2, 1)):
            numba.set_num_threads(threads)
            results = solve_batch(
                puzzles, 3, chains=4, seed=21, slots=slots, move="candidate",
                schedule="sirdey-course:t0=1", time_limit=120,
            )  # fmt: skip
            seen.append([
                (r.solving_chain, r.extra["chain_trials"], r.extra["chain_proposals"],
                 r.solution.tobytes()) for r in results
            ])  # fmt: skip
    finally:
        numba.set_num_threads(saved)
    assert all(r[0] is not None for r in seen[0])
    assert seen[0] == seen[1] == seen[2]
