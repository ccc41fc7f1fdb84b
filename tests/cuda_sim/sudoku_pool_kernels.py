"""Run under NUMBA_ENABLE_CUDASIM=1: the pool kernels against their host twins.

Prints one JSON object:
    status   the device's per-puzzle rows equal pool_status.puzzle_status on counters drawn at
             random (ties in proposals and costs, puzzles with no solve and with no trial yet)
    fresh    slots reseeded on the device hold what load_puzzle writes on the host (counters,
             best grids, RNG states of StreamCursor), and the other slots are untouched
    gather   the gathered grids are the reported chains' best grids, in the order asked
    runner   the CUDA runner's load, empty and stop (rows scattered on the device) leave every
             per-puzzle array, counter, RNG state and solved bound as the CPU runner's do
"""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from numba import cuda  # noqa: E402

from cpu_reference.anneal import stream_jump  # noqa: E402
from cpu_reference.sudoku import rules  # noqa: E402
from cpu_reference.sudoku.batch import load_puzzle, make_batch, puzzle_tables  # noqa: E402
from cpu_reference.sudoku.schedules import by_name  # noqa: E402
from gpu_anneal import pool_status as ps  # noqa: E402
from gpu_anneal.kernels import pool  # noqa: E402
from gpu_anneal.runners import CpuRunner, CudaRunner  # noqa: E402

P, CPP = 4, 70  # 70 chains: threads of a 32-thread block fold two or three chains each


def random_counters(rng: np.random.Generator) -> np.ndarray:
    ctr = np.zeros((P * CPP, 16), np.int64)
    ctr[:, rules.C_STATUS] = rng.choice(
        [rules.RUNNING, rules.SOLVED, rules.EXHAUSTED, rules.STOPPED], P * CPP
    )
    ctr[:, rules.C_PROPOSALS] = rng.integers(0, 5, P * CPP) * 1000  # many ties
    ctr[:, rules.C_BEST_VALS_COST] = rng.integers(0, 4, P * CPP)
    ctr[:, rules.C_TRIALS] = rng.integers(1, 9, P * CPP)
    ctr[:, rules.C_ACCEPTED] = rng.integers(0, 10**6, P * CPP)
    rows = slice(CPP, 2 * CPP)  # puzzle 1: no chain solved
    solved = ctr[rows, rules.C_STATUS] == rules.SOLVED
    ctr[rows, rules.C_STATUS] = np.where(solved, rules.EXHAUSTED, ctr[rows, rules.C_STATUS])
    rows = slice(2 * CPP, 3 * CPP)  # puzzle 2: no trial yet
    ctr[rows] = 0
    ctr[rows, rules.C_BEST_VALS_COST] = np.iinfo(np.int64).max
    return ctr


def check_status(seed: int) -> bool:
    ctr = random_counters(np.random.default_rng(seed))
    out = cuda.device_array((P, ps.N_STATS), np.int64)
    pool.kernels()["status"][P, pool.REDUCE_THREADS](cuda.to_device(ctr), CPP, out)
    return bool(np.array_equal(out.copy_to_host(), ps.puzzle_status(ctr, CPP)))


def check_fresh() -> dict:
    cpp, seed = CPP, 9
    puzzles = np.zeros((P, 16), np.uint8)
    sched = by_name("sirdey-course", 2)
    host = make_batch(puzzles, 2, sched, cpp, seed)
    noise = np.random.default_rng(3)
    host.ctr[:] = noise.integers(-5, 5, host.ctr.shape)
    host.best_vals[:] = noise.integers(0, 5, host.best_vals.shape)
    d_ctr, d_rng, d_best = (cuda.to_device(a) for a in (host.ctr, host.rng, host.best_vals))
    slots, firsts = [2, 0], [5 * cpp + 3, 1000]
    cursor = stream_jump.StreamCursor(seed)
    for p, first in sorted(zip(slots, firsts, strict=True), key=lambda x: x[1]):
        load_puzzle(host, p, puzzles[p], cursor.states(first, cpp))
    jump = stream_jump.JumpCursor(seed)
    first_states = np.stack([jump.state_of(f) for f in firsts])
    powers = stream_jump.powers(stream_jump.bits_for(cpp))
    k = len(slots)
    pool.kernels()["fresh"][pool.blocks(k * cpp), pool.THREADS](
        d_ctr, d_rng, d_best, cuda.to_device(np.array(slots, np.int32)),
        cuda.to_device(first_states), k, cpp, cuda.to_device(powers),
    )  # fmt: skip
    return {
        "ctr": bool(np.array_equal(d_ctr.copy_to_host(), host.ctr)),
        "rng": bool(np.array_equal(d_rng.copy_to_host(), host.rng)),
        "best_vals": bool(np.array_equal(d_best.copy_to_host(), host.best_vals)),
    }


def check_gather() -> bool:
    rng = np.random.default_rng(5)
    ctr = random_counters(rng)
    best = rng.integers(1, 5, (P * CPP, 64)).astype(np.uint8)
    status = ps.puzzle_status(ctr, CPP)
    slots = [3, 0, 1]
    out = cuda.device_array((P, 16), np.uint8)
    pool.kernels()["gather"][pool.blocks(len(slots) * 16), pool.THREADS](
        cuda.to_device(best), cuda.to_device(status), cuda.to_device(np.array(slots, np.int32)),
        len(slots), CPP, out,
    )  # fmt: skip
    want = np.stack([best[p * CPP + status[p, ps.S_PICK], :16] for p in slots])
    return bool(np.array_equal(out.copy_to_host()[: len(slots)], want))


def check_runner(order: int, move: str) -> dict:
    """Load, empty and stop slots on both runners; the arrays that result, field by field."""
    rng = np.random.default_rng(order)
    N, cells = order * order, order**4
    sched = by_name("sirdey-course", order)
    code = rules.MOVE_NAMES[move]
    cpu, gpu = (make_batch(np.zeros((P, cells), np.uint8), order, sched, 3, 7, move=code)
                for _ in range(2))  # fmt: skip
    runners = CpuRunner(cpu, 7), CudaRunner(gpu, 7)
    puzzles = np.where(rng.random((3, cells)) < 0.2, rng.integers(1, N + 1, (3, cells)), 0)
    tables = puzzle_tables(puzzles.astype(np.uint8), order, code)
    for runner in runners:
        runner.load(np.array([3, 0, 2]), tables, np.array([9, 30, 12]))
        runner.empty(np.array([1]))
        runner.stop(np.array([2]))
    runners[1].status()  # the reseed kernel runs before the next status
    runners[1].sync()
    runners[1].fetch_grids()
    same = {}
    for name in (*rules.PUZZLE_ARRAYS, "solved", "ctr", "rng", "best_vals"):
        if name in rules.PUZZLE_ARRAYS:
            device = runners[1].d[name].copy_to_host().reshape(getattr(cpu, name).shape)
        else:
            device = getattr(gpu, name)
        same[name] = bool(np.array_equal(device, getattr(cpu, name)))
    return same


if __name__ == "__main__":
    print(
        json.dumps(
            {
                "status": [check_status(seed) for seed in (1, 2, 3)],
                "fresh": check_fresh(),
                "gather": check_gather(),
                "runner": {
                    f"{n}:{m}": check_runner(n, m)
                    for n, m in ((2, "sirdey"), (3, "focused-two"), (4, "focused"))
                },
            }
        )
    )
