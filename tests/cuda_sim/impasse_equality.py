"""Run under NUMBA_ENABLE_CUDASIM=1: Sudoku --method impasse through the real trial kernel.

Argument: a JSON list of cases, each {"order": n, "cells": a puzzle's cells (0 blank), "chains",
"seed", "temperature", "slice_moves", "slices", "trial_moves", "lanes"[, "shared"][, "stay": the
stay factor, 1 unless given]}. Each case runs
impasse_solve on the device runner (gpu_anneal.grid_runners.CudaTrials over the Sudoku kind's
trial kernel, one chain a thread, or with "lanes": 32 over gpu_anneal.kernels.impasse_warp's
kernel, one warp a chain, its state in shared memory where it fits unless "shared" is false)
for `slices` launches at most. Prints one JSON list, per case: the
arrays the runner brought back (RNG states, best grids, their open cells, solved flags,
counts), the result's status, chain and moves, the kernel's module and the launches.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import numpy as np  # noqa: E402

from cpu_reference.sudoku import impasse  # noqa: E402
from gpu_anneal.grid_runners import CudaTrials  # noqa: E402
from gpu_anneal.impasse_solver import impasse_kernel  # noqa: E402
from gpu_anneal.kernels.launch import simulating  # noqa: E402
from gpu_anneal.kinds import kind_of  # noqa: E402

# the arrays the device runner brings back: the kernel's results and the solved flags
ARRAYS = {"states": impasse.STATES, "best": impasse.BEST, "best_f": impasse.BEST_F,
          "solved": impasse.SOLVED, "counts": impasse.COUNTS}  # fmt: skip


def run_case(case: dict) -> dict:
    """One impasse run on the simulated device for `slices` launches at most."""
    lanes = case.get("lanes", 1)
    if lanes == 1:
        kernel = kind_of("sudoku").trial_kernel()
    else:  # the state rows in shared memory where they fit, unless "shared" is false
        kernel = impasse_kernel(lanes, case["order"], case.get("shared", True))
    runner = CudaTrials(kernel)
    launches = iter(range(1, case["slices"]))  # stop() is asked after each launch
    result = impasse.impasse_solve(
        np.array(case["cells"], np.uint8), case["order"], case["chains"], case["seed"],
        case["temperature"], None, runner, trial_moves=case["trial_moves"],
        slice_moves=case["slice_moves"], stop=lambda: next(launches, None) is None,
        stay=case.get("stay", 1.0),
    )  # fmt: skip
    ran = kernel.get().fn
    host = runner.fetched()
    return {
        **{name: np.asarray(host[at]).tolist() for name, at in ARRAYS.items()},
        "status": result["status"],
        "chain": result["chain"],
        "moves": result["moves"],
        "kernel": f"{ran.__module__}.{ran.__qualname__}",
        "launches": runner.launches,
    }


if __name__ == "__main__":
    assert simulating()
    print(json.dumps([run_case(case) for case in json.loads(sys.argv[1])]))
