"""Run under NUMBA_ENABLE_CUDASIM=1: Ctrl-C at every point of a CUDA pool run (interrupt_points).

Arguments: "pool" (solve_stream itself), "spare" (the same with spare chains on:
interrupt_points.SPARE_SETTINGS, a fourth argument its time limit) or "items" (the solvers'
Sudoku annealing on Items), how many of interrupt_points.PUZZLES to solve, and every how many
events to interrupt (1: every one; `/K`: K runs spread evenly over the events, for a run whose
count of events depends on how fast the simulator goes). Runs once without Ctrl-C to count the
events, then once with a Ctrl-C at each chosen event. Prints one JSON object:
events (of the run without Ctrl-C), runs, where (the events interrupted, by name), faults (each
run's, with where its Ctrl-C landed), spare_chains (each puzzle's, in the run without Ctrl-C).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from functools import partial

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from interrupt_points import faults, item_run, pool_run  # noqa: E402

if __name__ == "__main__":
    spare = float(sys.argv[4]) if len(sys.argv) > 4 else 2.0  # "spare": its time limit
    run = {"pool": pool_run, "items": item_run, "spare": partial(pool_run, spare=spare)}
    run = run[sys.argv[1]]
    count = int(sys.argv[2])
    full = run(10**9, "cuda", count)
    if sys.argv[3].startswith("/"):
        every = max(1, full["events"] // int(sys.argv[3][1:]))
    else:
        every = int(sys.argv[3])
    found = [f"run without Ctrl-C: {f}" for f in faults(full)]
    where: Counter = Counter()
    runs = 0
    for k in range(1, full["events"] + 1, every):
        one = run(k, "cuda", count)
        runs += 1
        where[(one["where"] or "none").split(":")[0]] += 1
        found += [f"Ctrl-C {k} at {one['where']}: {f}" for f in faults(one)]
    spare = {r["index"]: r["spare_chains"] for r in full["handed"] + full["stopped"]}
    print(json.dumps({"events": full["events"], "runs": runs, "where": where, "faults": found,
                      "spare_chains": spare}))  # fmt: skip
