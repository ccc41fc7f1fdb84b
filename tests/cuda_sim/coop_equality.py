"""Run under NUMBA_ENABLE_CUDASIM=1: the cooperative kernel and the CPU runner move chains alike.

Prints one JSON list: for each case ORDER:MOVE:SEED given as an argument, whether counters,
grids, bitboards, best grids, RNG rows and solved bounds are equal after the same slices on
both backends, with the work done. Two puzzles a case, one chain each: a pattern grid with a
fifth of its cells blanked (the focused and candidate moves solve it within the slices) and
measure.never_solving_puzzle (it never solves); a short plateau and trial, so that the slices
cover restarts or reheats. Options: `--plateau L` (moves a plateau, default 40), `--slices
a,b,c` (plateaus a slice, default 2,3,2), `--schedule TEXT` (default: REHEATING, a warm
geometric law of 4 plateaus whose unsolved trials are reheated twice in a row before a fresh
grid, as the default technique's are), `--chains C` (chains a puzzle, default 1), `--kernel
coop|thread` (default coop; thread: the one-thread kernel the runner falls back to),
`--trial-cap T` (trials a puzzle over its chains, default 3: with fewer than its chains, chains
past the cap never start a trial). The CPU
runner takes one thread, so that its chains run one after another as the simulator runs its
blocks: with several chains a puzzle, where a chain stops after another solved depends on when
it saw the bound.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numba
import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from cpu_reference.sudoku import rules  # noqa: E402
from cpu_reference.sudoku.batch import make_batch  # noqa: E402
from cpu_reference.sudoku.layout import layout  # noqa: E402
from cpu_reference.sudoku.schedules import by_name  # noqa: E402
from gpu_anneal.measure import never_solving_puzzle  # noqa: E402
from gpu_anneal.runners import same_chains_after  # noqa: E402

REHEATING = "geometric:t0=0.36,ratio=0.9,stall=0,reheat=0.3,reheats=2,max_plateaus=4"


def mostly_given(order: int, seed: int) -> np.ndarray:
    """A valid pattern grid with about a fifth of its cells blanked (it solves within a few
    hundred proposals)."""
    lay = layout(order)
    r, k = np.divmod(np.arange(lay.cells), lay.N)
    grid = ((r * order + r // order + k) % lay.N + 1).astype(np.uint8)
    keep = np.random.default_rng(seed).random(lay.cells) < 0.8
    return np.where(keep, grid, 0).astype(np.uint8)


def compare(
    order: int, move: str, seed: int, plateau: int, slices, schedule: str, chains: int = 1,
    kernel: str = "coop", trial_cap: int = 3,
) -> dict:  # fmt: skip
    puzzles = np.stack([mostly_given(order, seed), never_solving_puzzle(order)])
    sched = by_name(schedule, order, plateau=plateau)
    code = rules.move_code(move, order)
    batches = [
        make_batch(puzzles, order, sched, cpp=chains, seed=seed, trial_cap=trial_cap, move=code)
        for _ in range(2)
    ]
    cpu, gpu = batches
    start = time.perf_counter()
    same = same_chains_after(cpu, gpu, slices, kernel=kernel)
    return {
        "order": order, "move": move, "seed": seed, "kernel": kernel, "chains": chains,
        "equal": all(same.values()),
        "fields": same, "proposals": int(cpu.ctr[:, rules.C_PROPOSALS].sum()),
        "accepted": int(cpu.ctr[:, rules.C_ACCEPTED].sum()),
        "trials": int(cpu.ctr[:, rules.C_TRIALS].sum()),
        "status": cpu.ctr[:, rules.C_STATUS].tolist(), "seconds": time.perf_counter() - start,
    }  # fmt: skip


if __name__ == "__main__":
    args = sys.argv[1:]
    numba.set_num_threads(1)
    options = {"--plateau": "40", "--slices": "2,3,2", "--schedule": REHEATING, "--chains": "1",
               "--kernel": "coop", "--trial-cap": "3"}  # fmt: skip
    for flag in options:
        if flag in args:
            at = args.index(flag)
            options[flag] = args[at + 1]
            del args[at : at + 2]
    slices = [int(x) for x in options["--slices"].split(",")]
    out = []
    for case in args:
        order, move, seed = case.split(":")
        out.append(compare(int(order), move, int(seed), int(options["--plateau"]), slices,
                           options["--schedule"], int(options["--chains"]),
                           options["--kernel"], int(options["--trial-cap"])))  # fmt: skip
    print(json.dumps(out))
