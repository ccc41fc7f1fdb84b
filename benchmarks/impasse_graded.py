"""The impasse chain held at a temperature set by its open cells: an experiment for
benchmarks.bench_impasse_solve_rate (--graded), not an engine option.

A graded table LOW/HIGH@K runs the engine's heat-bath move (cpu_reference.sudoku.impasse)
with the weights of temperature LOW while the chain's grid has K open cells or fewer, and with
those of HIGH while it has more: each move takes the weights its grid's open count sets before
the move. LOW = HIGH is the engine's chain held at that temperature, move for move. Colder
near the bottom (LOW < HIGH) holds a chain that reached few open cells there; warmer near the
bottom (LOW > HIGH) pushes a chain down fast and lets it wander among the grids of few open
cells. The slice also counts the moves made at each open count.

Glossary of index names (as in cpu_reference.sudoku.impasse):
    i        chain index; chain i draws from xoroshiro128+ stream i
    size     the chain's open cells before a move
    band     0: size <= K, the LOW weights; 1: size > K, the HIGH weights
    graded   int64[2, 5]: row band, the heat_weights of its temperature
    seen     int64[chains, SEEN_SIZES]: seen[i, s] moves chain i made at s open cells (the last
             column: at SEEN_SIZES - 1 or more)
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import int64, uint64

from cpu_reference.anneal.rng import uniform_below
from cpu_reference.sudoku.impasse import (
    STAY_WEIGHT,
    blank_chain,
    draw_digit,
    fresh_trial,
    heat_weights,
    write_digit,
)

SEEN_SIZES = 64  # open counts told apart in `seen` (the last one: this many less one or more)


def parse_graded(text: str) -> dict:
    """{"spec", "low", "high", "below"} from LOW/HIGH@K (temperatures above 0, K >= 0 open
    cells); ValueError naming the form."""
    try:
        temps, below = text.split("@")
        low, high = (float(t) for t in temps.split("/"))
        below = int(below)
    except ValueError:
        raise ValueError(f"--graded {text!r}: expected LOW/HIGH@K, e.g. 0.30/0.34@4") from None
    if low <= 0 or high <= 0 or below < 0:
        raise ValueError(f"--graded {text!r}: temperatures above 0, K 0 or more")
    return {"spec": text, "low": low, "high": high, "below": below}


def graded_weights(graded: dict) -> np.ndarray:
    """int64[2, 5]: the heat_weights of LOW (row 0) and of HIGH (row 1)."""
    return np.stack([heat_weights(graded["low"]), heat_weights(graded["high"])])


@nb.njit(cache=True)
def graded_slice(
    i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, graded, below, seen,
):  # fmt: skip
    """impasse_slice's chain (no fresh trials but the first, best kept only once solved), its
    row of weights set to graded[band] before each move (module docstring)."""
    if solved[i] != 0:
        return
    s0, s1 = uint64(states[i, 0]), uint64(states[i, 1])
    moves, trials = int64(counts[i, 0]), int64(counts[i, 2])
    if trials == 0:
        s0, s1 = fresh_trial(
            i, s0, s1, grid, holder, oset, where, filled, free, cand, ncand, units, side
        )
        trials = 1
    band = -1
    last = seen.shape[1] - 1
    for _ in range(slice_moves):
        size = int64(oset[i, 0])
        if size == 0:
            break
        want = 0 if size <= below else 1
        if want != band:
            for k in range(weights.shape[1]):
                weights[i, k] = graded[want, k]
            band = want
        seen[i, min(size, last)] += 1
        at, s0, s1 = uniform_below(s0, s1, size)
        x = int64(oset[i, 1 + int64(at)])
        stay = int64(weights[i, STAY_WEIGHT])
        pick, s0, s1 = draw_digit(i, x, stay, -1, s0, s1, weights, holder, cand, ncand, units, side)
        if pick != 0:
            write_digit(i, x, pick, grid, holder, oset, where, units, side)
        moves += 1
    if oset[i, 0] == 0:
        solved[i] = 1
        best_f[i] = 0
        best[i, :] = grid[i, :]
    counts[i, 0], counts[i, 2] = moves, trials
    states[i, 0], states[i, 1] = s0, s1


# graded_slice compiled once more to be inlined into the parallel loop, as the engine's slice is
# (cpu_reference.sudoku.impasse): called, the loop passes its arguments a chain
_inlined_slice = nb.njit(cache=True, inline="always")(graded_slice.py_func)


@nb.njit(parallel=True, cache=True)
def run_graded(
    states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, graded, below, seen,
):  # fmt: skip
    """One slice of graded_slice on every chain (its arguments after i)."""
    for i in nb.prange(states.shape[0]):
        _inlined_slice(
            i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
            filled, free, cand, ncand, units, side, slice_moves, graded, below, seen,
        )  # fmt: skip


def compile_graded() -> None:
    """Compile (or load from the cache) run_graded: 10 moves of one chain on a blank 4x4."""
    _, args = blank_chain()
    graded = graded_weights({"low": 1.0, "high": 1.0})
    run_graded(*args, graded, 0, np.zeros((1, SEEN_SIZES), np.int64))
