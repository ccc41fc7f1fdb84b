"""Run under NUMBA_ENABLE_CUDASIM=1: a device fault mid-run ends the run with every puzzle reported.

The runner's third launch raises, as a lost device would; prints one JSON object with what the
stream yielded.
"""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from gpu_anneal.sudoku_solver import solve_stream  # noqa: E402

calls = {"n": 0}
from gpu_anneal import runners  # noqa: E402

original = runners.CudaRunner.run


def failing_run(self, budget):
    calls["n"] += 1
    if calls["n"] == 3:
        raise RuntimeError("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure")
    original(self, budget)


runners.CudaRunner.run = failing_run

if __name__ == "__main__":
    from gpu_anneal import sudoku_solver

    sudoku_solver.PROOF_AFTER = float("inf")  # unproved: the fault, not a proof, ends them
    # r1c1 has no digit left: these never solve, so the fault finds them all in the pool
    impossible = np.zeros(16, np.uint8)
    impossible[[2, 3, 8, 12]] = [1, 2, 3, 4]
    puzzles = [impossible.copy() for _ in range(3)]
    results = list(solve_stream(puzzles, 2, slots=3, chains=2, backend="cuda", time_limit=None))
    print(json.dumps({
        "reported": sorted(r.index for r in results),
        "errors": [r.error for r in results],
        "solved": [r.solved for r in results],
    }))  # fmt: skip
