"""Run under NUMBA_ENABLE_CUDASIM=1: max_trials on the CUDA pool (tests/test_trial_limits.py).

Two 4x4 puzzles that never solve go through one slot (the second a refill), 4 chains a puzzle
and 6 trials: prints one JSON list, per result in completion order, [index, trials, proposals,
accepted, cost].
"""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from gpu_anneal import sudoku_solver  # noqa: E402
from gpu_anneal.sudoku_solver import solve_stream  # noqa: E402

NEVER = "..12....3...4..."  # r1c1 has no digit left

if __name__ == "__main__":
    sudoku_solver.PROOF_AFTER = float("inf")  # no proof of no solution: the trials run out
    cells = np.array([0 if ch == "." else int(ch) for ch in NEVER], np.uint8)
    rows = [
        [r.index, r.trials, r.proposals, r.accepted, r.cost]
        for r in solve_stream(
            [cells, cells.copy()],
            2,
            slots=1,
            chains=4,
            seed=9,
            time_limit=None,
            max_trials=6,
            backend="cuda",
            schedule="geometric:t0=1,ratio=0.8,t_final=0.1",
            move="sirdey",
        )  # fmt: skip
    ]
    print(json.dumps(rows))
