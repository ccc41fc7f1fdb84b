"""Run under NUMBA_ENABLE_CUDASIM=1: solve_batch on the 'cuda' backend solves a 4x4 batch.

Prints one JSON object with the backend used and each puzzle's solved and verified flags.
"""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from gpu_anneal.sudoku_solver import solve_batch  # noqa: E402

PUZZLES = ["1...........4...", "..3.4.........2.", "4.....3..1....2."]

if __name__ == "__main__":
    cells = np.array([[0 if ch == "." else int(ch) for ch in p] for p in PUZZLES], dtype=np.uint8)
    results = solve_batch(cells, 2, chains=2, seed=5, backend="cuda", time_limit=120)
    print(
        json.dumps(
            {
                "backend": results[0].backend,
                "puzzles": len(results),
                "solved": sum(r.solved for r in results),
                "verified": [r.verified for r in results],
            }
        )
    )
