"""Per-puzzle status of a pool: what the host needs from every slice, in one small row a puzzle.

Glossary: p slot (puzzle) index, i chain index within its puzzle, g = p * cpp + i chain index,
cpp chains per puzzle.

The CUDA runner reduces the chains' counters to these rows on the device
(gpu_anneal.kernels.pool) and copies back only them; the CPU runner computes them here with numpy.
Both must agree row for row (a simulator test compares them).

    status[p, :] int64
        S_RUNNING          chains of p still RUNNING
        S_SOLVED           chains of p that reached cost 0 (status SOLVED)
        S_PICK             i of the reported chain: the SOLVED chain with the fewest proposals,
                           ties to the lowest i; with none, the chain of lowest C_BEST_VALS_COST,
                           ties to the lowest i
        S_PICK_COST        C_BEST_VALS_COST  \
        S_PICK_TRIALS      C_TRIALS           > of the reported chain
        S_PICK_PROPOSALS   C_PROPOSALS       /
        S_TRIALS, S_PROPOSALS, S_ACCEPTED   sums over the chains of p
"""

from __future__ import annotations

import numpy as np

from cpu_reference.sudoku import rules

S_RUNNING = 0
S_SOLVED = 1
S_PICK = 2
S_PICK_COST = 3
S_PICK_TRIALS = 4
S_PICK_PROPOSALS = 5
S_TRIALS = 6
S_PROPOSALS = 7
S_ACCEPTED = 8
N_STATS = 9

STATUS_BYTES = N_STATS * 8  # one row, as it crosses to the host


def puzzle_status(ctr: np.ndarray, cpp: int) -> np.ndarray:
    """int64[P, N_STATS]: the status rows of every puzzle, from counters int64[P * cpp, :]."""
    chains = ctr.shape[0]
    puzzles = chains // cpp
    c = ctr[: puzzles * cpp].reshape(puzzles, cpp, ctr.shape[1])
    status = c[:, :, rules.C_STATUS]
    solved = status == rules.SOLVED
    out = np.zeros((puzzles, N_STATS), dtype=np.int64)
    out[:, S_RUNNING] = (status == rules.RUNNING).sum(axis=1)
    out[:, S_SOLVED] = solved.sum(axis=1)
    big = np.iinfo(np.int64).max
    solved_props = np.where(solved, c[:, :, rules.C_PROPOSALS], big)
    by_solve = np.argmin(solved_props, axis=1)  # first minimum: ties to the lowest i
    by_cost = np.argmin(c[:, :, rules.C_BEST_VALS_COST], axis=1)
    pick = np.where(out[:, S_SOLVED] > 0, by_solve, by_cost)
    rows = c[np.arange(puzzles), pick]
    out[:, S_PICK] = pick
    out[:, S_PICK_COST] = rows[:, rules.C_BEST_VALS_COST]
    out[:, S_PICK_TRIALS] = rows[:, rules.C_TRIALS]
    out[:, S_PICK_PROPOSALS] = rows[:, rules.C_PROPOSALS]
    out[:, S_TRIALS] = c[:, :, rules.C_TRIALS].sum(axis=1)
    out[:, S_PROPOSALS] = c[:, :, rules.C_PROPOSALS].sum(axis=1)
    out[:, S_ACCEPTED] = c[:, :, rules.C_ACCEPTED].sum(axis=1)
    return out


def bound_semantics(solved: np.ndarray) -> bool:
    """Whether `solved` holds proposal bounds (int64, NOT_SOLVED when none) rather than the
    older int32 flags (0 running, 1 solved, 2 stopped by the host)."""
    return solved.dtype == np.int64


def stop_value(solved: np.ndarray) -> int:
    """What the host writes to solved[p] to stop puzzle p's chains at their next plateau."""
    return 0 if bound_semantics(solved) else 2


def is_finished(row: np.ndarray, bounds: bool = True) -> bool:
    """Whether a puzzle is over: no chain running (with bounds, the chains that may still beat
    the best solve run on up to it); with the older flags, also as soon as one chain solved."""
    return row[S_RUNNING] == 0 or (not bounds and row[S_SOLVED] > 0)
