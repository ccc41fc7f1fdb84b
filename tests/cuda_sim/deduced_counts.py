"""Run under NUMBA_ENABLE_CUDASIM=1: the counts and chain fields of a 4x4 puzzle that deduction
alone completes, and of one that still anneals, through the API on the 'cpu' and 'cuda' backends.

Prints one JSON object: backend -> list of {status, counts, solution} in input order, for "cpu"
and "cuda" with fixed chains (the reported chain repeats across backends only then) and for
"cuda_spare" with spare chains (the default on the card: the annealed puzzle's slot partner
leaves, so it may take spare chains), whose annealed puzzle's reported chain is also replayed
on the CPU ("replayed": its solution, chain_trials and chain_proposals).
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
    for name, backend, fixed in (("cpu", "cpu", True), ("cuda", "cuda", True),
                                 ("cuda_spare", "cuda", False)):  # fmt: skip
        results = api.solve(
            PUZZLES, backend=backend, chains=2, seed=3, time_limit=120, fixed_chains=fixed
        )
        out[name] = [
            {"backend": r.backend, "status": r.status, "counts": r.to_dict()["counts"],
             "solution": r.solution}
            for r in results
        ]  # fmt: skip
    chain = out["cuda_spare"][1]["counts"]["solving_chain"]
    again = api.replay(PUZZLES, chain, chains=2, seed=3)
    out["replayed"] = {
        "solution": again.solution,
        **{key: again.to_dict()["counts"][key] for key in ("chain_trials", "chain_proposals")},
    }
    print(json.dumps(out))
