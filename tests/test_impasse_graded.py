"""benchmarks.impasse_graded: one temperature is the engine's chain move for move, two take
the weights the open count sets before each move, and the tables are parsed as written."""

from __future__ import annotations

import numpy as np
import pytest
from test_impasse import assert_legal, lewis

from benchmarks import bench_impasse_solve_rate as sr
from benchmarks import impasse_graded as ig
from cpu_reference.sudoku import impasse


def graded_args(cells, order: int, seed: int, slice_moves: int) -> list:
    """impasse_slice's arguments after i for one fresh chain (0.35), `slice_moves` a slice."""
    args = list(impasse.chain_arrays(impasse.impasse_tables(cells, order), order, 1, seed, 0.35))
    args[impasse.SLICE_AT] = slice_moves
    return args


def test_graded_tables_are_parsed_as_written():
    """LOW/HIGH@K gives both temperatures and K; malformed or out-of-range tables are refused
    naming the form; the weights are heat_weights of each."""
    graded = ig.parse_graded("0.30/0.34@4")
    assert (graded["low"], graded["high"], graded["below"]) == (0.30, 0.34, 4)
    weights = ig.graded_weights(graded)
    assert weights[0].tolist() == impasse.heat_weights(0.30).tolist()
    assert weights[1].tolist() == impasse.heat_weights(0.34).tolist()
    for bad in ("0.3", "0.3/0.34", "0.3@4", "a/b@4", "0/0.3@4", "0.3/0.34@-1", "0.3/0.3/0.3@1"):
        with pytest.raises(ValueError, match="--graded"):
            ig.parse_graded(bad)


def test_one_temperature_is_the_engines_chain_move_for_move():
    """LOW = HIGH = 0.35 on 25x25 at 45 %, 3,000 moves: the same RNG state, grid, open set and
    moves as the engine's slice at 0.35 from the same stream; every move counted once."""
    cells = lewis(5, 45)
    engine = graded_args(cells, 5, 11, 3_000)
    impasse.impasse_slice(0, *engine)
    graded = graded_args(cells, 5, 11, 3_000)
    seen = np.zeros((1, ig.SEEN_SIZES), np.int64)
    weights = ig.graded_weights({"low": 0.35, "high": 0.35})
    ig.graded_slice(0, *graded[: impasse.SLICE_AT + 1], weights, 3, seen)
    for name in ("STATES", "GRID", "OSET", "HOLDER"):
        k = getattr(impasse, name)
        assert np.array_equal(engine[k], graded[k]), name
    moves_and_trials = [0, 2]  # the engine's slice also counts the trial's moves (column 1)
    counts = impasse.COUNTS
    assert (
        engine[counts][0, moves_and_trials].tolist() == graded[counts][0, moves_and_trials].tolist()
    )
    assert seen.sum() == graded[impasse.COUNTS][0, 0] > 0


def test_two_temperatures_take_the_weights_the_open_count_sets():
    """LOW 0.25 at 40 open cells or fewer, HIGH 0.40 above, a move at a time on 25x25 at 45 %:
    after each move the chain's weights are the band's its open count set before it, both
    bands are met (so the check can fail), and the grid, holders and open set stay legal."""
    cells = lewis(5, 45)
    args = graded_args(cells, 5, 3, 1)
    graded = ig.graded_weights({"low": 0.25, "high": 0.40})
    seen = np.zeros((1, ig.SEEN_SIZES), np.int64)
    oset, weights = args[impasse.OSET], args[impasse.WEIGHTS]
    one_move = (0, *args[: impasse.SLICE_AT + 1], graded, 40, seen)
    ig.graded_slice(*one_move)  # the first trial's grid, and a move
    bands = set()
    for _ in range(4_000):
        size = int(oset[0, 0])
        if size == 0:
            break
        ig.graded_slice(*one_move)
        band = 0 if size <= 40 else 1
        assert weights[0].tolist() == graded[band].tolist(), (size, band)
        bands.add(band)
    assert bands == {0, 1}
    assert seen.sum() == args[impasse.COUNTS][0, 0]
    grid = args[impasse.GRID]
    args[impasse.BEST][0] = grid[0]
    args[impasse.BEST_F][0] = np.count_nonzero(grid[0] == 0)
    assert_legal(args, cells, 5)


@pytest.mark.slow  # the parallel runner's first compile takes about 20 s on 2 cores
def test_a_graded_run_counts_verified_solves():
    """count_solves with a graded table on 25x25 at 45 % for 20 slices: several solves, each
    verified, within all moves, and the share of moves at K or fewer a fraction (the moves
    themselves: the tests above, in CI)."""
    graded = ig.parse_graded("0.33/0.37@3")
    run = sr.count_solves(lewis(5, 45), 5, sr.parse_table("0.35"), 0, 2, 1, 1e9, max_slices=20,
                          graded=graded)  # fmt: skip
    assert run["solves"] >= 2 and 1 <= run["solutions"] <= run["solves"]
    assert sum(run["chain_moves"]) <= run["moves"]
    assert 0 < run["low_share"] < 1
