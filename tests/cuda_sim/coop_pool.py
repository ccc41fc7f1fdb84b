"""Run under NUMBA_ENABLE_CUDASIM=1: the pool solves 16x16 puzzles on the cooperative kernel, and
each solving chain, replayed alone on the CPU, reaches the same grid after the same trials and
proposals.

Three puzzles through one slot (so the second and third are loaded by a refill, their chains
reseeded on the device with Philox keys), three chains each, propagation off. Prints one JSON
list: per puzzle the run's result and its replay's.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from cpu_reference.sudoku.layout import layout  # noqa: E402
from gpu_anneal.sudoku_solver import replay_chain, solve_batch  # noqa: E402

KEEP = float(sys.argv[1]) if len(sys.argv) > 1 else 0.6  # share of the cells given
SCHEDULE = "geometric:t0=0.36,ratio=0.9,stall=0,reheat=0.3,reheats=2,max_plateaus=4"


def mostly_given(order: int, seed: int, keep: float) -> np.ndarray:
    """A valid pattern grid, each cell kept with probability `keep`."""
    lay = layout(order)
    r, k = np.divmod(np.arange(lay.cells), lay.N)
    grid = ((r * order + r // order + k) % lay.N + 1).astype(np.uint8)
    kept = np.random.default_rng(seed).random(lay.cells) < keep
    return np.where(kept, grid, 0).astype(np.uint8)


def main() -> None:
    order, chains, seed = 4, 3, 7
    puzzles = np.stack([mostly_given(order, s, KEEP) for s in (1, 2, 3)])
    settings = dict(schedule=SCHEDULE, seed=seed, move="focused")
    results = solve_batch(
        puzzles, order, backend="cuda", chains=chains, slots=1, time_limit=None,
        max_trials=30, **settings,
    )  # fmt: skip
    out = []
    for result in results:
        row = {
            "index": result.index, "backend": result.backend, "solved": result.solved,
            "chain": result.solving_chain, "trials": result.extra["chain_trials"],
            "proposals": result.extra["chain_proposals"], "error": result.error,
        }  # fmt: skip
        if result.solved:
            again = replay_chain(
                puzzles[result.index], order, result.solving_chain, chains=chains,
                max_trials=30, **settings,
            )  # fmt: skip
            row["replay"] = {
                "solved": again.solved, "trials": again.extra["chain_trials"],
                "proposals": again.extra["chain_proposals"],
                "same_grid": bool(np.array_equal(again.solution, result.solution)),
            }  # fmt: skip
        out.append(row)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
