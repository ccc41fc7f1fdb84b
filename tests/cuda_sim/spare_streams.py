"""Run under NUMBA_ENABLE_CUDASIM=1: the CUDA runner seeds a slot loaded with spare streams
(first stream past 2**40, gpu_anneal.sudoku_solver.SPARE_STRIDE) as the CPU runner does.

For order 3 (xoroshiro128+, reseeded on the device from a jump-ahead state) and order 4
(Philox keys, the cooperative kernels' fresh-chain kernel), one slot of two chains is loaded
with first stream 3 * 2**40 + 10 on each runner; prints one JSON object: order -> whether the
chains' RNG rows are equal after the load (a slice of no plateau makes the CUDA runner reseed).
"""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from cpu_reference.sudoku import rules  # noqa: E402
from cpu_reference.sudoku.batch import make_batch, puzzle_tables  # noqa: E402
from cpu_reference.sudoku.schedules import by_name  # noqa: E402
from gpu_anneal.runners import CpuRunner, CudaRunner  # noqa: E402
from gpu_anneal.sudoku_solver import SPARE_STRIDE  # noqa: E402

if __name__ == "__main__":
    out = {}
    for order in (3, 4):
        code = rules.move_code("focused", order)
        puzzle = np.zeros((1, order**4), np.uint8)
        first = np.array([3 * SPARE_STRIDE + 10])
        rows = []
        for runner_type in (CpuRunner, CudaRunner):
            batch = make_batch(puzzle, order, by_name("sirdey-course", order), 2, 5, move=code)
            runner = runner_type(batch, 5)
            runner.load(np.array([0]), puzzle_tables(puzzle, order, code), first)
            runner.run(0)
            runner.sync()
            runner.fetch_grids()
            rows.append(batch.rng[:, :2].copy())
        out[order] = bool(np.array_equal(*rows)) and bool(rows[0].any())
    print(json.dumps(out))
