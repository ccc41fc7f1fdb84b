"""Run under NUMBA_ENABLE_CUDASIM=1: the Sudoku kernel and the CPU runner move chains alike.

Prints one JSON object: for each (order, seed), whether every counter, grid, bitboard and RNG
state is equal after the same slices on both backends. Arguments: seeds, optionally
`--move NAME` (sirdey, candidate or box-swap) and `--schedule TEXT` (sirdey-course by default).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from cpu_reference.sudoku.batch import make_batch  # noqa: E402
from cpu_reference.sudoku.rules import MOVE_NAMES  # noqa: E402
from cpu_reference.sudoku.schedules import by_name  # noqa: E402
from gpu_anneal.runners import same_chains_after  # noqa: E402

PUZZLES = {
    2: ["1...........4...", "..3.4.........2.", "................"],
    3: [
        "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.1932.....3.862..",
        "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..1..5",
    ],
}


def parse(line: str) -> np.ndarray:
    return np.array([0 if ch == "." else int(ch) for ch in line], dtype=np.uint8)


def compare(
    order: int, seed: int, slices: list[int], move: str = "sirdey", schedule: str = "sirdey-course"
) -> dict:
    puzzles = np.stack([parse(text) for text in PUZZLES[order]])
    sched = by_name(schedule, order, plateau=6, stall=3, max_plateaus=8)
    code = MOVE_NAMES[move]
    cpu = make_batch(puzzles, order, sched, cpp=1, seed=seed, trial_cap=3, move=code)
    gpu = make_batch(puzzles, order, sched, cpp=1, seed=seed, trial_cap=3, move=code)
    same = same_chains_after(cpu, gpu, slices)
    return {
        "order": order,
        "seed": seed,
        "move": move,
        "reheat": sched.reheat,
        "equal": all(same.values()),
        "fields": same,
        "proposals": int(cpu.ctr[:, 5].sum()),
        "trials": int(cpu.ctr[:, 4].sum()),
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    options = {"--move": "sirdey", "--schedule": "sirdey-course"}
    for flag in options:
        if flag in args:
            at = args.index(flag)
            options[flag] = args[at + 1]
            del args[at : at + 2]
    seeds = [int(s) for s in args] or [1, 2, 3]
    move, schedule = options["--move"], options["--schedule"]
    out = [compare(order, seed, [2, 5, 4], move, schedule) for order in (2, 3) for seed in seeds]
    print(json.dumps(out))
