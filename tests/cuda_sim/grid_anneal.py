"""Run under NUMBA_ENABLE_CUDASIM=1: Shikaku and Hashiwokakero anneals through the real kernels.

Argument: a JSON list of cases, each {"kind": "shikaku" | "hashi", "puzzle": text grid,
"seed": int, "options": anneal's keyword arguments, "swap": null or two kernel argument names}.
With `swap`, the launch passes those two arguments (of one numba type, else the case fails) in
each other's place. Prints one JSON list, per case: best_f, best, states (RNG states after the
run), trials, the kernel's module and name, and what the runner moved: launches,
bytes_to_device, bytes_to_host, and the byte size of every array argument by name.
"""

from __future__ import annotations

import json
import os
import sys

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import numba  # noqa: E402
import numpy as np  # noqa: E402

from cpu_reference.hashi import puzzle as H  # noqa: E402
from cpu_reference.hashi import rules as HA  # noqa: E402
from cpu_reference.shikaku import puzzle as S  # noqa: E402
from cpu_reference.shikaku import rules as SA  # noqa: E402
from gpu_anneal.grid_runners import CudaTrials  # noqa: E402
from gpu_anneal.kernels.launch import simulating  # noqa: E402
from gpu_anneal.kinds import kind_of  # noqa: E402


class Recorded(CudaTrials):
    """The CUDA runner, optionally launching with two arguments swapped."""

    def __init__(self, kernel, swap=None):
        super().__init__(kernel)
        self.swap = swap

    def launch(self, dev):
        if self.swap:
            a, b = (self.kernel.names.index(name) for name in self.swap)
            if numba.typeof(self.host[a]) != numba.typeof(self.host[b]):
                raise TypeError(f"swap {self.swap}: the arguments differ in type")
            dev = list(dev)
            dev[a], dev[b] = dev[b], dev[a]
        super().launch(dev)


def run_case(case: dict) -> dict:
    """One anneal on the simulated device; its chains' results and the runner's traffic."""
    if case["kind"] == "shikaku":
        parse, anneal = S.parse_grid, SA.anneal
    else:
        parse, anneal = H.parse_grid, HA.anneal
    kernel = kind_of(case["kind"]).trial_kernel()
    runner = Recorded(kernel, case.get("swap"))
    result = anneal(parse(case["puzzle"]), seed=case["seed"], runner=runner, **case["options"])
    names = kernel.names
    ran = kernel.get().fn
    return {
        "best_f": result["best_f"].tolist(),
        "best": result["best"].tolist(),
        "states": runner.host[0].tolist(),
        "trials": result["trials"],
        "kernel": f"{ran.__module__}.{ran.__qualname__}",
        "launches": runner.launches,
        "bytes_to_device": runner.bytes_to_device,
        "bytes_to_host": runner.bytes_to_host,
        "array_bytes": {
            name: a.nbytes
            for name, a in zip(names, runner.host, strict=True)
            if isinstance(a, np.ndarray)
        },
    }


if __name__ == "__main__":
    assert simulating()
    print(json.dumps([run_case(case) for case in json.loads(sys.argv[1])]))
