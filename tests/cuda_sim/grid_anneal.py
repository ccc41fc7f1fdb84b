"""Run under NUMBA_ENABLE_CUDASIM=1: Shikaku and Hashiwokakero anneals through the real kernels.

Argument: a JSON list of cases, each {"kind": "shikaku" | "hashi", "puzzle": text grid,
"seed": int, "options": anneal's keyword arguments, "swap": null or two kernel argument names}.
With `swap`, the launch passes those two arguments (of one numba type, else the case fails) in
each other's place. Prints one JSON list, per case: best_f, best, states (RNG states after the
run), trials, the kernel's Python name, and what the runner moved: launches, bytes_to_device,
bytes_to_host, and the byte size of every array argument by name.
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
from gpu_anneal.kernels import hashi as cuda_hashi  # noqa: E402
from gpu_anneal.kernels import shikaku as cuda_shikaku  # noqa: E402
from gpu_anneal.kernels.launch import DeviceTrials, simulating  # noqa: E402


class Recorded(DeviceTrials):
    """The CUDA runner, keeping the run's host arguments; optionally two arguments swapped."""

    def __init__(self, kernel, swap=None):
        super().__init__(kernel)
        self.swap = swap
        self.args: tuple = ()

    def _upload(self, args):
        self.args = args
        super()._upload(args)

    def launch(self, dev):
        if self.swap:
            a, b = (self.kernel.names.index(name) for name in self.swap)
            if numba.typeof(self.args[a]) != numba.typeof(self.args[b]):
                raise TypeError(f"swap {self.swap}: the arguments differ in type")
            dev = list(dev)
            dev[a], dev[b] = dev[b], dev[a]
        super().launch(dev)


def run_case(case: dict) -> dict:
    """One anneal on the simulated device; its chains' results and the runner's traffic."""
    if case["kind"] == "shikaku":
        parse, anneal, kernels = S.parse_grid, SA.anneal, cuda_shikaku
    else:
        parse, anneal, kernels = H.parse_grid, HA.anneal, cuda_hashi
    runner = Recorded(kernels.KERNEL, case.get("swap"))
    result = anneal(parse(case["puzzle"]), seed=case["seed"], runner=runner, **case["options"])
    names = kernels.KERNEL.names
    return {
        "best_f": result["best_f"].tolist(),
        "best": result["best"].tolist(),
        "states": runner.args[0].tolist(),
        "trials": result["trials"],
        "kernel": kernels.get_kernel().fn.__qualname__,
        "launches": runner.launches,
        "bytes_to_device": runner.bytes_to_device,
        "bytes_to_host": runner.bytes_to_host,
        "array_bytes": {
            name: a.nbytes
            for name, a in zip(names, runner.args, strict=True)
            if isinstance(a, np.ndarray)
        },
    }


if __name__ == "__main__":
    assert simulating()
    print(json.dumps([run_case(case) for case in json.loads(sys.argv[1])]))
