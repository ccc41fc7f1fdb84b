"""CUDA driver shared by the Shikaku and Hashiwokakero backends: one chain per thread.

Glossary:
    i        chain index = global thread index (cuda.grid(1)); thread i uses RNG state i
    tpb      threads per block
    trial    a puzzle's jitted per-chain function (`shikaku_trial`, `hashi_trial`); its kernel
             calls trial(i, *kernel arguments) for every i below the number of chains
    source   a puzzle's kernel as a plain Python function (its `kernel_source`)

Under the CUDA simulator the kernel is `simulated_kernel`: it calls the trial's Python source
on the simulator's host arrays.
"""

from __future__ import annotations

import numpy as np
from numba import cuda


def simulating() -> bool:
    """True when numba runs CUDA code in its simulator (NUMBA_ENABLE_CUDASIM=1)."""
    from numba import config

    return bool(getattr(config, "ENABLE_CUDASIM", False))


def simulated_kernel(trial):
    """Kernel for the simulator: trial(i, ...) on the host arrays behind the simulated ones."""

    def host(a):
        return getattr(a, "_ary", a)

    def kernel(*args):
        i = cuda.grid(1)
        if i < args[0].shape[0]:
            trial(i, *[host(a) for a in args])

    return kernel


class TrialKernel:
    """A puzzle's kernel: compiled on first use, launched over all chains, or compiled to PTX."""

    def __init__(self, kernel_source, trial):
        self.kernel_source = kernel_source
        self.trial = trial
        self._kernel = None

    def get(self):
        """The compiled kernel (cached); under the simulator it runs the trial's Python source."""
        if self._kernel is None:
            if simulating():
                self._kernel = cuda.jit(simulated_kernel(self.trial.py_func))
            else:
                self._kernel = cuda.jit(self.kernel_source())
        return self._kernel

    def run(self, *args, threads_per_block: int = 64):
        """One trial on every chain on the CUDA device; same arguments as run_chains_cpu.

        The host arrays among the arguments are updated in place, as the CPU runner does.
        """
        kernel = self.get()
        dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        chains = args[0].shape[0]
        blocks = (chains + threads_per_block - 1) // threads_per_block
        kernel[blocks, threads_per_block](*dev)
        for host_array, device_array in zip(args, dev, strict=True):
            if isinstance(host_array, np.ndarray):
                device_array.copy_to_host(host_array)

    def compile_ptx(self, example_args, cc=(9, 0)) -> str:
        """PTX of the kernel for the argument types of `example_args` (no device needed)."""
        import numba

        sig = tuple(numba.typeof(a) for a in example_args)
        ptx, _ = cuda.compile_ptx(self.kernel_source(), sig, cc=cc)
        return ptx
