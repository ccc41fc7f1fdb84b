"""Run under NUMBA_ENABLE_CUDASIM=1: the CUDA pool on the simulator's card, watched step by step.

Six easy 4x4 puzzles, 32 chains each, no time limit, on the 'simulator' card of
gpu_anneal.plan (one SM holding one block of 128 threads: a wave of 128 chains). The runner's
calls, the verifier's calls and every device-to-host copy are recorded. Prints one JSON object:

    wave, slots, chains      the plan's wave and the pool's slots and chains per launch
    solved                   results solved and verified, of `puzzles`
    fetched_running          chains still running in the puzzles whose grids were fetched
                             (after the warm-up, which gathers one grid to compile the kernel)
    bytes_down, expected_down  bytes copied to the host, and status rows + fetched grids
    all_rows_per_slice       what copying every chain's counters each slice would have moved
    refilled_first, refill_chances  the times the freed slots were loaded before the next
                             slice was launched, of the times puzzles left with more to load
"""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from numba.cuda.simulator.cudadrv import devicearray  # noqa: E402

from cpu_reference.sudoku.schedules import by_name  # noqa: E402
from gpu_anneal import plan, runners  # noqa: E402
from gpu_anneal import pool_status as ps  # noqa: E402
from gpu_anneal import sudoku_solver as solver  # noqa: E402

PUZZLES = ["1...........4...", "..3.4.........2.", "4.....3..1....2.", ".2......3...", "..1.", ""]
CHAINS = 32
log: list[tuple] = []
moved = {"down": 0}
seen = {}


def record(name, method):
    def wrapped(self, *args):
        out = method(self, *args)
        if name == "status":
            log.append(("status", out.copy()))
        elif name == "fetch":
            slots, status = args
            log.append(("fetch", list(slots), [int(status[p, ps.S_RUNNING]) for p in slots]))
        elif name == "init":
            seen["chains"], seen["slots"] = self.batch.chains, self.batch.puzzles
        else:
            log.append((name,))
        return out

    return wrapped


for name in ("run", "status", "fetch", "load"):
    setattr(runners.CudaRunner, name, record(name, getattr(runners.CudaRunner, name)))
runners.CudaRunner.__init__ = record("init", runners.CudaRunner.__init__)

verify = solver.host_cores.verify_rows  # one call verifies every puzzle that just finished


def logged_verify(*args):
    log.append(("verify",))
    return verify(*args)


solver.host_cores.verify_rows = logged_verify

copy_to_host = devicearray.FakeCUDAArray.copy_to_host


def counted_copy(self, ary=None, stream=0):
    out = copy_to_host(self, ary, stream)
    moved["down"] += self.nbytes
    return out


devicearray.FakeCUDAArray.copy_to_host = counted_copy


def cells(text: str) -> np.ndarray:
    text = (text + "." * 16)[:16]
    return np.array([0 if ch == "." else int(ch) for ch in text], dtype=np.uint8)


if __name__ == "__main__":
    sched = by_name("sirdey-course", 2, plateau=4, stall=4, max_plateaus=12)
    stream = solver.solve_stream(
        [cells(p) for p in PUZZLES], 2, chains=CHAINS, seed=5, backend="cuda", schedule=sched,
        time_limit=None, spare_chains=False,  # the plain pool (tests/test_spare_chains.py)
    )  # fmt: skip
    results = list(stream)
    wave = plan.launch_plan(
        2, "sirdey", puzzles=len(PUZZLES), chains=CHAINS, host_seconds=0, rate=0
    )["wave"]
    statuses = [e for e in log if e[0] == "status"]
    fetches = [e for e in log if e[0] == "fetch"]
    rows = len(statuses) * seen["slots"] * ps.STATUS_BYTES
    expected = rows + 16 * sum(len(f[1]) for f in fetches)
    refilled = chances = 0
    for i, event in enumerate(log):
        if event[0] != "fetch" or i == 0 or log[i - 1][0] != "status":
            continue
        after = [e[0] for e in log[i + 1 :]]
        if "load" not in after or "run" not in after:
            continue
        chances += 1
        refilled += after.index("load") < after.index("run")
    print(
        json.dumps(
            {
                "wave": wave,
                "slots": seen["slots"],
                "chains": seen["chains"],
                "puzzles": len(PUZZLES),
                "solved": sum(r.solved and r.verified for r in results),
                "fetched_running": sum(sum(f[2]) for f in fetches[1:]),  # [0]: the warm-up
                "bytes_down": moved["down"],
                "expected_down": expected,
                "all_rows_per_slice": seen["chains"] * 16 * 8,
                "slices": sum(e[0] == "run" for e in log),
                "refilled_first": refilled,
                "refill_chances": chances,
            }
        )
    )
