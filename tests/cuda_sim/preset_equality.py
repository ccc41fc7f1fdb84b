"""Run under NUMBA_ENABLE_CUDASIM=1: a preset schedule moves chains alike in the Sudoku kernel and
the CPU runner (propagated candidates loaded as the pool loads them).

Prints one JSON object per (order, seed): whether every counter, grid, bitboard and RNG state is
equal after the same slices on both backends. Arguments: the preset name, then seeds.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from cpu_reference.sudoku.batch import load_puzzle, logic_fill, make_batch  # noqa: E402
from cpu_reference.sudoku.rules import MOVE_CANDIDATE  # noqa: E402
from cpu_reference.sudoku.schedules import by_name  # noqa: E402
from gpu_anneal.runners import same_chains_after  # noqa: E402

PUZZLES = {
    2: "1...........4...",
    3: "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..1..5",
}


def compare(preset: str, order: int, seed: int) -> dict:
    puzzle = np.array([0 if ch == "." else int(ch) for ch in PUZZLES[order]], np.uint8)
    filled, masks = logic_fill(puzzle, order)
    # the preset at a short plateau and trial, so that a few slices cover several restarts
    sched = by_name(f"{preset}:max_plateaus=3", order, plateau=6)
    batches = []
    for _ in range(2):
        b = make_batch(filled[None], order, sched, cpp=2, seed=seed, trial_cap=4,
                       move=MOVE_CANDIDATE)  # fmt: skip
        load_puzzle(b, 0, filled, b.rng[:2, :2].copy(), masks)
        batches.append(b)
    cpu, gpu = batches
    same = same_chains_after(cpu, gpu, (2, 5, 4))
    return {"order": order, "seed": seed, "equal": all(same.values()), "fields": same,
            "trials": int(cpu.ctr[:, 4].sum()), "beta0": sched.beta0}  # fmt: skip


if __name__ == "__main__":
    name, *seeds = sys.argv[1:]
    print(json.dumps([compare(name, order, int(s)) for order in (2, 3) for s in seeds or [1]]))
