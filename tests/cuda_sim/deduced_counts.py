"""Run under NUMBA_ENABLE_CUDASIM=1: the counts and chain fields of a 4x4 puzzle that deduction
alone completes, and of one that still anneals, through the API on the 'cpu' and 'cuda' backends.

Prints one JSON object: backend -> list of {status, counts, solution} in input order.
"""

from __future__ import annotations

import json
import os

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from gpu_anneal import api  # noqa: E402

# the first: naked singles fill it; the second (two givens) is left to the chains
PUZZLES = "1234340021434321\n1...........4...\n"

if __name__ == "__main__":
    out = {}
    for backend in ("cpu", "cuda"):
        results = api.solve(PUZZLES, backend=backend, chains=2, seed=3, time_limit=120)
        out[backend] = [
            {"backend": r.backend, "status": r.status, "counts": r.to_dict()["counts"],
             "solution": r.solution}
            for r in results
        ]  # fmt: skip
    print(json.dumps(out))
